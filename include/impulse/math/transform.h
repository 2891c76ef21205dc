#pragma once
// Transform: a rigid motion, rotation then translation (x -> q x + p).

#include <impulse/math/quat.h>

namespace impulse {

struct Transform {
  Vec3 position;
  Quat orientation;

  static constexpr Transform identity() { return {}; }
  friend constexpr bool operator==(const Transform&, const Transform&) = default;
};

/// A local point taken to the parent frame.
constexpr Vec3 apply(const Transform& t, const Vec3& p) {
  return rotate(t.orientation, p) + t.position;
}
/// A parent-frame point taken to the local frame.
constexpr Vec3 apply_inverse(const Transform& t, const Vec3& p) {
  return inverse_rotate(t.orientation, p - t.position);
}
/// a * b: apply b, then a.
constexpr Transform operator*(const Transform& a, const Transform& b) {
  return {apply(a, b.position), a.orientation * b.orientation};
}
constexpr Transform inverse(const Transform& t) {
  const Quat q = conjugate(t.orientation);
  return {rotate(q, -t.position), q};
}

}  // namespace impulse
