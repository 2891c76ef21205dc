// Six-degree-of-freedom joint (seed 002's SixDofConstraint): each of the three linear axes of the
// joint frame (fixed in a) and each of its three angular coordinates is free, fixed or limited,
// rigid or soft (a spring).
//   linear axis n: s = n . (p_b - p_a), J = [-n, -(r_a + d) x n, n, r_b x n] (as the prismatic)
//   angular: the relative rotation split as swing * twist (joint_parts.h): the twist about x (or
//   y or z, twist_index) and the swing's other two components. Unlike Euler angles these stay
//   meaningful beyond 90 degrees. Their rows go along their exact rates (swing_twist_rates), but
//   within 5.7 degrees of a half-turn swing (the first-order axes), for a rigidly fixed swing
//   part whose partner turns (swing_plane_row) and for a rigidly fixed twist (twist_chord_row).
#include "constraints/joints/joint_parts.h"

#include <algorithm>
#include <cmath>

namespace impulse {
namespace {

// cos(swing / 2) below which the angles' rows are near_half_turn: a swing past 151 degrees, where
// a step's turn of up to half a radian (30 rad/s at 60 Hz) can pass close by the half turn.
constexpr Real k_near_half_turn = Real(0.25);

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

// Which angular axis is the twist's: x, unless y or z turns freely against an x that does not, or
// is the only axis that turns at all (a hinge made of a six_dof). A swing is undefined at half a
// turn: two free boxes spun about a free swing axis gained 1800 times their energy in 10 s. About
// one axis the two readings are the same angle; about several they differ at second order.
std::size_t twist_index(const std::array<AxisMotion, 3>& angular) {
  const auto is = [&](std::size_t k, AxisMotion::Mode mode) { return angular[k].mode == mode; };
  using enum AxisMotion::Mode;
  if (is(1, free) != is(2, free) && !is(0, free)) return is(1, free) ? 1 : 2;
  if (is(0, fixed) && is(1, fixed) != is(2, fixed)) return is(1, fixed) ? 2 : 1;
  return 0;
}

// Swing part k rigidly held at zero while its partner turns: b's x axis in a plane of a's (y's part
// is zero where x_b . z_a is, z's where x_b . y_a is), a row that holds through the swing of half a
// turn the partner may reach, where the swing's parts are undefined.
JointRow swing_plane_row(const JointGeometry& g, std::size_t k) {
  const Vec3 x_b = rotate(g.frame_b, Vec3::unit_x());
  const Vec3 e = rotate(g.frame_a, k == 1 ? Vec3::unit_z() : Vec3::unit_y());
  const Real sign = k == 1 ? Real(-1) : Real(1);
  JointRow row = angular_axis_row(cross(x_b, e) * sign);
  row.error = sign * dot(e, x_b);
  return row;
}

// The twist rigidly fixed as C = 2 q.x (q = F_a^-1 F_b, w >= 0), which is 2 sin(twist / 2)
// cos(swing / 2), along its exact rate: dq/dt = w q / 2 gives dC/dt = w . (q.w, q.z, -q.y) in a's
// axes. The twist reading turns anything within a few degrees of a half-turn swing, where it is
// undefined: pulled back from there by Baumgarte a weightless capsule with its twist fixed and
// both swings free rose from 41 J to 17 kJ. C goes continuously to zero there, its rate stays
// bounded, and short of it C is zero where the twist is. Not a spring's coordinate: its potential
// would fade with the swing and push free swings out to the half turn.
JointRow twist_chord_row(const JointGeometry& g, const Quat& relative) {
  const Quat q = relative.w < 0 ? relative * Real(-1) : relative;
  JointRow row = angular_axis_row(rotate(g.frame_a, Vec3{q.w, q.z, -q.y}));
  row.error = 2 * q.x;
  return row;
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
  std::array<AxisMotion, 3> angular = joint.settings.angular;
  JointGeometry turned = g;
  if (const std::size_t first = twist_index(angular); first > 0) {
    // The frame's axes taken round so that axis `first` comes first: 120 degrees about (1, 1, 1)
    // for y, 240 for z.
    const Real s = first == 1 ? Real(0.5) : Real(-0.5);
    const Quat round{s, s, s, Real(0.5)};
    turned.frame_a = g.frame_a * round;
    turned.frame_b = g.frame_b * round;
    std::rotate(angular.begin(), angular.begin() + std::ptrdiff_t(first), angular.end());
  }
  // The rows along the coordinates' exact rates: the first-order ones (a's axes, the twist
  // halfway between the frames' x axes) are exact only where the swing is zero, and a limit on a
  // swing whose rate they missed pushed without stopping it.
  const Quat relative = turned.relative();
  const SwingTwist st = swing_twist(relative);
  const std::optional<SwingTwistRates> rates = swing_twist_rates(relative);
  const bool rigid_twist = angular[0].mode == AxisMotion::Mode::fixed && !angular[0].spring;
  const bool near_half_turn = std::hypot(relative.x, relative.w) < k_near_half_turn;
  JointRow twist;
  if (rigid_twist) {
    twist = twist_chord_row(turned, relative);
  } else {
    Vec3 twist_axis;
    if (rates) {
      twist_axis = rotate(turned.frame_a, rates->twist);
    } else {
      twist_axis = normalize(rotate(turned.frame_a, Vec3::unit_x()) +
                             rotate(turned.frame_b, Vec3::unit_x()));
      if (twist_axis == Vec3::zero()) twist_axis = rotate(turned.frame_a, Vec3::unit_x());
    }
    twist = angular_axis_row(twist_axis);
    twist.error = st.twist;
    twist.near_half_turn = near_half_turn;
  }
  add_axis_rows(twist, angular[0], 6, true, rows);
  for (std::uint8_t k = 1; k <= 2; ++k) {
    // A spring keeps the angle's row: the plane row's error is a sine, its stiffness would fade.
    const bool plane = angular[k].mode == AxisMotion::Mode::fixed && !angular[k].spring &&
                       angular[3 - k].mode != AxisMotion::Mode::fixed;
    JointRow swing;
    if (plane) {
      swing = swing_plane_row(turned, k);
    } else if (rates) {
      swing = angular_axis_row(rotate(turned.frame_a, rates->swing[k]));
      swing.error = st.swing[k];
    } else {
      swing = swing_axis_row(turned, st, k);
    }
    swing.near_half_turn = near_half_turn && !plane;
    add_axis_rows(swing, angular[k], std::uint8_t(6 + 2 * k), false, rows);
  }
}

}  // namespace impulse
