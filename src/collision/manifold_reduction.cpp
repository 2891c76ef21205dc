#include "collision/manifold_reduction.h"

#include <cmath>
#include <cstddef>

namespace impulse {

void reduce_manifold(std::span<const ContactPoint> candidates, const Vec3& normal, Manifold& out) {
  out.normal = normal;
  out.count = 0;
  const std::size_t n = candidates.size();
  if (n <= std::size_t(Manifold::k_max_points)) {
    for (const ContactPoint& c : candidates)
      out.add(c);
    return;
  }

  // The deepest point first: it carries the most of the normal impulse and must stay.
  std::size_t i0 = 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (candidates[k].depth > candidates[i0].depth) i0 = k;
  }
  const Vec3 p0 = candidates[i0].position;
  out.add(candidates[i0]);

  // Then the point farthest from it in the contact plane: the longest lever arm.
  std::size_t i1 = n;
  Real best = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Vec3 r = candidates[k].position - p0;
    const Real d2 = length_squared(r - dot(r, normal) * normal);
    if (d2 > best) {
      best = d2;
      i1 = k;
    }
  }
  if (i1 == n) return;  // all candidates coincide
  const Vec3 p1 = candidates[i1].position;
  out.add(candidates[i1]);

  // Then the third corner of the largest triangle (twice its signed area about the normal).
  std::size_t i2 = n;
  Real area2 = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Real a = dot(cross(p1 - p0, candidates[k].position - p0), normal);
    if (std::abs(a) > std::abs(area2)) {
      area2 = a;
      i2 = k;
    }
  }
  if (i2 == n) return;  // collinear: two points span all the support there is
  const Vec3 p2 = candidates[i2].position;
  out.add(candidates[i2]);

  // Last the point adding the most area to that triangle: it lies outside one of its edges, and
  // the triangle it makes with that edge is the area gained by the quadrilateral.
  const Real orient = area2 > 0 ? Real(1) : Real(-1);
  const Vec3 corners[3] = {p0, p1, p2};
  std::size_t i3 = n;
  Real gain = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Vec3 q = candidates[k].position;
    for (int e = 0; e < 3; ++e) {
      const Vec3& s = corners[e];
      const Vec3& t = corners[(e + 1) % 3];
      const Real g = -orient * dot(cross(t - s, q - s), normal);
      if (g > gain) {
        gain = g;
        i3 = k;
      }
    }
  }
  if (i3 != n) out.add(candidates[i3]);
}

}  // namespace impulse
