// Hinge (seed 002's axis constraints): the anchors coincide and b's hinge axis stays on a's.
//   C_pos = p_b - p_a                                   (3 rows)
//   C_1 = s . v_a, C_2 = s . w_a                         (2 rows; u the hinge axis, v and w the
//                                                        frame's other axes, s the swing that
//                                                        turns u_a onto u_b as a rotation vector)
//   dC_k/dt ~ (w_b - w_a) . e_k, J_k = [0, -e_k, 0, e_k] for e_1 = v_a, e_2 = w_a.
// Seed 002's C = u_b . v_a and u_b . w_a are zero with u_b on -u_a as well, and a hinge flipped
// half a turn by an impact stayed flipped; the swing's length is the angle between the axes, up to
// pi, so the rows pull it back. To first order the two are the same pair of rows, swapped and one
// negated (docs/joints.md).
// The hinge angle is the twist of b's frame about a's axis; its rate is (w_b - w_a) . u_a, the
// Jacobian of the limit rows and of the motor (seed 001 section 3.5: a target speed reached with
// an impulse bounded by max torque times dt).
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_hinge_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  add_point_rows(g, 0, rows);
  const SwingTwist st = swing_twist(g.relative());  // in a's frame: the swing has no x part
  for (std::uint8_t k = 1; k <= 2; ++k) {
    JointRow row = swing_axis_row(g, st, k);
    row.slot = std::uint8_t(2 + k);
    rows.add(row);
  }
  JointRow angle = angular_axis_row(rotate(g.frame_a, Vec3::unit_x()));
  angle.error = st.twist;
  if (joint.settings.limits) add_angle_range_rows(angle, *joint.settings.limits, 5, rows);
  if (joint.settings.motor) add_motor_row(angle, *joint.settings.motor, 7, rows);
}

}  // namespace impulse
