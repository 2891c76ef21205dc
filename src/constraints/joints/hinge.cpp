// Hinge (seed 002's axis constraints): the anchors coincide and b's hinge axis stays on a's.
//   C_pos = p_b - p_a                                   (3 rows)
//   C_1 = u_b . v_a, C_2 = u_b . w_a                     (2 rows; u the hinge axis, v and w the
//                                                        frame's other axes, each on its body)
//   dC_1/dt = (w_a x v_a) . u_b + v_a . (w_b x u_b) = (w_b - w_a) . (u_b x v_a)
//   J_1 = [0, -(u_b x v_a), 0, u_b x v_a], likewise J_2 with w_a.
// The hinge angle is the twist of b's frame about a's axis; its rate is (w_b - w_a) . u_a, the
// Jacobian of the limit rows and of the motor (seed 001 section 3.5: a target speed reached with
// an impulse bounded by max torque times dt).
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_hinge_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  add_point_rows(g, 0, rows);
  const Vec3 axis_b = rotate(g.frame_b, Vec3::unit_x());
  for (std::uint8_t k = 0; k < 2; ++k) {
    const Vec3 other_a = rotate(g.frame_a, k == 0 ? Vec3::unit_y() : Vec3::unit_z());
    JointRow row = angular_axis_row(cross(axis_b, other_a));
    row.error = dot(axis_b, other_a);
    row.slot = std::uint8_t(3 + k);
    rows.add(row);
  }
  JointRow angle = angular_axis_row(rotate(g.frame_a, Vec3::unit_x()));
  angle.error = swing_twist(g.relative()).twist;
  if (joint.settings.limits) add_range_rows(angle, *joint.settings.limits, 5, rows);
  if (joint.settings.motor) add_motor_row(angle, *joint.settings.motor, 7, rows);
}

}  // namespace impulse
