#pragma once
// The benchmark's scenes described once, engine-neutrally: bodies of one box, sphere or capsule;
// ball, hinge and cone-twist joints; the common settings. Each engine's runner builds its own
// world from this description.

#include "geometry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace peers {

/// The settings every engine gets the same (issue 8's scene contract).
struct CommonSettings {
  double dt = 1.0 / 60.0;  // s
  double gravity = 9.81;   // m/s^2, along -y
  int iterations = 10;     // solver iterations per step
  double friction = 0.5;   // of a pair, after each engine's combine rule
  double restitution = 0;
  int threads = 1;  // Impulse only, when it has such a setting
  // Impulse only: every step on its threads (ThreadUse::always), not only those that measure faster
  bool every_step_on_threads = false;
};

enum class ShapeKind { box, sphere, capsule };

/// A body's one shape, centred on the body's origin: a box, a sphere, or a capsule whose inner
/// segment lies along the body's y axis.
struct Shape {
  ShapeKind kind = ShapeKind::box;
  V3 half_extents;         // m, box
  double radius = 0;       // m, sphere and capsule
  double half_height = 0;  // m, capsule: half its inner segment's length
};

struct Body {
  Shape shape;
  double mass = 0;  // kg; 0 is a static body
  Pose pose;
  bool is_static() const { return mass == 0; }
  bool is_box() const { return shape.kind == ShapeKind::box; }
};

enum class JointKind { ball, hinge, cone_twist };

/// A joint holding the bodies' points that coincide with anchor at the start. Angles are those of
/// body b relative to body a, right-handed about the axis, zero at the start.
struct Joint {
  JointKind kind = JointKind::ball;
  int body_a = 0;
  int body_b = -1;        // -1: the world (ball joints only)
  V3 anchor;              // m, world space at the start
  V3 axis;                // hinge: its axis; cone_twist: b's twist axis (unit, world, at the start)
  double lo = 0, hi = 0;  // hinge: the range of its angle, rad
  double swing = 0;       // cone_twist: the half angle of the cone b's twist axis stays in, rad
  double twist = 0;       // cone_twist: b's twist about its axis stays within [-twist, twist], rad
};

struct Scene {
  std::string name;
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  /// Whether every body starts at rest where it should stay (counted by "moved").
  bool resting = false;
};

/// The scenes by name, in the order the table lists them: issue 8's six, which a run without
/// --scenes runs, or with `all` also those run only on request (pyramid40).
std::vector<std::string> scene_names(bool all = false);
/// The seed of pile1000's orientations that issue 8 fixes; other seeds give other piles of the
/// same kind, whose spread shows how far one pile's figures follow its trajectory.
constexpr std::uint32_t k_pile_seed = 8;
/// The scene of that name (seed: pile1000's orientations; the other scenes have none); throws
/// std::invalid_argument for an unknown one.
Scene make_scene(const std::string& name, std::uint32_t seed = k_pile_seed);
/// The most a nudge moves a body along each axis, m: a few units in the last place of a float
/// at the scenes' 20 m, far below any engine's slop.
constexpr double k_nudge_m = 1e-5;
/// The scene with each dynamic body moved by a seeded offset of at most k_nudge_m along each
/// axis; nudge 0 leaves it as it is (the issue's). Rounding decides where a tower's speculative
/// contacts come and go, or a pile's boxes land, and the figures follow the trajectory, so a
/// change that alters a scene's bits is measured over several nudges. A joint's anchor stays:
/// its bodies start up to a few k_nudge_m apart there.
Scene nudged(Scene scene, std::uint32_t nudge);

}  // namespace peers
