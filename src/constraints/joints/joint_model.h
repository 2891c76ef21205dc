#pragma once
// A joint as the step sees it: its settings turned into body-local anchors and frames at creation,
// and the interface through which each joint type writes its rows (Box2D's habit: every joint has
// the same few functions, dispatched in one place, joint_rows.cpp).
//
// Each type's file writes the seeds' way (seed 000 "Jacobian", seed 001 section 3.4): the position
// constraint C, its time derivative dC/dt = J v, and J read off. Equality rows drive C to zero,
// limit rows keep C >= 0, motor rows drive J v to a speed with a bounded impulse.

#include <impulse/joint.h>

#include <array>
#include <cstdint>
#include <span>

namespace impulse {

/// A body's pose as the joint needs it: centre of mass and orientation (identity for the world).
struct JointBodyPose {
  Vec3 center;
  Quat orientation;
};

/// The joint's frame fixed in each body: anchor relative to the centre of mass and axes, body
/// space. The frame's x axis is the hinge, slider, twist or distance axis.
struct JointModel {
  JointSettings settings;
  Vec3 anchor_a, anchor_b;  ///< from each body's centre of mass, body axes
  Quat frame_a, frame_b;  ///< the joint frame in each body's axes (equal in the world at creation)
  Real rest_length = 0;   ///< distance: anchors' distance at creation, m
};

/// The joint's frame and anchors in the world this step.
struct JointGeometry {
  Vec3 r_a, r_b;          ///< anchors from each centre of mass, world axes
  Vec3 p_a, p_b;          ///< anchors, world
  Quat frame_a, frame_b;  ///< each body's copy of the joint frame, world
  /// b never turns (the world, a static body): the point rows go along its axes, which stay put
  /// (add_point_rows).
  bool still_axes = false;
  /// Where the linear rows of a joint that holds all rotation act (locked_axis_row): the centres
  /// of mass weighted by how easily each body turns (the traces of their inverse inertias), a's
  /// centre on a body that never turns. b's anchor until the world sets it, which it does for
  /// the types that use it (prismatic, six_dof).
  Vec3 locked_point;
  /// The rotation of b's frame relative to a's, in a's frame axes (identity at creation).
  Quat relative() const { return conjugate(frame_a) * frame_b; }
};
/// The joint's anchors and frames in the world at its bodies' poses a and b. Inline, so that the
/// caller keeps the parts it reads in registers: a returned copy was read back in other pieces than
/// its stores wrote, which the processor does not forward.
inline JointGeometry joint_geometry(const JointModel& joint, const JointBodyPose& a,
                                    const JointBodyPose& b) {
  JointGeometry g;
  g.r_a = rotate(a.orientation, joint.anchor_a);
  g.r_b = rotate(b.orientation, joint.anchor_b);
  g.p_a = a.center + g.r_a;
  g.p_b = b.center + g.r_b;
  g.frame_a = a.orientation * joint.frame_a;
  g.frame_b = b.orientation * joint.frame_b;
  g.locked_point = g.p_b;
  return g;
}

/// One row as a joint writes it. J v = dot(lin_a, v_a) + dot(ang_a, w_a) + dot(lin_b, v_b) +
/// dot(ang_b, w_b) = dC/dt.
struct JointRow {
  enum class Kind : std::uint8_t {
    equality,  ///< C = 0 (rigid, or a spring when spring is set)
    limit,     ///< C >= 0: impulse >= 0, speculative while C > 0
    motor,     ///< J v = speed, |impulse| <= max_force dt
  };
  Kind kind = Kind::equality;
  std::uint8_t slot = 0;  ///< which warm-start impulse: stable per joint type and row role
  bool angular = false;   ///< C in rad (else m)
  /// C a six_dof angle near its swing of half a turn, where a step may take the reading far from
  /// what its rate says (docs/joints.md, "Soft limits").
  bool near_half_turn = false;
  /// A range's upper end (C = hi - s) whose lower end is the row before, at slot - 1.
  bool upper_end = false;
  Vec3 lin_a, ang_a, lin_b, ang_b;
  Real error = 0;      ///< C
  Real speed = 0;      ///< motor: target J v
  Real max_force = 0;  ///< motor: N or N m
  Spring spring;       ///< equality or limit: frequency 0 for rigid
};

/// The most rows a joint writes in one step, and so its warm-start slots.
inline constexpr std::size_t k_max_joint_rows = 12;

/// Receives a joint's rows.
class JointRowSink {
 public:
  virtual ~JointRowSink() = default;
  virtual void add(const JointRow& row) = 0;
};

/// Keeps a joint's rows as they are.
class JointRowList final : public JointRowSink {
 public:
  void add(const JointRow& row) override { rows_[count_++] = row; }
  std::span<const JointRow> rows() const { return {rows_.data(), count_}; }
  bool empty() const { return count_ == 0; }
  void clear() { count_ = 0; }

 private:
  std::array<JointRow, k_max_joint_rows> rows_;
  std::size_t count_ = 0;
};

/// Writes the rows of the joint's type for the current geometry (joint_rows.cpp dispatches).
void write_joint_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);

// One function per joint type, each in its own file.
void write_ball_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_nail_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_distance_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_fixed_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_hinge_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_prismatic_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_cone_twist_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);
void write_six_dof_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows);

/// The body-local model of a joint created from world-space settings and the bodies' poses.
JointModel make_joint_model(const JointSettings& settings, const JointBodyPose& a,
                            const JointBodyPose& b);

}  // namespace impulse
