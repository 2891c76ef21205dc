#pragma once
// Bodies: how they are described (BodySettings) and addressed (BodyId).

#include <impulse/collision_filter.h>
#include <impulse/shape.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace impulse {

enum class BodyType : std::uint8_t {
  static_body,     ///< never moves; infinite mass
  kinematic_body,  ///< moves with the velocity it is given; infinite mass, pushes dynamic bodies
  dynamic_body,    ///< moved by forces, gravity and constraints
};

/// "static", "kinematic" or "dynamic".
const char* body_type_name(BodyType type);
std::optional<BodyType> body_type_from_name(std::string_view name);

/// A handle to a body: a slot and the generation of that slot, so a stale handle is caught.
struct BodyId {
  std::uint32_t index = ~std::uint32_t(0);
  std::uint32_t generation = 0;
  constexpr bool is_null() const { return index == ~std::uint32_t(0); }
  friend constexpr bool operator==(const BodyId&, const BodyId&) = default;
};

/// Mass, centre of mass and inertia of a body or shape, in its own frame.
struct MassProperties {
  Real mass = 0;  // kg
  Vec3 center;    // m, centre of mass in the body frame
  Mat33 inertia;  // kg m^2, about the centre of mass, body axes
};

/// Everything needed to create a body; the defaults make a 1 m dynamic box of density 1000.
struct BodySettings {
  std::string name;  ///< optional; names must be unique in a world
  BodyType type = BodyType::dynamic_body;
  /// One shape, or several (a compound). It starts as the default box: assign the whole list
  /// (`shapes = {...}`, or `clear()` first), since shapes pushed after it join that box.
  std::vector<ShapeSettings> shapes{ShapeSettings{}};
  Vec3 position;             ///< m, the body origin in the world
  Quat orientation;          ///< normalised on creation
  Vec3 linear_velocity;      ///< m/s, of the centre of mass
  Vec3 angular_velocity;     ///< rad/s, world frame
  std::optional<Real> mass;  ///< kg; when set it overrides density (inertia scaled to match)
  Real density = 1000;       ///< kg/m^3, used when mass is not set
  Real friction = Real(0.5);
  Real restitution = 0;
  Real linear_damping = 0;   ///< 1/s: v *= 1 / (1 + dt * c) each step
  Real angular_damping = 0;  ///< 1/s
  Real gravity_scale = 1;
  /// Each principal moment of inertia is raised to at least this fraction of the largest, about the
  /// same axes (0 keeps the shapes' own; docs/integration.md, "Inertia conditioning"). A needle
  /// turns about its own axis thousands of times more easily than it tumbles: a contact's or
  /// joint's impulse off that axis spun it hundreds of turns a second, more than a step resolves,
  /// and single precision rounds R I^-1 R^T off definite. World::mass_properties reports what is
  /// used; compute_mass_properties, the shapes' own.
  Real min_inertia_ratio = Real(1e-3);
  /// a point mass: never rotates (zero inverse inertia); its shapes still collide. Its angular
  /// velocity stays zero: a non-zero one at creation or from set_angular_velocity is an error, and
  /// torques and angular impulses do nothing to it.
  bool particle = false;
  /// Which other bodies it touches (collision_filter.h), and which filtered queries see it.
  CollisionFilter collision_filter;
  std::uint64_t user_data = 0;
  friend bool operator==(const BodySettings&, const BodySettings&) = default;
};

/// Mass properties of one shape of the given density (0 for planes and meshes).
MassProperties compute_mass_properties(const ShapeGeometry& geometry, Real density);

/// Mass properties of a set of shapes about their common centre of mass (parallel-axis theorem).
MassProperties compute_mass_properties(const std::vector<ShapeSettings>& shapes, Real density);

}  // namespace impulse
