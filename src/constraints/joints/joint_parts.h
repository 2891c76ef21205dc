#pragma once
// Row blocks that several joint types share (Jolt's ConstraintPart habit): a hinge is a point
// part, two angular locks, a limit part and a motor part.

#include "constraints/joints/joint_model.h"

#include <array>
#include <optional>

namespace impulse {

/// The row for the coordinate s = n . (p_b - p_a) along a unit axis n fixed in body a's frame:
/// ds/dt = n . (v_b + w_b x r_b - v_a - w_a x r_a) + (p_b - p_a) . (w_a x n), so
/// J = [-n, -(r_a + d) x n, n, r_b x n] with d = p_b - p_a; with n fixed in b's frame
/// (in_b_frame) the axis turns with b instead, J = [-n, -r_a x n, n, (r_b - d) x n]. error holds s.
JointRow linear_axis_row(const JointGeometry& g, const Vec3& n, bool in_b_frame = false);

/// linear_axis_row along the joint frame's axis `frame_axis` (joint frame axes), the frame being
/// b's copy where in_b_frame, else a's.
JointRow frame_axis_row(const JointGeometry& g, const Vec3& frame_axis, bool in_b_frame);

/// frame_axis_row for a joint that holds all rotation (prismatic, a locked six_dof), acting at
/// JointGeometry::locked_point rather than at b's anchor: J = [-n, -(q - x_a) x n, n, (q - x_b) x
/// n]. With the bodies turning alike every point q gives the same J v, so the row is the same at
/// the solution; at a far anchor its levers turn the bodies, which the rotation rows must undo, and
/// iterated the two fight: a slider 2 m from its anchor overran its limit and left its rail
/// (docs/joints.md, "Prismatic (slider)"). error holds s at the anchors as before.
JointRow locked_axis_row(const JointGeometry& g, const Vec3& frame_axis, bool in_b_frame);

/// The row for a rotation about the unit world axis u: J = [0, -u, 0, u], so J v = (w_b - w_a) . u.
JointRow angular_axis_row(const Vec3& u);

/// Three rows holding the anchors together (C = p_b - p_a along body a's joint axes, or b's
/// where JointGeometry::still_axes), slots first..first + 2.
void add_point_rows(const JointGeometry& g, std::uint8_t first_slot, JointRowSink& rows);

/// Three rows holding b's frame at a's: C the rotation vector of b's frame relative to a's
/// (small-angle Jacobian J = [0, -e, 0, e] per world axis e), slots first..first + 2.
void add_rotation_lock_rows(const JointGeometry& g, std::uint8_t first_slot, JointRowSink& rows);

/// Keeps the coordinate in `row` (its error the coordinate's value, J its rate) within range:
/// an equality for a zero-width range, else a limit row for each end (slots lo_slot and
/// lo_slot + 1, so an impulse never carries from one end to the other). An infinite end has no
/// row.
void add_range_rows(JointRow row, const Range& range, std::uint8_t lo_slot, JointRowSink& rows);

/// add_range_rows for an angle in (-pi, pi] (`row`'s error), the range within [-pi, pi]: the angle
/// is read a turn up or down where that puts it nearer the range, so that one past an end at
/// +-pi is past that end and not far past the other; a range of a whole turn limits nothing.
void add_angle_range_rows(JointRow row, const Range& range, std::uint8_t lo_slot,
                          JointRowSink& rows);

/// Drives the coordinate's rate J v to motor.speed with at most motor.max_force.
void add_motor_row(JointRow row, const Motor& motor, std::uint8_t slot, JointRowSink& rows);

/// Twist about the frame's x axis and swing of that axis (seed 002's swing-twist split of the
/// relative rotation q = swing * twist): twist angle in (-pi, pi], swing as a rotation vector
/// in a's frame axes (its x component zero), so angles stay meaningful beyond 90 degrees.
struct SwingTwist {
  Real twist = 0;
  Vec3 swing;
};
SwingTwist swing_twist(const Quat& relative);

/// The rates of swing_twist's coordinates: d twist / dt = twist . w and d swing[k] / dt =
/// swing[k] . w, for w the angular velocity of b's frame relative to a's in a's frame axes; exact,
/// from dq/dt = w q / 2 (the first-order rows, a's axes, are exact only at zero swing). None
/// within some 6 degrees of a swing of half a turn, where the twist is undefined and the rates
/// grow without bound.
struct SwingTwistRates {
  Vec3 twist;
  std::array<Vec3, 3> swing;  ///< indexed as SwingTwist::swing: [1] y, [2] z ([0] zero)
};
std::optional<SwingTwistRates> swing_twist_rates(const Quat& relative);

/// The row for the swing's component along a's frame axis k (1: y, 2: z; st from swing_twist):
/// J = [0, -e, 0, e] on that axis e in the world, its rate to first order. A hinge holds both at
/// zero; a six_dof axis keeps each free, limited or fixed.
JointRow swing_axis_row(const JointGeometry& g, const SwingTwist& st, std::size_t k);

/// The unit quaternion whose x axis is the given unit axis (the frame of hinges and sliders).
Quat frame_from_axis(const Vec3& axis);

}  // namespace impulse
