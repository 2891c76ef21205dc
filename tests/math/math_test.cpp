// Vec3, Mat33, Quat, Transform, AABB: the identities physics relies on.

#include <impulse/math.h>

#include <gtest/gtest.h>

#include <random>

namespace impulse {
namespace {

constexpr Real k_tol = Real(1e-5);

void expect_near(const Vec3& a, const Vec3& b, Real tol = k_tol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

void expect_near(const Mat33& a, const Mat33& b, Real tol = k_tol) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(a(r, c), b(r, c), tol) << "at (" << r << ", " << c << ")";
}

// The same rotation: q and -q both qualify.
void expect_same_rotation(const Quat& a, const Quat& b, Real tol = k_tol) {
  EXPECT_NEAR(std::abs(dot(a, b)), 1, tol);
}

class RandomValues {
 public:
  Vec3 vec(Real scale = 1) {
    return {dist_(rng_) * scale, dist_(rng_) * scale, dist_(rng_) * scale};
  }
  Quat quat() { return normalize(Quat{dist_(rng_), dist_(rng_), dist_(rng_), dist_(rng_)}); }

 private:
  std::mt19937 rng_{12345};
  std::uniform_real_distribution<Real> dist_{-1, 1};
};

TEST(Vec3, CrossIsOrthogonalAndAntiCommutative) {
  RandomValues rnd;
  for (int i = 0; i < 100; ++i) {
    const Vec3 a = rnd.vec(), b = rnd.vec();
    const Vec3 c = cross(a, b);
    EXPECT_NEAR(dot(c, a), 0, k_tol);
    EXPECT_NEAR(dot(c, b), 0, k_tol);
    expect_near(cross(b, a), -c);
  }
  EXPECT_EQ(cross(Vec3::unit_x(), Vec3::unit_y()), Vec3::unit_z());
}

TEST(Vec3, NormalizeGivesUnitLengthAndKeepsZero) {
  EXPECT_NEAR(length(normalize(Vec3{3, 4, 12})), 1, k_tol);
  expect_near(normalize(Vec3{0, 0, 2}), Vec3::unit_z());
  EXPECT_EQ(normalize(Vec3::zero()), Vec3::zero());
}

TEST(Vec3, OrthonormalBasisIsRightHandedForAnyNormal) {
  RandomValues rnd;
  std::vector<Vec3> normals = {
      Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z(), -Vec3::unit_z(), {0, 0, Real(-0.9999999)}};
  for (int i = 0; i < 200; ++i)
    normals.push_back(normalize(rnd.vec()));
  for (const Vec3& n : normals) {
    Vec3 t1, t2;
    orthonormal_basis(n, t1, t2);
    EXPECT_NEAR(length(t1), 1, k_tol);
    EXPECT_NEAR(length(t2), 1, k_tol);
    EXPECT_NEAR(dot(t1, n), 0, k_tol);
    EXPECT_NEAR(dot(t2, n), 0, k_tol);
    EXPECT_NEAR(dot(t1, t2), 0, k_tol);
    expect_near(cross(t1, t2), n);
  }
}

TEST(Mat33, SkewMatrixIsTheCrossProduct) {
  RandomValues rnd;
  for (int i = 0; i < 100; ++i) {
    const Vec3 a = rnd.vec(), b = rnd.vec();
    expect_near(Mat33::skew(a) * b, cross(a, b));
    expect_near(transpose(Mat33::skew(a)), Mat33::skew(-a));
  }
}

TEST(Mat33, InverseTimesMatrixIsIdentity) {
  RandomValues rnd;
  for (int i = 0; i < 100; ++i) {
    const Mat33 m{rnd.vec(), rnd.vec(), rnd.vec()};
    if (std::abs(determinant(m)) < Real(0.05)) continue;
    expect_near(inverse(m) * m, Mat33::identity(), Real(1e-4));
  }
  EXPECT_EQ(inverse(Mat33::zero()), Mat33::zero());
}

TEST(Mat33, ProductTransposeAndRowsAgree) {
  const Mat33 a = Mat33::from_rows({1, 2, 3}, {4, 5, 6}, {7, 8, 10});
  EXPECT_EQ(a(0, 1), 2);
  EXPECT_EQ(a(2, 2), 10);
  EXPECT_EQ(a.row(1), (Vec3{4, 5, 6}));
  EXPECT_EQ(a * Vec3(1, 0, 0), (Vec3{1, 4, 7}));
  EXPECT_EQ(transpose(a) * Vec3(1, 0, 0), (Vec3{1, 2, 3}));
  EXPECT_EQ(transpose_multiply(a, Vec3(0, 1, 0)), (Vec3{4, 5, 6}));
  EXPECT_EQ(determinant(a), -3);
  const Mat33 aa = a * a;
  EXPECT_EQ(aa(0, 0), 1 * 1 + 2 * 4 + 3 * 7);
  EXPECT_EQ(aa(1, 2), 4 * 3 + 5 * 6 + 6 * 10);
  EXPECT_EQ(Mat33::outer({1, 2, 3}, {4, 5, 6})(2, 0), 12);
}

TEST(Quat, RotatesLikeItsMatrixAndComposesByProduct) {
  RandomValues rnd;
  for (int i = 0; i < 100; ++i) {
    const Quat a = rnd.quat(), b = rnd.quat();
    const Vec3 v = rnd.vec(2);
    expect_near(rotate(a, v), to_matrix(a) * v);
    expect_near(rotate(a * b, v), rotate(a, rotate(b, v)));
    expect_near(inverse_rotate(a, rotate(a, v)), v);
    expect_near(rotate(inverse(a), v), inverse_rotate(a, v));
    EXPECT_NEAR(length(rotate(a, v)), length(v), k_tol);
    expect_near(to_matrix(a) * transpose(to_matrix(a)), Mat33::identity());
    EXPECT_NEAR(determinant(to_matrix(a)), 1, k_tol);
  }
}

TEST(Quat, QuarterTurnAboutZTakesXToY) {
  const Quat q = Quat::from_axis_angle(Vec3::unit_z(), k_pi / 2);
  expect_near(rotate(q, Vec3::unit_x()), Vec3::unit_y());
  expect_near(rotate(q, Vec3::unit_z()), Vec3::unit_z());
}

TEST(Quat, AxisAngleRoundTrips) {
  RandomValues rnd;
  for (int i = 0; i < 100; ++i) {
    const Vec3 axis = normalize(rnd.vec());
    const Real angle = Real(0.01) + Real(3.1) * Real(i) / 100;
    Vec3 axis_out;
    Real angle_out;
    to_axis_angle(Quat::from_axis_angle(axis, angle), axis_out, angle_out);
    EXPECT_NEAR(angle_out, angle, Real(1e-4));
    expect_near(axis_out, axis, Real(1e-4));
    expect_near(to_rotation_vector(Quat::from_rotation_vector(axis * angle)), axis * angle,
                Real(1e-4));
  }
  // The shorter way round: a turn of 3 pi / 2 is a turn of pi / 2 the other way.
  Vec3 axis;
  Real angle;
  to_axis_angle(Quat::from_axis_angle(Vec3::unit_y(), 3 * k_pi / 2), axis, angle);
  EXPECT_NEAR(angle, k_pi / 2, k_tol);
  expect_near(axis, -Vec3::unit_y());
}

TEST(Quat, MatrixRoundTripsThroughEveryPivot) {
  RandomValues rnd;
  std::vector<Quat> rotations = {Quat::identity(), Quat::from_axis_angle(Vec3::unit_x(), k_pi),
                                 Quat::from_axis_angle(Vec3::unit_y(), k_pi),
                                 Quat::from_axis_angle(Vec3::unit_z(), k_pi)};
  for (int i = 0; i < 200; ++i)
    rotations.push_back(rnd.quat());
  for (const Quat& q : rotations)
    expect_same_rotation(Quat::from_matrix(to_matrix(q)), q);
}

TEST(Quat, IntegrateMatchesAConstantRotation) {
  // dq/dt = 1/2 w * q: a steady spin of 2 rad/s about z for 1 s in 1000 steps turns by 2 rad.
  Quat q;
  const Vec3 w{0, 0, 2};
  for (int i = 0; i < 1000; ++i)
    q = integrate(q, w, Real(0.001));
  EXPECT_NEAR(length(q), 1, k_tol);
  expect_same_rotation(q, Quat::from_axis_angle(Vec3::unit_z(), 2), Real(1e-4));
}

TEST(Quat, NormalizeOfZeroIsIdentity) {
  EXPECT_EQ(normalize(Quat{0, 0, 0, 0}), Quat::identity());
  EXPECT_EQ(normalize(Quat{std::nanf(""), 0, 0, 1}), Quat::identity());
  EXPECT_EQ(normalize(Quat{k_infinity, 0, 0, 1}), Quat::identity());
}

TEST(Quat, NormalizeKeepsTheDirectionWhereTheSquaredLengthLeavesTheFloatRange) {
  // 3e25^2 overflows, 3e-25^2 underflows to 0: both are still the direction (0.6, 0, 0, 0.8).
  for (const Real scale : {Real(1e25), Real(1e-25), Real(1e-40)}) {
    const Quat q = normalize(Quat{3 * scale, 0, 0, 4 * scale});
    EXPECT_NEAR(q.x, 0.6, k_tol) << scale;
    EXPECT_NEAR(q.w, 0.8, k_tol) << scale;
  }
  // A step of 1e30 s at 1e4 rad/s: no longer a small turn, but still a unit rotation.
  const Quat q = integrate(Quat::identity(), {0, 1e4, 0}, Real(1e30));
  EXPECT_NEAR(length(q), 1, k_tol);
  EXPECT_NEAR(std::abs(q.y), 1, k_tol);
}

TEST(Transform, ApplyInverseUndoesApplyAndComposes) {
  RandomValues rnd;
  for (int i = 0; i < 50; ++i) {
    const Transform a{rnd.vec(5), rnd.quat()}, b{rnd.vec(5), rnd.quat()};
    const Vec3 p = rnd.vec(3);
    expect_near(apply_inverse(a, apply(a, p)), p, Real(1e-4));
    expect_near(apply(a * b, p), apply(a, apply(b, p)), Real(1e-4));
    expect_near(apply(inverse(a), p), apply_inverse(a, p), Real(1e-4));
  }
}

TEST(AABB, OverlapContainmentAndMerge) {
  const AABB a{{0, 0, 0}, {1, 1, 1}};
  const AABB b{{Real(0.5), Real(0.5), Real(0.5)}, {2, 2, 2}};
  const AABB c{{Real(1.5), 0, 0}, {2, 1, 1}};
  EXPECT_TRUE(a.overlaps(b));
  EXPECT_FALSE(a.overlaps(c));
  EXPECT_TRUE(merge(a, c).contains(
      AABB{{Real(0.5), Real(0.5), Real(0.5)}, {Real(1.8), Real(0.9), Real(0.9)}}));
  EXPECT_FALSE(merge(a, c).contains(b));
  EXPECT_TRUE(AABB{}.is_empty());
  EXPECT_EQ(merge(AABB{}, a), a);
  EXPECT_NEAR(a.half_area(), 3, k_tol);
  AABB d;
  d.include({1, 2, 3}).include({-1, 0, 5});
  EXPECT_EQ(d, (AABB{{-1, 0, 3}, {1, 2, 5}}));
}

TEST(AABB, TransformedBoxBoundsTheRotatedCorners) {
  const AABB local{{-1, Real(-0.5), Real(-0.25)}, {1, Real(0.5), Real(0.25)}};
  const Transform t{{1, 2, 3}, Quat::from_axis_angle(normalize(Vec3{1, 1, 0}), Real(0.7))};
  const AABB world = transform_aabb(t, local);
  AABB corners;
  for (int i = 0; i < 8; ++i) {
    const Vec3 corner{i & 1 ? local.upper.x : local.lower.x, i & 2 ? local.upper.y : local.lower.y,
                      i & 4 ? local.upper.z : local.lower.z};
    corners.include(apply(t, corner));
  }
  expect_near(world.lower, corners.lower);
  expect_near(world.upper, corners.upper);
}

// A box as wide as the float range allows (its width past the largest float) keeps finite
// bounds under a rigid motion: the zeros of an axis-aligned rotation times an overflowed half
// extent were NaN, and a ball fell through such a floor.
TEST(AABB, ABoxNearTheFloatRangeKeepsFiniteBounds) {
  const Real half = Real(3e38);
  const AABB local{{-half, Real(-0.5), -half}, {half, Real(0.5), half}};
  const AABB world = transform_aabb(Transform{{0, -1, 0}, Quat::identity()}, local);
  EXPECT_EQ(world.lower, (Vec3{-half, Real(-1.5), -half}));
  EXPECT_EQ(world.upper, (Vec3{half, Real(-0.5), half}));
  EXPECT_EQ(local.center(), Vec3::zero());
}

}  // namespace
}  // namespace impulse
