#pragma once
// The built-in scene library: one file per family, each listing its scenes here.

#include <impulse/scene.h>

#include <string>
#include <vector>

namespace impulse::builtin {

struct BuiltinScene {
  std::string name;
  Scene (*make)();
};

std::vector<BuiltinScene> falling_scenes();
std::vector<BuiltinScene> spinning_scenes();
std::vector<BuiltinScene> stacking_scenes();
std::vector<BuiltinScene> material_scenes();
std::vector<BuiltinScene> joint_scenes();

/// A dynamic body of one shape at a position, the common case of every family.
BodySettings dynamic_body(std::string name, ShapeGeometry geometry, const Vec3& position);

/// A static box named "ground" whose top face is the plane y = 0.
BodySettings ground(Real half_width = 50, Real half_height = Real(0.5));

/// Seed 001 section 9.2: two of table 1's boxes, the light one of density_ratio times the other's
/// density, at the bottom (heavy on light) or on top (light on heavy).
Scene seed001_mass_ratio(Real density_ratio, bool light_at_bottom);

/// Seed 000 figure 12's tower: rings of unit boxes on a circle of radius (m), each box's local z
/// pointing outward, each ring turned half a box against the one below.
std::vector<BodySettings> tower_boxes(int rings, int per_ring, Real radius);

/// Links of 1 kg (balls of radius 0.1 m, 0.5 m apart) ball-jointed end to end, the first nailed
/// 20 m up, a weight of weight_ratio kg (a ball of radius 0.5 m) jointed to the last, released
/// straight at release_degrees above the horizontal: a light chain under a heavy load, which
/// holds only with the joints' geometric stiffness (docs/joints.md).
Scene heavy_chain(int links, Real weight_ratio, Real release_degrees);

}  // namespace impulse::builtin
