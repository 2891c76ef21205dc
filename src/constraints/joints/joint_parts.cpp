#include "constraints/joints/joint_parts.h"

#include <numbers>

namespace impulse {

JointRow linear_axis_row(const JointGeometry& g, const Vec3& n, bool in_b_frame) {
  const Vec3 d = g.p_b - g.p_a;
  JointRow row;
  row.lin_a = -n;
  row.ang_a = -cross(in_b_frame ? g.r_a : g.r_a + d, n);
  row.lin_b = n;
  row.ang_b = cross(in_b_frame ? g.r_b - d : g.r_b, n);
  row.error = dot(n, d);
  return row;
}

JointRow frame_axis_row(const JointGeometry& g, const Vec3& frame_axis, bool in_b_frame) {
  return linear_axis_row(g, rotate(in_b_frame ? g.frame_b : g.frame_a, frame_axis), in_b_frame);
}

JointRow locked_axis_row(const JointGeometry& g, const Vec3& frame_axis, bool in_b_frame) {
  JointRow row = frame_axis_row(g, frame_axis, in_b_frame);
  row.ang_a = -cross(g.locked_point - (g.p_a - g.r_a), row.lin_b);
  row.ang_b = cross(g.locked_point - (g.p_b - g.r_b), row.lin_b);
  return row;
}

JointRow angular_axis_row(const Vec3& u) {
  JointRow row;
  row.angular = true;
  row.ang_a = -u;
  row.ang_b = u;
  return row;
}

void add_point_rows(const JointGeometry& g, std::uint8_t first_slot, JointRowSink& rows) {
  // Along axes turning with a, the rows hold the anchor error still in a's frame, and a body
  // spinning more than about 0.6 rad a step about its anchor grows that error every step
  // (docs/joints.md, "Two row blocks"): a hinge's rotor driven at 60 rad/s flew off. Along b's
  // axes where b never turns (still_axes), the term that turns with the axes vanishes.
  for (std::uint8_t k = 0; k < 3; ++k) {
    Vec3 axis;
    axis[k] = 1;
    JointRow row = frame_axis_row(g, axis, g.still_axes);
    row.slot = std::uint8_t(first_slot + k);
    rows.add(row);
  }
}

void add_rotation_lock_rows(const JointGeometry& g, std::uint8_t first_slot, JointRowSink& rows) {
  // The rotation taking a's frame to b's, as a world rotation vector: d/dt of it is w_b - w_a
  // to first order, which is all the rows need near the constraint.
  const Vec3 error = to_rotation_vector(g.frame_b * conjugate(g.frame_a));
  for (std::uint8_t k = 0; k < 3; ++k) {
    Vec3 axis;
    axis[k] = 1;
    JointRow row = angular_axis_row(axis);
    row.error = error[k];
    row.slot = std::uint8_t(first_slot + k);
    rows.add(row);
  }
}

void add_range_rows(JointRow row, const Range& range, std::uint8_t lo_slot, JointRowSink& rows) {
  const Real value = row.error;
  if (range.lo == range.hi) {
    row.kind = JointRow::Kind::equality;
    row.error = value - range.lo;
    row.slot = lo_slot;
    rows.add(row);
    return;
  }
  row.kind = JointRow::Kind::limit;
  // Both ends, each speculative: a coordinate moving fast toward the far end must not pass it
  // within one step while only the nearer end has a row.
  if (range.lo > -k_infinity) {
    JointRow lo = row;
    lo.error = value - range.lo;  // C = s - lo >= 0
    lo.slot = lo_slot;
    rows.add(lo);
  }
  if (range.hi < k_infinity) {
    row.error = range.hi - value;  // C = hi - s >= 0: J flips sign
    row.lin_a = -row.lin_a;
    row.ang_a = -row.ang_a;
    row.lin_b = -row.lin_b;
    row.ang_b = -row.ang_b;
    row.slot = std::uint8_t(lo_slot + 1);
    row.upper_end = range.lo > -k_infinity;
    rows.add(row);
  }
}

void add_angle_range_rows(JointRow row, const Range& range, std::uint8_t lo_slot,
                          JointRowSink& rows) {
  constexpr Real pi = std::numbers::pi_v<Real>;
  // A hinge limited to [-180, 10] degrees and turned to -181 measures +179: read so, its upper
  // row stood 169 degrees violated and drove it on round (a wheel went from 8 to 423 J in 5 s).
  if (range.hi - range.lo >= 2 * pi - Real(1e-6)) return;
  const Real middle = (range.lo + range.hi) / 2;
  Real off = row.error - middle;  // within (-2 pi, 2 pi)
  if (off > pi)
    off -= 2 * pi;
  else if (off <= -pi)
    off += 2 * pi;
  row.error = middle + off;
  add_range_rows(row, range, lo_slot, rows);
}

void add_motor_row(JointRow row, const Motor& motor, std::uint8_t slot, JointRowSink& rows) {
  row.kind = JointRow::Kind::motor;
  row.error = 0;
  row.speed = motor.speed;
  row.max_force = motor.max_force;
  row.spring = {};
  row.slot = slot;
  rows.add(row);
}

SwingTwist swing_twist(const Quat& relative) {
  const Quat q = relative.w < 0 ? relative * Real(-1) : relative;
  // twist = (x, 0, 0, w) normalised; swing = q * conj(twist) has no x component.
  const Real norm = std::sqrt(q.x * q.x + q.w * q.w);
  if (norm < Real(1e-9)) {
    // Swung by exactly pi: the twist is undefined; call it zero.
    return {0, to_rotation_vector(q)};
  }
  const Quat twist{q.x / norm, 0, 0, q.w / norm};
  const Quat swing = q * conjugate(twist);
  Real angle = 2 * std::atan2(twist.x, twist.w);
  if (angle > std::numbers::pi_v<Real>) angle -= 2 * std::numbers::pi_v<Real>;
  if (angle <= -std::numbers::pi_v<Real>) angle += 2 * std::numbers::pi_v<Real>;
  return {angle, to_rotation_vector(swing)};
}

std::optional<SwingTwistRates> swing_twist_rates(const Quat& relative) {
  const Quat q = relative.w < 0 ? relative * Real(-1) : relative;
  // As swing_twist: twist (x, 0, 0, w) / n; swing (0, s_y, s_z, n) with s_y = (w y - x z) / n and
  // s_z = (w z + x y) / n, as a rotation vector phi / s (0, s_y, s_z), s = |(y, z)|,
  // phi = 2 atan2(s, n). Each coordinate's derivative along dq = (0, e_i) q / 2, for each axis e_i.
  const Real n = std::sqrt(q.x * q.x + q.w * q.w);
  constexpr Real k_min_twist_norm = Real(0.05);  // a swing within 5.7 degrees of pi
  if (n < k_min_twist_norm) return std::nullopt;
  const Real s = std::sqrt(q.y * q.y + q.z * q.z);
  const Real s_y = (q.w * q.y - q.x * q.z) / n, s_z = (q.w * q.z + q.x * q.y) / n;
  // phi / s, which tends to 2 / n at no swing.
  constexpr Real k_small_swing = Real(1e-4);
  const bool swung = s > k_small_swing;
  const Real f = swung ? 2 * std::atan2(s, n) / s : 2 / n;
  SwingTwistRates rates;
  for (std::size_t i = 0; i < 3; ++i) {
    Vec3 e;
    e[i] = Real(0.5);
    const Quat d = Quat(e.x, e.y, e.z, 0) * q;
    const Real dn = (q.w * d.w + q.x * d.x) / n;
    rates.twist[i] = 2 * (q.w * d.x - q.x * d.w) / (n * n);
    const Real ds_y = (d.w * q.y + q.w * d.y - d.x * q.z - q.x * d.z - s_y * dn) / n;
    const Real ds_z = (d.w * q.z + q.w * d.z + d.x * q.y + q.x * d.y - s_z * dn) / n;
    Real df = -2 * dn / (n * n);
    if (swung) {
      const Real ds = (q.y * d.y + q.z * d.z) / s;
      const Real dphi = 2 * (n * ds - s * dn) / (n * n + s * s);
      df = (dphi - f * ds) / s;
    }
    rates.swing[1][i] = df * s_y + f * ds_y;
    rates.swing[2][i] = df * s_z + f * ds_z;
  }
  return rates;
}

JointRow swing_axis_row(const JointGeometry& g, const SwingTwist& st, std::size_t k) {
  Vec3 axis;
  axis[k] = 1;
  JointRow row = angular_axis_row(rotate(g.frame_a, axis));
  row.error = st.swing[k];
  return row;
}

Quat frame_from_axis(const Vec3& axis) {
  Vec3 t1, t2;
  orthonormal_basis(axis, t1, t2);  // axis, t1, t2 right-handed
  return Quat::from_matrix(Mat33{axis, t1, t2});
}

}  // namespace impulse
