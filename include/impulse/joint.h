#pragma once
// Joints between two bodies, or between a body and the world (docs/joints.md derives each type's
// rows). Every joint writes rows into the same store as contacts; it reports its reaction force and
// torque, its position error, and breaks (stops acting, reported as an event) past its thresholds.

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

/// A spring in place of a rigid constraint: frequency (Hz, > 0) and damping ratio (>= 0, 1 is
/// critical), solved implicitly so that any stiffness is stable.
struct Spring {
  Real frequency = 0;
  Real damping_ratio = 1;
  friend bool operator==(const Spring&, const Spring&) = default;
};

/// One axis of a six_dof joint: free, fixed, or limited to a range.
struct AxisMotion {
  enum class Mode : std::uint8_t { free, fixed, limited };
  Mode mode = Mode::fixed;
  Range range;                   ///< limited: m for linear axes, rad for angular ones
  std::optional<Spring> spring;  ///< fixed or limited: soft instead of rigid
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
  BodyId body_a;               ///< null for the world (not for nail joints); the frame of six_dof
                               ///< and prismatic axes is fixed in body_a
  BodyId body_b;               ///< null for the world (nail joints always)
  Vec3 anchor;                 ///< ball, nail, fixed, hinge, prismatic, cone_twist, six_dof
  Vec3 anchor_a, anchor_b;     ///< distance
  Vec3 axis = Vec3::unit_x();  ///< hinge, prismatic, cone_twist (unit)
  Quat frame;                  ///< six_dof axes
  std::optional<Real> min_distance, max_distance;  ///< distance as a rope or spring
  std::optional<Spring> spring;                    ///< distance: toward its length at creation
  std::optional<Range> limits;                     ///< hinge (rad), prismatic (m)
  std::optional<Motor> motor;                      ///< hinge, prismatic
  Real swing_limit = 0;                            ///< cone_twist, rad
  Range twist_limits;                              ///< cone_twist, rad
  std::array<AxisMotion, 3> linear{}, angular{};   ///< six_dof
  std::optional<Real> break_force, break_torque;   ///< N, N m
  bool collide_connected = false;
  friend bool operator==(const JointSettings&, const JointSettings&) = default;
};

/// A handle to a joint, with a generation so a stale handle is caught.
struct JointId {
  std::uint32_t index = ~std::uint32_t(0);
  std::uint32_t generation = 0;
  constexpr bool is_null() const { return index == ~std::uint32_t(0); }
  friend constexpr bool operator==(const JointId&, const JointId&) = default;
};

/// What a joint did in the last step.
struct JointState {
  Vec3 force;               ///< N, the joint's force on body_a (body_b gets the opposite)
  Vec3 torque;              ///< N m, the joint's torque on body_a about the anchor on body_a
  Real error = 0;           ///< m, largest linear violation after the step (anchors apart, limits)
  Real angular_error = 0;   ///< rad, largest angular violation after the step (of small ones:
                            ///< the rows held through a half-turn swing read sines and chords)
  Vec3 anchor_a, anchor_b;  ///< m, where each body's anchor is in the world after the step
  /// Each body's copy of the joint frame in the world after the step (equal at creation); its x
  /// axis is the hinge, slider, twist or distance axis, its angles are measured from its y axis.
  Quat frame_a, frame_b;
  bool broken = false;  ///< broke (now or earlier): it no longer acts
};

/// A joint that broke in the last step: its load passed break_force or break_torque.
struct JointBreakEvent {
  JointId joint;
  Vec3 force;   ///< N, the load that broke it (as in JointState)
  Vec3 torque;  ///< N m
};

/// Seed 000's single-axis locks as six_dof presets, between the world (body_a, so the axis stays
/// fixed in the world) and body at anchor (world space): no motion along axis, everything else
/// free; or no rotation about axis.
JointSettings lock_translation(BodyId body, const Vec3& anchor, const Vec3& axis);
JointSettings lock_rotation(BodyId body, const Vec3& anchor, const Vec3& axis);

}  // namespace impulse
