#pragma once
// Small double-precision value types for the engine-neutral scenes and the quality measures:
// each engine converts from and to its own types, so no engine's math leaks into another's.

#include <cmath>

namespace peers {

struct V3 {
  double x = 0, y = 0, z = 0;
};
/// A rotation quaternion [x, y, z, w] (w the scalar part).
struct Q4 {
  double x = 0, y = 0, z = 0, w = 1;
};
struct Pose {
  V3 position;
  Q4 orientation;
};

constexpr V3 operator+(const V3& a, const V3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
constexpr V3 operator-(const V3& a, const V3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
constexpr V3 operator*(const V3& v, double s) {
  return {v.x * s, v.y * s, v.z * s};
}
constexpr double dot(const V3& a, const V3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
constexpr V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(const V3& v) {
  return std::sqrt(dot(v, v));
}

/// A unit vector perpendicular to the unit vector v.
inline V3 perpendicular(const V3& v) {
  const V3 p = cross(v, std::abs(v.x) < 0.6 ? V3{1, 0, 0} : V3{0, 1, 0});
  return p * (1 / length(p));
}

/// The rotation b, then a: (a * b) v = a (b v).
constexpr Q4 operator*(const Q4& a, const Q4& b) {
  return {
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
constexpr Q4 conjugate(const Q4& q) {
  return {-q.x, -q.y, -q.z, q.w};
}
inline Q4 axis_angle(const V3& unit_axis, double angle) {
  const double s = std::sin(angle / 2);
  return {unit_axis.x * s, unit_axis.y * s, unit_axis.z * s, std::cos(angle / 2)};
}
/// v rotated by the unit quaternion q.
constexpr V3 rotate(const Q4& q, const V3& v) {
  const V3 u{q.x, q.y, q.z};
  const V3 t = cross(u, v) * 2;
  return v + t * q.w + cross(u, t);
}
constexpr V3 inverse_rotate(const Q4& q, const V3& v) {
  return rotate(conjugate(q), v);
}
/// A body-frame point in the world.
constexpr V3 to_world(const Pose& p, const V3& local) {
  return rotate(p.orientation, local) + p.position;
}
/// A world point in the body frame.
constexpr V3 to_local(const Pose& p, const V3& world) {
  return inverse_rotate(p.orientation, world - p.position);
}

}  // namespace peers
