#pragma once
// Mat33: a 3x3 matrix of Real stored as three columns.

#include <impulse/math/vec3.h>

namespace impulse {

struct Mat33 {
  Vec3 c0, c1, c2;  // columns

  constexpr Mat33() = default;
  constexpr Mat33(const Vec3& col0, const Vec3& col1, const Vec3& col2)
      : c0(col0), c1(col1), c2(col2) {}

  static constexpr Mat33 zero() { return {}; }
  static constexpr Mat33 identity() { return diagonal({1, 1, 1}); }
  static constexpr Mat33 diagonal(const Vec3& d) { return {{d.x, 0, 0}, {0, d.y, 0}, {0, 0, d.z}}; }
  static constexpr Mat33 from_rows(const Vec3& r0, const Vec3& r1, const Vec3& r2) {
    return {{r0.x, r1.x, r2.x}, {r0.y, r1.y, r2.y}, {r0.z, r1.z, r2.z}};
  }
  /// The cross-product matrix: skew(a) * b == cross(a, b).
  static constexpr Mat33 skew(const Vec3& a) {
    return {{0, a.z, -a.y}, {-a.z, 0, a.x}, {a.y, -a.x, 0}};
  }
  /// a * b^T.
  static constexpr Mat33 outer(const Vec3& a, const Vec3& b) { return {a * b.x, a * b.y, a * b.z}; }

  constexpr const Vec3& col(int c) const { return c == 0 ? c0 : (c == 1 ? c1 : c2); }
  constexpr Vec3& col(int c) { return c == 0 ? c0 : (c == 1 ? c1 : c2); }
  constexpr Vec3 row(int r) const { return {c0[r], c1[r], c2[r]}; }
  constexpr Real operator()(int r, int c) const { return col(c)[r]; }
  constexpr Real& operator()(int r, int c) { return col(c)[r]; }

  constexpr Mat33& operator+=(const Mat33& o) {
    c0 += o.c0;
    c1 += o.c1;
    c2 += o.c2;
    return *this;
  }
  constexpr Mat33& operator-=(const Mat33& o) {
    c0 -= o.c0;
    c1 -= o.c1;
    c2 -= o.c2;
    return *this;
  }
  constexpr Mat33& operator*=(Real s) {
    c0 *= s;
    c1 *= s;
    c2 *= s;
    return *this;
  }

  friend constexpr Mat33 operator+(Mat33 a, const Mat33& b) { return a += b; }
  friend constexpr Mat33 operator-(Mat33 a, const Mat33& b) { return a -= b; }
  friend constexpr Mat33 operator*(Mat33 a, Real s) { return a *= s; }
  friend constexpr Mat33 operator*(Real s, Mat33 a) { return a *= s; }
  friend constexpr Vec3 operator*(const Mat33& m, const Vec3& v) {
    return m.c0 * v.x + m.c1 * v.y + m.c2 * v.z;
  }
  friend constexpr Mat33 operator*(const Mat33& a, const Mat33& b) {
    return {a * b.c0, a * b.c1, a * b.c2};
  }
  friend constexpr bool operator==(const Mat33&, const Mat33&) = default;
};

constexpr Mat33 transpose(const Mat33& m) {
  return {m.row(0), m.row(1), m.row(2)};
}
constexpr Real trace(const Mat33& m) {
  return m.c0.x + m.c1.y + m.c2.z;
}
constexpr Real determinant(const Mat33& m) {
  return dot(m.c0, cross(m.c1, m.c2));
}
/// m^T * v without forming the transpose.
constexpr Vec3 transpose_multiply(const Mat33& m, const Vec3& v) {
  return {dot(m.c0, v), dot(m.c1, v), dot(m.c2, v)};
}
inline bool is_finite(const Mat33& m) {
  return is_finite(m.c0) && is_finite(m.c1) && is_finite(m.c2);
}

/// The inverse, or the zero matrix when m is singular (how "immovable" is said for inertia).
constexpr Mat33 inverse(const Mat33& m) {
  const Vec3 r0 = cross(m.c1, m.c2);
  const Vec3 r1 = cross(m.c2, m.c0);
  const Vec3 r2 = cross(m.c0, m.c1);
  const Real det = dot(m.c0, r0);
  if (det == Real(0)) return Mat33::zero();
  return Mat33::from_rows(r0, r1, r2) * (Real(1) / det);
}

/// The inverse of a symmetric matrix, keeping the result exactly symmetric.
constexpr Mat33 inverse_symmetric(const Mat33& m) {
  Mat33 inv = inverse(m);
  const Real xy = Real(0.5) * (inv(0, 1) + inv(1, 0));
  const Real xz = Real(0.5) * (inv(0, 2) + inv(2, 0));
  const Real yz = Real(0.5) * (inv(1, 2) + inv(2, 1));
  inv(0, 1) = inv(1, 0) = xy;
  inv(0, 2) = inv(2, 0) = xz;
  inv(1, 2) = inv(2, 1) = yz;
  return inv;
}

}  // namespace impulse
