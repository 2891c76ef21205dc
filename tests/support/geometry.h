#pragma once
// Small helpers shared by the geometry tests: poses written briefly, box corners and vector
// comparisons.

#include <impulse/math.h>

#include <gtest/gtest.h>

#include <vector>

namespace impulse::testing {

/// A pose at p, turned by q.
inline Transform at(const Vec3& p, const Quat& q = Quat::identity()) {
  return {p, q};
}

/// A turn of `degrees` about an axis (normalised here).
inline Quat about(const Vec3& axis, Real degrees) {
  return Quat::from_axis_angle(normalize(axis), degrees * k_pi / 180);
}

/// The eight corners of the box of half extents h about `centre`: corner v has +h.x where bit 0
/// of v is set, +h.y for bit 1, +h.z for bit 2.
inline std::vector<Vec3> box_corners(const Vec3& h, const Vec3& centre = Vec3::zero()) {
  std::vector<Vec3> corners;
  for (int v = 0; v < 8; ++v)
    corners.push_back(centre + Vec3{v & 1 ? h.x : -h.x, v & 2 ? h.y : -h.y, v & 4 ? h.z : -h.z});
  return corners;
}

inline void expect_vec_near(const Vec3& actual, const Vec3& expected, Real tol = Real(1e-4)) {
  EXPECT_NEAR(actual.x, expected.x, tol);
  EXPECT_NEAR(actual.y, expected.y, tol);
  EXPECT_NEAR(actual.z, expected.z, tol);
}

}  // namespace impulse::testing
