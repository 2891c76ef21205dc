#pragma once
// Vec3: a 3-vector of Real with the operations physics needs.

#include <impulse/math/real.h>

namespace impulse {

struct Vec3 {
  Real x = 0, y = 0, z = 0;

  constexpr Vec3() = default;
  constexpr Vec3(Real x_, Real y_, Real z_) : x(x_), y(y_), z(z_) {}

  static constexpr Vec3 zero() { return {0, 0, 0}; }
  static constexpr Vec3 unit_x() { return {1, 0, 0}; }
  static constexpr Vec3 unit_y() { return {0, 1, 0}; }
  static constexpr Vec3 unit_z() { return {0, 0, 1}; }
  static constexpr Vec3 splat(Real s) { return {s, s, s}; }

  constexpr Real operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  constexpr Real& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }

  constexpr Vec3 operator-() const { return {-x, -y, -z}; }
  constexpr Vec3& operator+=(const Vec3& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  constexpr Vec3& operator-=(const Vec3& o) {
    x -= o.x;
    y -= o.y;
    z -= o.z;
    return *this;
  }
  constexpr Vec3& operator*=(Real s) {
    x *= s;
    y *= s;
    z *= s;
    return *this;
  }
  constexpr Vec3& operator/=(Real s) {
    x /= s;
    y /= s;
    z /= s;
    return *this;
  }

  friend constexpr Vec3 operator+(Vec3 a, const Vec3& b) { return a += b; }
  friend constexpr Vec3 operator-(Vec3 a, const Vec3& b) { return a -= b; }
  friend constexpr Vec3 operator*(Vec3 a, Real s) { return a *= s; }
  friend constexpr Vec3 operator*(Real s, Vec3 a) { return a *= s; }
  friend constexpr Vec3 operator/(Vec3 a, Real s) { return a /= s; }
  friend constexpr bool operator==(const Vec3&, const Vec3&) = default;
};

constexpr Real dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
/// Component-wise product.
constexpr Vec3 hadamard(const Vec3& a, const Vec3& b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}
constexpr Vec3 min(const Vec3& a, const Vec3& b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
constexpr Vec3 max(const Vec3& a, const Vec3& b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
inline Vec3 abs(const Vec3& a) {
  return {std::abs(a.x), std::abs(a.y), std::abs(a.z)};
}
constexpr Real length_squared(const Vec3& a) {
  return dot(a, a);
}
inline Real length(const Vec3& a) {
  return std::sqrt(dot(a, a));
}
inline Real distance(const Vec3& a, const Vec3& b) {
  return length(a - b);
}
inline bool is_finite(const Vec3& a) {
  return is_finite(a.x) && is_finite(a.y) && is_finite(a.z);
}

/// a / |a|; the zero vector stays zero rather than turning into NaN.
/// a without its component along the unit vector n: its projection onto the plane normal to n.
constexpr Vec3 reject(const Vec3& a, const Vec3& n) {
  return a - dot(a, n) * n;
}

inline Vec3 normalize(const Vec3& a) {
  const Real len = length(a);
  return len > Real(0) ? a / len : Vec3::zero();
}

/// Two unit vectors t1, t2 with t1 x t2 = n for a unit normal n (Duff et al. 2017, branchless,
/// continuous except at n.z = -1 where it flips sign).
inline void orthonormal_basis(const Vec3& n, Vec3& t1, Vec3& t2) {
  const Real sign = std::copysign(Real(1), n.z);
  const Real a = Real(-1) / (sign + n.z);
  const Real b = n.x * n.y * a;
  t1 = {Real(1) + sign * n.x * n.x * a, sign * b, -sign * n.x};
  t2 = {b, sign + n.y * n.y * a, -n.y};
}

}  // namespace impulse
