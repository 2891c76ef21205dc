#include "collision/shape_bounds.h"

#include <algorithm>
#include <cmath>

namespace impulse {

AABB bounds(const Sphere& shape, const Transform& pose) {
  return AABB::from_center_half_extents(pose.position, Vec3::splat(shape.radius));
}

AABB bounds(const Box& shape, const Transform& pose) {
  return transform_aabb(pose, {-shape.half_extents, shape.half_extents});
}

AABB bounds(const Capsule& shape, const Transform& pose) {
  const Vec3 axis = rotate(pose.orientation, {0, shape.half_height, 0});
  const AABB segment{min(pose.position - axis, pose.position + axis),
                     max(pose.position - axis, pose.position + axis)};
  return segment.expanded(shape.radius);
}

AABB bounds(const PolyhedronView& shape, const Transform& pose) {
  AABB box;
  for (const Vec3& v : shape.vertices)
    box.include(apply(pose, v));
  return box;
}

AABB bounds(const Plane& shape, const Transform& pose) {
  // The linear programme max x_i over dot(n, x) <= c, |x_j| <= L: the other axes give most room
  // at x_j = -L sign(n_j), so n_i x_i <= c + L (|n_j| + |n_k|). n need not be unit.
  constexpr Real l = k_plane_bounds_extent;
  const Vec3 n = rotate(pose.orientation, shape.normal);
  const Real c = shape.offset + dot(n, pose.position);
  const Vec3 abs_n = abs(n);
  AABB box{Vec3::splat(-l), Vec3::splat(l)};
  for (int i = 0; i < 3; ++i) {
    if (n[i] == 0) continue;
    const Real room = c + l * (abs_n[(i + 1) % 3] + abs_n[(i + 2) % 3]);
    // Clamped: a tiny n_i overflows to +-inf, and a plane below the cube leaves a flat box.
    const Real limit = std::clamp(room / n[i], -l, l);
    if (n[i] > 0) {
      box.upper[i] = limit;
    } else {
      box.lower[i] = limit;
    }
  }
  return box;
}

}  // namespace impulse
