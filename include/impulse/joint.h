#pragma once
// Joints between two bodies, or between a body and the world. Described here so scenes can carry
// them; the joint solver rows arrive with the joints issue, until then creating one is Unsupported.

#include <impulse/body.h>

#include <array>
#include <optional>
#include <string>

namespace impulse {

enum class JointType : std::uint8_t {
  ball,
  nail,
  distance,
  fixed,
  hinge,
  prismatic,
  cone_twist,
  six_dof
};

/// The scene format's spelling of a joint type ("ball", "hinge", ...).
const char* joint_type_name(JointType type);
std::optional<JointType> joint_type_from_name(std::string_view name);

/// A range [lo, hi]: m for linear axes, rad for angular ones.
struct Range {
  Real lo = 0, hi = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

/// One axis of a six_dof joint: free, fixed, or limited to a range.
struct AxisMotion {
  enum class Mode : std::uint8_t { free, fixed, limited };
  Mode mode = Mode::fixed;
  Range range;
  friend bool operator==(const AxisMotion&, const AxisMotion&) = default;
};

/// A velocity motor: target speed (rad/s or m/s) reached with a bounded torque or force.
struct Motor {
  Real speed = 0;
  Real max_force = 0;  ///< N m for hinges, N for prismatic joints; >= 0
  friend bool operator==(const Motor&, const Motor&) = default;
};

/// Everything needed to create a joint. Anchors and axes are in world space at creation.
struct JointSettings {
  std::string name;
  JointType type = JointType::ball;
  BodyId body_a;
  BodyId body_b;               ///< null for the world (nail joints always)
  Vec3 anchor;                 ///< ball, nail, fixed, hinge, prismatic, cone_twist, six_dof
  Vec3 anchor_a, anchor_b;     ///< distance
  Vec3 axis = Vec3::unit_x();  ///< hinge, prismatic, cone_twist (unit)
  Quat frame;                  ///< six_dof axes
  std::optional<Real> min_distance, max_distance;  ///< distance as a rope or spring
  std::optional<Range> limits;                     ///< hinge (rad), prismatic (m)
  std::optional<Motor> motor;                      ///< hinge, prismatic
  Real swing_limit = 0;                            ///< cone_twist, rad
  Range twist_limits;                              ///< cone_twist, rad
  std::array<AxisMotion, 3> linear{}, angular{};   ///< six_dof
  std::optional<Real> break_force, break_torque;   ///< N, N m
  bool collide_connected = false;
  friend bool operator==(const JointSettings&, const JointSettings&) = default;
};

}  // namespace impulse
