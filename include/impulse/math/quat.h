#pragma once
// Quat: a rotation quaternion [x, y, z, w] (w the scalar part).

#include <impulse/math/mat33.h>

#include <algorithm>

namespace impulse {

struct Quat {
  Real x = 0, y = 0, z = 0, w = 1;

  constexpr Quat() = default;
  constexpr Quat(Real x_, Real y_, Real z_, Real w_) : x(x_), y(y_), z(z_), w(w_) {}

  static constexpr Quat identity() { return {0, 0, 0, 1}; }
  constexpr Vec3 vec() const { return {x, y, z}; }

  /// The rotation by angle (radians) about a unit axis.
  static Quat from_axis_angle(const Vec3& axis, Real angle) {
    const Real s = std::sin(Real(0.5) * angle);
    return {axis.x * s, axis.y * s, axis.z * s, std::cos(Real(0.5) * angle)};
  }
  /// The rotation by |v| radians about v / |v|; identity for v = 0.
  static Quat from_rotation_vector(const Vec3& v) {
    const Real angle = length(v);
    return angle > Real(0) ? from_axis_angle(v / angle, angle) : identity();
  }
  /// The rotation of a proper rotation matrix (Shepperd's method: the largest pivot).
  static Quat from_matrix(const Mat33& m);

  friend constexpr Quat operator*(const Quat& a, const Quat& b) {
    return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
  }
  friend constexpr Quat operator*(const Quat& q, Real s) {
    return {q.x * s, q.y * s, q.z * s, q.w * s};
  }
  friend constexpr Quat operator+(const Quat& a, const Quat& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
  }
  friend constexpr bool operator==(const Quat&, const Quat&) = default;
};

constexpr Real dot(const Quat& a, const Quat& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
inline Real length(const Quat& q) {
  return std::sqrt(dot(q, q));
}
constexpr Quat conjugate(const Quat& q) {
  return {-q.x, -q.y, -q.z, q.w};
}
/// The inverse of any non-zero quaternion (the conjugate for unit ones).
constexpr Quat inverse(const Quat& q) {
  return conjugate(q) * (Real(1) / dot(q, q));
}
inline bool is_finite(const Quat& q) {
  return is_finite(q.x) && is_finite(q.y) && is_finite(q.z) && is_finite(q.w);
}

/// normalize where |q|^2 overflowed or underflowed (a turn of 1e4 rad/s over a step of 1e30 s; a
/// tiny q): divided by its largest component first (not multiplied by its inverse: 1 / a
/// subnormal is inf), the direction survives. Out of line: every step's integration calls
/// normalize.
[[gnu::noinline, gnu::cold]] inline Quat normalize_scaled(const Quat& q) {
  const Real largest =
      std::max(std::max(std::abs(q.x), std::abs(q.y)), std::max(std::abs(q.z), std::abs(q.w)));
  if (!(largest > Real(0) && largest < k_infinity) || !is_finite(q)) return Quat::identity();
  const Quat scaled{q.x / largest, q.y / largest, q.z / largest, q.w / largest};
  return scaled * (Real(1) / length(scaled));
}

/// q / |q|; the zero quaternion (and one not finite) becomes the identity rather than NaN.
inline Quat normalize(const Quat& q) {
  const Real len = length(q);
  if (len > Real(0) && len < k_infinity) [[likely]]
    return q * (Real(1) / len);
  return normalize_scaled(q);
}

/// v rotated by the unit quaternion q (q v q*, expanded).
constexpr Vec3 rotate(const Quat& q, const Vec3& v) {
  const Vec3 u = q.vec();
  const Vec3 t = Real(2) * cross(u, v);
  return v + q.w * t + cross(u, t);
}
/// v rotated by the inverse of the unit quaternion q.
constexpr Vec3 inverse_rotate(const Quat& q, const Vec3& v) {
  return rotate(conjugate(q), v);
}

/// The rotation matrix R of a unit quaternion: R v == rotate(q, v).
constexpr Mat33 to_matrix(const Quat& q) {
  const Real xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const Real xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const Real wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  return {{1 - 2 * (yy + zz), 2 * (xy + wz), 2 * (xz - wy)},
          {2 * (xy - wz), 1 - 2 * (xx + zz), 2 * (yz + wx)},
          {2 * (xz + wy), 2 * (yz - wx), 1 - 2 * (xx + yy)}};
}

/// Unit axis and angle in [0, pi] of a unit quaternion; the x axis for the identity.
inline void to_axis_angle(const Quat& q_in, Vec3& axis, Real& angle) {
  const Quat q = q_in.w < 0 ? q_in * Real(-1) : q_in;  // the shorter way round
  const Real s = length(q.vec());
  angle = Real(2) * std::atan2(s, q.w);
  axis = s > Real(0) ? q.vec() / s : Vec3::unit_x();
}

/// The rotation vector (axis * angle, angle in [0, pi]) of a unit quaternion.
inline Vec3 to_rotation_vector(const Quat& q) {
  Vec3 axis;
  Real angle;
  to_axis_angle(q, axis, angle);
  return axis * angle;
}

/// One step of dq/dt = 1/2 w * q with a world-frame angular velocity w, renormalised
/// (seed 001 eq. 2 and 37).
inline Quat integrate(const Quat& q, const Vec3& w, Real dt) {
  const Quat spin = Quat(w.x, w.y, w.z, 0) * q;
  return normalize(q + spin * (Real(0.5) * dt));
}

inline Quat Quat::from_matrix(const Mat33& m) {
  const Real tr = trace(m);
  Quat q;
  if (tr > m(0, 0) && tr > m(1, 1) && tr > m(2, 2)) {
    const Real s = std::sqrt(tr + Real(1)) * Real(2);  // s = 4 w
    q = {(m(2, 1) - m(1, 2)) / s, (m(0, 2) - m(2, 0)) / s, (m(1, 0) - m(0, 1)) / s, Real(0.25) * s};
  } else if (m(0, 0) >= m(1, 1) && m(0, 0) >= m(2, 2)) {
    const Real s = std::sqrt(Real(1) + m(0, 0) - m(1, 1) - m(2, 2)) * Real(2);  // s = 4 x
    q = {Real(0.25) * s, (m(0, 1) + m(1, 0)) / s, (m(0, 2) + m(2, 0)) / s, (m(2, 1) - m(1, 2)) / s};
  } else if (m(1, 1) >= m(2, 2)) {
    const Real s = std::sqrt(Real(1) + m(1, 1) - m(0, 0) - m(2, 2)) * Real(2);  // s = 4 y
    q = {(m(0, 1) + m(1, 0)) / s, Real(0.25) * s, (m(1, 2) + m(2, 1)) / s, (m(0, 2) - m(2, 0)) / s};
  } else {
    const Real s = std::sqrt(Real(1) + m(2, 2) - m(0, 0) - m(1, 1)) * Real(2);  // s = 4 z
    q = {(m(0, 2) + m(2, 0)) / s, (m(1, 2) + m(2, 1)) / s, Real(0.25) * s, (m(1, 0) - m(0, 1)) / s};
  }
  return normalize(q);
}

}  // namespace impulse
