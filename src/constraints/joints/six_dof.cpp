// Six-degree-of-freedom joint (seed 002's SixDofConstraint): each of the three linear axes of the
// joint frame (fixed in a) and each of its three angular coordinates is free, fixed or limited,
// rigid or soft (a spring).
//   linear axis n: s = n . (p_b - p_a), J = [-n, -(r_a + d) x n, n, r_b x n] (as the prismatic)
//   angular: the relative rotation split as swing * twist (joint_parts.h): the twist about x and
//   the swing's y and z components. Unlike Euler angles these stay meaningful beyond 90 degrees.
//   Their rates are ~ (w_b - w_a) . e for e the twist axis (halfway between the two frames' x
//   axes) and a's y and z axes.
#include "constraints/joints/joint_parts.h"

#include <algorithm>

namespace impulse {
namespace {

// `angle`: the coordinate is the twist, an angle in (-pi, pi] (add_angle_range_rows).
void add_axis_rows(JointRow row, const AxisMotion& motion, std::uint8_t first_slot, bool angle,
                   JointRowSink& rows) {
  if (motion.spring) row.spring = *motion.spring;
  if (motion.mode == AxisMotion::Mode::free) return;
  const Range range = motion.mode == AxisMotion::Mode::fixed ? Range{0, 0} : motion.range;
  if (angle)
    add_angle_range_rows(row, range, first_slot, rows);
  else
    add_range_rows(row, range, first_slot, rows);
}

}  // namespace

void write_six_dof_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  const std::array<Vec3, 3> axes{Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z()};
  // With its rotation rigidly locked on the world or a static body, the linear axes go with b, as
  // a prismatic joint's do (prismatic.cpp): the rows then act at a's centre (locked_axis_row), not
  // at b's anchor far down a free axis. Where b may turn against a the axes are a's, as the joint
  // defines them.
  const bool locked = std::ranges::all_of(joint.settings.angular, [](const AxisMotion& m) {
    return m.mode == AxisMotion::Mode::fixed && !m.spring;
  });
  for (std::uint8_t k = 0; k < 3; ++k)
    add_axis_rows(
        locked ? locked_axis_row(g, axes[k], g.still_axes) : frame_axis_row(g, axes[k], false),
        joint.settings.linear[k], std::uint8_t(2 * k), false, rows);
  const SwingTwist st = swing_twist(g.relative());
  Vec3 twist_axis =
      normalize(rotate(g.frame_a, Vec3::unit_x()) + rotate(g.frame_b, Vec3::unit_x()));
  if (twist_axis == Vec3::zero()) twist_axis = rotate(g.frame_a, Vec3::unit_x());
  JointRow twist = angular_axis_row(twist_axis);
  twist.error = st.twist;
  add_axis_rows(twist, joint.settings.angular[0], 6, true, rows);
  for (std::uint8_t k = 1; k <= 2; ++k)
    add_axis_rows(swing_axis_row(g, st, k), joint.settings.angular[k], std::uint8_t(6 + 2 * k),
                  false, rows);
}

}  // namespace impulse
