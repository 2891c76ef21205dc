#pragma once
// AABB: an axis-aligned bounding box given by its corners.

#include <impulse/math/transform.h>

namespace impulse {

struct AABB {
  Vec3 lower = Vec3::splat(k_infinity);  // the empty box by default: union-neutral
  Vec3 upper = Vec3::splat(-k_infinity);

  static constexpr AABB from_center_half_extents(const Vec3& c, const Vec3& h) {
    return {c - h, c + h};
  }

  constexpr bool is_empty() const {
    return lower.x > upper.x || lower.y > upper.y || lower.z > upper.z;
  }
  // Halved before they are summed: a box near the float range (half extents past 1.7e38, which
  // the scene format takes) would otherwise overflow to inf, and a rotation's zeros make it NaN.
  constexpr Vec3 center() const { return Real(0.5) * lower + Real(0.5) * upper; }
  constexpr Vec3 half_extents() const { return Real(0.5) * upper - Real(0.5) * lower; }
  /// Half the surface area of the box, the cost used by tree builders. In double: a box wider than
  /// 1.8e19 m (a body flung far, a huge shape) would give inf in float, and costs that subtract
  /// areas would be NaN and steer a tree's descent at random.
  constexpr double half_area() const {
    const double dx = double(upper.x) - lower.x, dy = double(upper.y) - lower.y,
                 dz = double(upper.z) - lower.z;
    return dx * dy + dy * dz + dz * dx;
  }
  constexpr bool contains(const Vec3& p) const {
    return p.x >= lower.x && p.y >= lower.y && p.z >= lower.z && p.x <= upper.x && p.y <= upper.y &&
           p.z <= upper.z;
  }
  constexpr bool contains(const AABB& b) const { return contains(b.lower) && contains(b.upper); }
  constexpr bool overlaps(const AABB& b) const {
    return lower.x <= b.upper.x && upper.x >= b.lower.x && lower.y <= b.upper.y &&
           upper.y >= b.lower.y && lower.z <= b.upper.z && upper.z >= b.lower.z;
  }
  constexpr AABB expanded(Real margin) const {
    return {lower - Vec3::splat(margin), upper + Vec3::splat(margin)};
  }
  constexpr AABB& include(const Vec3& p) {
    lower = min(lower, p);
    upper = max(upper, p);
    return *this;
  }
  friend constexpr AABB merge(const AABB& a, const AABB& b) {
    return {min(a.lower, b.lower), max(a.upper, b.upper)};
  }
  friend constexpr bool operator==(const AABB&, const AABB&) = default;
};

/// The box around a local box after a rigid motion (Arvo's method with |R|).
inline AABB transform_aabb(const Transform& t, const AABB& local) {
  const Mat33 r = to_matrix(t.orientation);
  const Mat33 abs_r{abs(r.c0), abs(r.c1), abs(r.c2)};
  const Vec3 c = apply(t, local.center());
  const Vec3 h = abs_r * local.half_extents();
  return {c - h, c + h};
}

}  // namespace impulse
