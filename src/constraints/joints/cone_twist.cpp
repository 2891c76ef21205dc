// Cone-twist joint (ragdoll shoulders and hips): the anchors coincide; b's twist axis stays
// within a cone of half-angle swing_limit about a's, and b turns about it within twist_limits.
// The relative rotation splits as q = swing * twist (joint_parts.h):
//   C_swing = swing_limit - theta >= 0, theta = |swing|, dtheta/dt ~ (w_b - w_a) . s
//     (s the swing axis in the world), so J = [0, s, 0, -s]
//   C_twist within twist_limits, dpsi/dt ~ (w_b - w_a) . t, t halfway between the two twist axes
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_cone_twist_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  add_point_rows(g, 0, rows);
  const SwingTwist st = swing_twist(g.relative());
  const Real swing = length(st.swing);
  // Below this swing the cone's rim direction is undefined, and the limit is far unless zero.
  constexpr Real k_min_swing = Real(1e-6);
  if (swing > k_min_swing) {
    JointRow row = angular_axis_row(-rotate(g.frame_a, st.swing / swing));
    row.kind = JointRow::Kind::limit;
    row.error = joint.settings.swing_limit - swing;
    row.slot = 3;
    rows.add(row);
  }
  const Vec3 twist_axis =
      normalize(rotate(g.frame_a, Vec3::unit_x()) + rotate(g.frame_b, Vec3::unit_x()));
  if (twist_axis == Vec3::zero()) return;  // swung by pi: twist undefined
  JointRow twist = angular_axis_row(twist_axis);
  twist.error = st.twist;
  add_angle_range_rows(twist, joint.settings.twist_limits, 4, rows);
}

}  // namespace impulse
