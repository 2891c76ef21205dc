#pragma once
// Small helpers shared by the geometry tests: poses written briefly and vector comparisons.

#include <impulse/math.h>

#include <gtest/gtest.h>

namespace impulse::testing {

/// A pose at p, turned by q.
inline Transform at(const Vec3& p, const Quat& q = Quat::identity()) {
  return {p, q};
}

/// A turn of `degrees` about an axis (normalised here).
inline Quat about(const Vec3& axis, Real degrees) {
  return Quat::from_axis_angle(normalize(axis), degrees * k_pi / 180);
}

inline void expect_vec_near(const Vec3& actual, const Vec3& expected, Real tol = Real(1e-4)) {
  EXPECT_NEAR(actual.x, expected.x, tol);
  EXPECT_NEAR(actual.y, expected.y, tol);
  EXPECT_NEAR(actual.z, expected.z, tol);
}

}  // namespace impulse::testing
