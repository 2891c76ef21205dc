// Prismatic joint (slider): b keeps a's orientation and its anchor moves only along a's axis u.
//   C_rot = rotation of b's frame against a's            (3 rows, as the fixed joint)
//   C_1 = v_a . d, C_2 = w_a . d with d = p_b - p_a       (2 rows; v, w the frame's other axes)
//   dC_1/dt = v_a . (v_b + w_b x r_b - v_a - w_a x r_a) + d . (w_a x v_a)
//   J_1 = [-v_a, -(r_a + d) x v_a, v_a, r_b x v_a]
// The slide s = u_a . d has the same form of J, used by the limit rows and the motor (a target
// speed reached with at most max_force).
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_prismatic_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  add_rotation_lock_rows(g, 0, rows);
  // The linear rows act at the bodies' weighted centre (locked_axis_row). At b's anchor their
  // lever from a's centre grew with the slide, and with it the torque the rotation rows had to
  // cancel: rows that yield a little (the joint softness) let a slider hung on the world turn and
  // leave its line (1.6e-2 rad and 0.61 m over 39 m), and under pgs a slider 2 m from its anchor
  // overran its limit by a metre. On the world or a static body (still_axes) the axes go with b,
  // which the locked rotation keeps along a's.
  const auto axis_row = [&](const Vec3& axis) { return locked_axis_row(g, axis, g.still_axes); };
  for (std::uint8_t k = 0; k < 2; ++k) {
    JointRow row = axis_row(k == 0 ? Vec3::unit_y() : Vec3::unit_z());
    row.slot = std::uint8_t(3 + k);
    rows.add(row);
  }
  const JointRow slide = axis_row(Vec3::unit_x());
  if (joint.settings.limits) add_range_rows(slide, *joint.settings.limits, 5, rows);
  if (joint.settings.motor) add_motor_row(slide, *joint.settings.motor, 7, rows);
}

}  // namespace impulse
