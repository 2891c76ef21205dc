#pragma once
// The benchmark's scenes described once, engine-neutrally: boxes, ball joints and the common
// settings. Each engine's runner builds its own world from this description.

#include "geometry.h"

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
};

struct BoxBody {
  V3 half_extents;  // m
  double mass = 0;  // kg; 0 is a static body
  Pose pose;
  bool is_static() const { return mass == 0; }
};

/// A ball joint holding the bodies' points that coincide with anchor at the start.
struct BallJoint {
  int body_a = 0;
  int body_b = -1;  // -1: the world
  V3 anchor;        // m, world space at the start
};

struct Scene {
  std::string name;
  std::vector<BoxBody> bodies;
  std::vector<BallJoint> joints;
  /// Whether every body starts at rest where it should stay (counted by "moved").
  bool resting = false;
};

/// The scenes by name, in the order the table lists them.
std::vector<std::string> scene_names();
/// The scene of that name; throws std::invalid_argument for an unknown one.
Scene make_scene(const std::string& name);

}  // namespace peers
