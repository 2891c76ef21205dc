#include "collision/primitives.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-4);
constexpr Real k_margin = Real(0.1);

void expect_unit_finite_normal(const Manifold& m) {
  EXPECT_TRUE(is_finite(m.normal));
  EXPECT_NEAR(length(m.normal), 1, k_tol);
}

FeatureId id(FeatureType ta, int ia, FeatureType tb, int ib) {
  return {std::uint8_t(ta), std::uint8_t(ia), std::uint8_t(tb), std::uint8_t(ib)};
}

constexpr FeatureType k_vertex = FeatureType::vertex;
constexpr FeatureType k_edge = FeatureType::edge;
constexpr FeatureType k_face = FeatureType::face;

// Capsule along local y turned to lie along world z.
const Quat k_along_z = Quat::from_axis_angle(Vec3::unit_x(), k_pi / 2);

// --- sphere-sphere --------------------------------------------------------------------------

Manifold sphere_sphere(Real ra, const Vec3& pa, Real rb, const Vec3& pb, bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_sphere_sphere(Sphere{ra}, at(pa), Sphere{rb}, at(pb), k_margin, m);
  if (hit) *hit = h;
  return m;
}

TEST(SphereSphere, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  const Manifold m = sphere_sphere(0.5, {0, 0, 0}, 0.5, {1.2, 0, 0}, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(m.count, 0);
}

TEST(SphereSphere, WithinMarginGivesSpeculativePointWithNegativeDepth) {
  bool hit = false;
  const Manifold m = sphere_sphere(0.5, {0, 0, 0}, 0.5, {1.05, 0, 0}, &hit);
  EXPECT_TRUE(hit);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, -0.05, k_tol);
  expect_vec_near(m.normal, {1, 0, 0});
  expect_vec_near(m.points[0].position, {0.55, 0, 0});
}

TEST(SphereSphere, TouchingGivesZeroDepth) {
  const Manifold m = sphere_sphere(0.5, {0, 0, 0}, 0.5, {0, 1, 0});
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0, k_tol);
  expect_vec_near(m.normal, {0, 1, 0});
}

TEST(SphereSphere, ShallowOverlapGivesExactDepthAndPointOnB) {
  const Manifold m = sphere_sphere(0.5, {0, 0, 0}, 0.5, {0, 0, 0.99});
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.01, k_tol);
  expect_vec_near(m.points[0].position, {0, 0, 0.49});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 0));
}

TEST(SphereSphere, DeepOverlapGivesExactDepth) {
  const Manifold m = sphere_sphere(0.5, {1, 1, 1}, 1.0, {1.3, 1, 1});
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 1.2, k_tol);
  expect_vec_near(m.normal, {1, 0, 0});
}

TEST(SphereSphere, NormalPointsFromAToBAndFlipsWhenSwapped) {
  const Vec3 pa{0.1, 0.2, 0.3}, pb{0.5, 0.6, 0.1};
  const Manifold ab = sphere_sphere(0.4, pa, 0.3, pb);
  const Manifold ba = sphere_sphere(0.3, pb, 0.4, pa);
  ASSERT_EQ(ab.count, 1);
  ASSERT_EQ(ba.count, 1);
  expect_vec_near(ab.normal, normalize(pb - pa));
  expect_vec_near(ba.normal, -ab.normal);
  EXPECT_NEAR(ab.points[0].depth, ba.points[0].depth, k_tol);
}

TEST(SphereSphere, CoincidentCentresGiveFiniteNormalAndFullDepth) {
  const Manifold m = sphere_sphere(0.5, {1, 2, 3}, 0.25, {1, 2, 3});
  ASSERT_EQ(m.count, 1);
  expect_unit_finite_normal(m);
  EXPECT_NEAR(m.points[0].depth, 0.75, k_tol);
  EXPECT_TRUE(is_finite(m.points[0].position));
}

// --- sphere-capsule -------------------------------------------------------------------------

// A sphere of radius 0.5 against a capsule of radius 0.25 and half height 0.5.
Manifold sphere_capsule(const Vec3& sphere, const Transform& capsule, bool* hit = nullptr) {
  Manifold m;
  const bool h =
      collide_sphere_capsule(Sphere{0.5}, at(sphere), Capsule{0.25, 0.5}, capsule, k_margin, m);
  if (hit) *hit = h;
  return m;
}

TEST(SphereCapsule, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  const Manifold m = sphere_capsule({0.9, 0, 0}, at({0, 0, 0}), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(m.count, 0);
}

TEST(SphereCapsule, WithinMarginGivesSpeculativePointOnTheSide) {
  const Manifold m = sphere_capsule({0.8, 0.3, 0}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, -0.05, k_tol);
  expect_vec_near(m.normal, {-1, 0, 0});
  expect_vec_near(m.points[0].position, {0.25, 0.3, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_edge, 0));
}

TEST(SphereCapsule, TouchingGivesZeroDepth) {
  const Manifold m = sphere_capsule({0, 0, -0.75}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0, k_tol);
  expect_vec_near(m.normal, {0, 0, 1});
}

TEST(SphereCapsule, ShallowOverlapPastTheTopEndUsesVertexOne) {
  const Manifold m = sphere_capsule({0, 1.2, 0}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_vec_near(m.points[0].position, {0, 0.75, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 1));
}

TEST(SphereCapsule, DeepOverlapPastTheBottomEndUsesVertexZero) {
  const Manifold m = sphere_capsule({0, -0.8, 0}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.45, k_tol);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 0));
}

TEST(SphereCapsule, NormalFlipsWhenSphereMovesToTheOtherSide) {
  const Manifold left = sphere_capsule({-0.7, 0, 0}, at({0, 0, 0}));
  const Manifold right = sphere_capsule({0.7, 0, 0}, at({0, 0, 0}));
  ASSERT_EQ(left.count, 1);
  ASSERT_EQ(right.count, 1);
  expect_vec_near(left.normal, {1, 0, 0});
  expect_vec_near(right.normal, {-1, 0, 0});
}

TEST(SphereCapsule, CapsuleAt45DegreesGivesPerpendicularNormal) {
  const Vec3 side = normalize(Vec3{1, 1, 0});  // perpendicular to the turned segment
  const Manifold m =
      sphere_capsule(Vec3{2, 3, 0} + side * Real(0.7), at({2, 3, 0}, about({0, 0, 1}, 45)));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.normal, -side);
  expect_vec_near(m.points[0].position, Vec3{2, 3, 0} + side * Real(0.25));
}

TEST(SphereCapsule, CentreOnTheSegmentGivesFiniteNormalAndFullDepth) {
  const Manifold m = sphere_capsule({0, 0.2, 0}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  expect_unit_finite_normal(m);
  EXPECT_NEAR(dot(m.normal, Vec3::unit_y()), 0, k_tol);
  EXPECT_NEAR(m.points[0].depth, 0.75, k_tol);
}

// --- capsule-capsule ------------------------------------------------------------------------

// Two capsules of radius 0.25 and half height 0.5.
Manifold capsule_capsule(const Transform& ta, const Transform& tb, bool* hit = nullptr) {
  Manifold m;
  const Capsule c{0.25, 0.5};
  const bool h = collide_capsule_capsule(c, ta, c, tb, k_margin, m);
  if (hit) *hit = h;
  return m;
}

TEST(CapsuleCapsule, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0.65, 0, 0}, k_along_z), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(m.count, 0);
}

TEST(CapsuleCapsule, CrossedWithinMarginGiveSpeculativePoint) {
  bool hit = false;
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0.55, 0, 0}, k_along_z), &hit);
  EXPECT_TRUE(hit);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, -0.05, k_tol);
  expect_vec_near(m.normal, {1, 0, 0});
  expect_vec_near(m.points[0].position, {0.3, 0, 0});
  EXPECT_EQ(m.points[0].id, id(k_edge, 0, k_edge, 0));
}

TEST(CapsuleCapsule, CrossedTouchingGiveZeroDepth) {
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0.5, 0, 0}, k_along_z));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0, k_tol);
}

TEST(CapsuleCapsule, CrossedShallowAndDeepOverlapGiveExactDepth) {
  const Manifold shallow = capsule_capsule(at({0, 0, 0}), at({0.49, 0, 0}, k_along_z));
  const Manifold deep = capsule_capsule(at({0, 0, 0}), at({0.2, 0.1, 0}, k_along_z));
  ASSERT_EQ(shallow.count, 1);
  ASSERT_EQ(deep.count, 1);
  EXPECT_NEAR(shallow.points[0].depth, 0.01, k_tol);
  EXPECT_NEAR(deep.points[0].depth, 0.3, k_tol);
  expect_vec_near(deep.normal, {1, 0, 0});
  expect_vec_near(deep.points[0].position, {-0.05, 0.1, 0});
}

TEST(CapsuleCapsule, NormalPointsFromAToBAndFlipsWhenSwapped) {
  const Transform ta = at({0, 0, 0}, about({1, 1, 0}, 30));
  const Transform tb = at({0.3, 0.2, 0.1}, about({0, 0, 1}, 70));
  const Manifold ab = capsule_capsule(ta, tb);
  const Manifold ba = capsule_capsule(tb, ta);
  ASSERT_GE(ab.count, 1);
  ASSERT_EQ(ba.count, ab.count);
  EXPECT_GT(dot(ab.normal, tb.position - ta.position), 0);
  expect_vec_near(ba.normal, -ab.normal);
  for (std::size_t k = 0; k < std::size_t(ab.count); ++k) {
    EXPECT_NEAR(ab.points[k].depth, ba.points[k].depth, k_tol);
    EXPECT_EQ(ab.points[k].id, ba.points[k].id.flipped());
  }
}

TEST(CapsuleCapsule, CapsuleAt45DegreesStillMeetsAtTheClosestSegmentPoints) {
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0.45, 0, 0}, about({1, 0, 0}, 45)));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.normal, {1, 0, 0});
  expect_vec_near(m.points[0].position, {0.2, 0, 0});
}

TEST(CapsuleCapsule, EndToEndContactUsesTheEndVertices) {
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0, 1.4, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.1, k_tol);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_vec_near(m.points[0].position, {0, 0.65, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 1, k_vertex, 0));
}

TEST(CapsuleCapsule, ParallelOverlappingCapsulesGiveTwoPointsAtOverlapEnds) {
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0.45, 0.3, 0}));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {1, 0, 0});
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  EXPECT_NEAR(m.points[1].depth, 0.05, k_tol);
  expect_vec_near(m.points[0].position, {0.2, -0.2, 0});
  expect_vec_near(m.points[1].position, {0.2, 0.5, 0});
  EXPECT_EQ(m.points[0].id, id(k_edge, 0, k_vertex, 0));
  EXPECT_EQ(m.points[1].id, id(k_vertex, 1, k_edge, 0));
}

TEST(CapsuleCapsule, ParallelRotatedCapsulesGiveTwoPoints) {
  const Quat q = about({0, 0, 1}, 45);
  const Vec3 side = rotate(q, Vec3::unit_x());
  const Manifold m = capsule_capsule(at({0, 0, 0}, q), at(side * Real(0.4), q));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, side);
  EXPECT_NEAR(m.points[0].depth, 0.1, k_tol);
  EXPECT_NEAR(m.points[1].depth, 0.1, k_tol);
  EXPECT_NE(m.points[0].id, m.points[1].id);
}

// b leans away from a, touching it 0.01 deep with its low end: its core, over a's extent, reaches
// a's top end 0.045 further out, a speculative point 0.035 out (a's core clips b's there). Seen
// from either side: a slanted capsule striking another must show its far end before its turn
// swings that end in.
TEST(CapsuleCapsule, SlantedAlongAnotherGivesItsFarEndAsASpeculativePoint) {
  const Real lean = std::atan(Real(0.05));
  const Vec3 up{std::sin(lean), std::cos(lean), 0};
  const Transform ta = at({0, 0, 0});
  const Transform tb =
      at(Vec3{0.49, -0.4, 0} + up * Real(0.5), about({0, 0, 1}, -lean * 180 / k_pi));
  const Manifold ab = capsule_capsule(ta, tb);
  ASSERT_EQ(ab.count, 2);
  expect_vec_near(ab.normal, {1, 0, 0});
  EXPECT_NEAR(ab.points[0].depth, 0.01, k_tol);
  expect_vec_near(ab.points[0].position, {0.24, -0.4, 0});
  EXPECT_EQ(ab.points[0].id, id(k_edge, 0, k_vertex, 0));
  EXPECT_NEAR(ab.points[1].depth, -0.035, k_tol);
  expect_vec_near(ab.points[1].position, {0.285, 0.5, 0});
  EXPECT_EQ(ab.points[1].id, id(k_vertex, 1, k_edge, 0));

  const Manifold ba = capsule_capsule(tb, ta);
  ASSERT_EQ(ba.count, 2);
  expect_vec_near(ba.normal, {-1, 0, 0});
  EXPECT_NEAR(ba.points[1].depth, -0.035, k_tol);
  expect_vec_near(ba.points[1].position, {0.25, 0.5, 0});
  EXPECT_EQ(ba.points[1].id, id(k_edge, 0, k_vertex, 1));
}

// b lies across a's top turned 30 degrees: its ends lie 0.25 m to the sides of a's core, where a
// push along the normal would be the wrong push, so it keeps its one point.
TEST(CapsuleCapsule, ACapsuleTurnedAcrossAnotherKeepsItsOnePoint) {
  const Transform ta = at({0, 0, 0}, about({0, 0, 1}, 90));
  const Transform tb = at({0, 0.49, 0}, about({0, 1, 0}, 30) * about({0, 0, 1}, 90));
  const Manifold m = capsule_capsule(ta, tb);
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_NEAR(m.points[0].depth, 0.01, k_tol);
}

TEST(CapsuleCapsule, IntersectingSegmentsGiveFiniteNormalAndFullDepth) {
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0, 0, 0}, k_along_z));
  ASSERT_EQ(m.count, 1);
  expect_unit_finite_normal(m);
  EXPECT_NEAR(m.points[0].depth, 0.5, k_tol);
}

TEST(CapsuleCapsule, CoaxialOverlappingSegmentsGiveFiniteNormal) {
  const Manifold m = capsule_capsule(at({0, 0, 0}), at({0, 0.2, 0}));
  ASSERT_GE(m.count, 1);
  expect_unit_finite_normal(m);
  for (int k = 0; k < m.count; ++k) {
    EXPECT_NEAR(m.points[std::size_t(k)].depth, 0.5, k_tol);
    EXPECT_TRUE(is_finite(m.points[std::size_t(k)].position));
  }
}

// --- sphere-box -----------------------------------------------------------------------------

// A sphere of radius 0.25 against a unit cube.
Manifold sphere_box(const Vec3& sphere, const Transform& box, bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_sphere_box(Sphere{0.25}, at(sphere), Box{}, box, k_margin, m);
  if (hit) *hit = h;
  return m;
}

TEST(SphereBox, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  const Manifold m = sphere_box({0.9, 0, 0}, at({0, 0, 0}), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(m.count, 0);
}

TEST(SphereBox, WithinMarginGivesSpeculativePointOnTheFace) {
  const Manifold m = sphere_box({0.8, 0.1, 0.2}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, -0.05, k_tol);
  expect_vec_near(m.normal, {-1, 0, 0});
  expect_vec_near(m.points[0].position, {0.5, 0.1, 0.2});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 0));
}

TEST(SphereBox, TouchingGivesZeroDepth) {
  const Manifold m = sphere_box({0, -0.75, 0}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0, k_tol);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 3));
}

TEST(SphereBox, ShallowAndDeepOverlapGiveExactDepth) {
  const Manifold shallow = sphere_box({0, 0, 0.74}, at({0, 0, 0}));
  const Manifold deep = sphere_box({0, 0, -0.55}, at({0, 0, 0}));
  ASSERT_EQ(shallow.count, 1);
  ASSERT_EQ(deep.count, 1);
  EXPECT_NEAR(shallow.points[0].depth, 0.01, k_tol);
  EXPECT_NEAR(deep.points[0].depth, 0.2, k_tol);
  expect_vec_near(shallow.normal, {0, 0, -1});
  expect_vec_near(deep.normal, {0, 0, 1});
}

TEST(SphereBox, NormalFlipsWhenSphereMovesToTheOtherSide) {
  const Manifold right = sphere_box({0.7, 0, 0}, at({0, 0, 0}));
  const Manifold left = sphere_box({-0.7, 0, 0}, at({0, 0, 0}));
  ASSERT_EQ(right.count, 1);
  ASSERT_EQ(left.count, 1);
  expect_vec_near(right.normal, {-1, 0, 0});
  expect_vec_near(left.normal, {1, 0, 0});
  EXPECT_EQ(left.points[0].id, id(k_vertex, 0, k_face, 1));
}

TEST(SphereBox, SphereAtCornerGivesNormalAlongTheDiagonal) {
  const Manifold m = sphere_box({0.6, 0.6, 0.6}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, -normalize(Vec3{1, 1, 1}));
  EXPECT_NEAR(m.points[0].depth, 0.25 - 0.1 * std::sqrt(3.0), k_tol);
  expect_vec_near(m.points[0].position, {0.5, 0.5, 0.5});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 7));
}

TEST(SphereBox, SphereAtEdgeUsesBoxEdgeNumbering) {
  // Edge along z on the +x, +y side: 4 * 2 + 1 + 2 * 1.
  const Manifold m = sphere_box({0.6, 0.6, 0.1}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, -normalize(Vec3{1, 1, 0}));
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_edge, 11));
}

TEST(SphereBox, BoxAt45DegreesMeetsTheSphereAtItsEdge) {
  // Turned 45 degrees about z, the edge through local (0.5, -0.5, z) points along world +x.
  const Manifold m =
      sphere_box({0.5f * std::sqrt(2.0f) + 0.1f, 0, 0.2f}, at({0, 0, 0}, about({0, 0, 1}, 45)));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.15, k_tol);
  expect_vec_near(m.normal, {-1, 0, 0});
  expect_vec_near(m.points[0].position, {0.5f * std::sqrt(2.0f), 0, 0.2f});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_edge, 9));
}

TEST(SphereBox, RotatedTranslatedBoxFaceContact) {
  const Transform tb = at({1, 2, 3}, about({0, 1, 0}, 30));
  const Vec3 face_normal = rotate(tb.orientation, Vec3::unit_x());
  const Manifold m = sphere_box(tb.position + face_normal * Real(0.7), tb);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.normal, -face_normal);
  expect_vec_near(m.points[0].position, tb.position + face_normal * Real(0.5));
}

TEST(SphereBox, CentreInsideBoxPushesOutThroughNearestFace) {
  const Manifold m = sphere_box({0.3, 0.1, 0}, at({0, 0, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.45, k_tol);
  expect_vec_near(m.normal, {-1, 0, 0});
  expect_vec_near(m.points[0].position, {0.5, 0.1, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 0));
}

TEST(SphereBox, CentreAtBoxCentreGivesFiniteNormalAndFullDepth) {
  const Manifold m = sphere_box({1, 1, 1}, at({1, 1, 1}));
  ASSERT_EQ(m.count, 1);
  expect_unit_finite_normal(m);
  EXPECT_NEAR(m.points[0].depth, 0.75, k_tol);
  EXPECT_TRUE(is_finite(m.points[0].position));
}

// --- capsule-box ----------------------------------------------------------------------------

// A capsule of radius 0.25 against a unit cube at the origin unless told otherwise.
Manifold capsule_box(Real half_height, const Transform& capsule,
                     const Transform& box = at({0, 0, 0}), bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_capsule_box(Capsule{0.25, half_height}, capsule, Box{}, box, k_margin, m);
  if (hit) *hit = h;
  return m;
}

// Capsule along local y turned to lie along world x.
const Quat k_along_x = Quat::from_axis_angle(Vec3::unit_z(), k_pi / 2);

bool has_point(const Manifold& m, const Vec3& p, Real depth, const FeatureId& fid) {
  for (int k = 0; k < m.count; ++k) {
    const ContactPoint& c = m.points[std::size_t(k)];
    if (distance(c.position, p) < k_tol && std::abs(c.depth - depth) < k_tol && c.id == fid) {
      return true;
    }
  }
  return false;
}

TEST(CapsuleBox, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  const Manifold m = capsule_box(0.4, at({0, 0.9, 0}, k_along_x), at({0, 0, 0}), &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(m.count, 0);
}

TEST(CapsuleBox, LyingWithinMarginGivesTwoSpeculativePointsOnTheFace) {
  const Manifold m = capsule_box(0.4, at({0, 0.8, 0}, k_along_x));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, -1, 0});
  EXPECT_TRUE(has_point(m, {0.4, 0.5, 0}, -0.05, id(k_vertex, 0, k_face, 2)));
  EXPECT_TRUE(has_point(m, {-0.4, 0.5, 0}, -0.05, id(k_vertex, 1, k_face, 2)));
}

TEST(CapsuleBox, LyingTouchingGivesZeroDepth) {
  const Manifold m = capsule_box(0.4, at({0, 0.75, 0}, k_along_x));
  ASSERT_EQ(m.count, 2);
  EXPECT_NEAR(m.points[0].depth, 0, k_tol);
  EXPECT_NEAR(m.points[1].depth, 0, k_tol);
}

TEST(CapsuleBox, LyingShallowAndDeepOverlapGiveExactDepth) {
  const Manifold shallow = capsule_box(0.4, at({0, 0.74, 0}, k_along_x));
  const Manifold deep = capsule_box(0.4, at({0, 0.4, 0}, k_along_x));
  ASSERT_EQ(shallow.count, 2);
  ASSERT_EQ(deep.count, 2);
  EXPECT_NEAR(shallow.points[0].depth, 0.01, k_tol);
  EXPECT_NEAR(shallow.points[1].depth, 0.01, k_tol);
  expect_vec_near(deep.normal, {0, -1, 0});
  EXPECT_TRUE(has_point(deep, {0.4, 0.5, 0}, 0.35, id(k_vertex, 0, k_face, 2)));
  EXPECT_TRUE(has_point(deep, {-0.4, 0.5, 0}, 0.35, id(k_vertex, 1, k_face, 2)));
}

TEST(CapsuleBox, LongCapsuleIsClippedToTheFaceEdges) {
  const Manifold m = capsule_box(1.0, at({0, 0.7, 0}, k_along_x));
  ASSERT_EQ(m.count, 2);
  // Face +y edges along z: on the +x side 4 * 2 + 1 + 2, on the -x side 4 * 2 + 0 + 2.
  EXPECT_TRUE(has_point(m, {0.5, 0.5, 0}, 0.05, id(k_edge, 0, k_edge, 11)));
  EXPECT_TRUE(has_point(m, {-0.5, 0.5, 0}, 0.05, id(k_edge, 0, k_edge, 10)));
}

TEST(CapsuleBox, NormalFlipsWhenCapsuleMovesBelowTheBox) {
  const Manifold m = capsule_box(0.4, at({0, -0.7, 0}, k_along_x));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_EQ(m.points[0].id.index_b, 3);
}

TEST(CapsuleBox, StandingCapsuleTouchesWithItsLowerEnd) {
  const Manifold m = capsule_box(0.5, at({0, 1.2, 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_vec_near(m.points[0].position, {0, 0.5, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 2));
}

TEST(CapsuleBox, CapsuleAt45DegreesTouchesWithOneEnd) {
  const Real c = std::sqrt(Real(0.5)) * Real(0.5);  // the end's offset along x and y
  const Manifold m = capsule_box(0.5, at({0, 0.7f + c, 0}, about({0, 0, 1}, 45)));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_vec_near(m.points[0].position, {c, 0.5, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 2));
}

// Tilted 13 degrees from lying on the top face, its lower end touching: the upper end, 0.09 m up,
// is a speculative point within the margin (0.1), and none with a margin of 0.05.
TEST(CapsuleBox, TiltedCapsulesUpperEndWithinTheMarginGivesASpeculativePoint) {
  const Real tilt = 13 * k_pi / 180, half = Real(0.2);
  const Real x = half * std::cos(tilt), rise = 2 * half * std::sin(tilt);
  const Transform pose = at({0, Real(0.75) + half * std::sin(tilt), 0},
                            Quat::from_axis_angle(Vec3::unit_z(), k_pi / 2 - tilt));
  const Manifold m = capsule_box(half, pose);
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, -1, 0});
  EXPECT_TRUE(has_point(m, {x, 0.5, 0}, 0, id(k_vertex, 0, k_face, 2)));
  EXPECT_TRUE(has_point(m, {-x, 0.5, 0}, -rise, id(k_vertex, 1, k_face, 2)));
  Manifold narrow;
  ASSERT_TRUE(
      collide_capsule_box(Capsule{0.25, half}, pose, Box{}, at({0, 0, 0}), Real(0.05), narrow));
  ASSERT_EQ(narrow.count, 1);
  EXPECT_TRUE(has_point(narrow, {x, 0.5, 0}, 0, id(k_vertex, 0, k_face, 2)));
}

TEST(CapsuleBox, CapsuleAlongBoxEdgeGivesDiagonalNormal) {
  const Manifold m = capsule_box(0.5, at({0.6, 0.6, 0}, k_along_z));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, -normalize(Vec3{1, 1, 0}));
  EXPECT_NEAR(m.points[0].depth, 0.25 - 0.1 * std::sqrt(2.0), k_tol);
  EXPECT_NEAR(m.points[0].position.x, 0.5, k_tol);
  EXPECT_NEAR(m.points[0].position.y, 0.5, k_tol);
  // Every point of the segment is equally close; only b's feature is determined.
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(k_edge));
  EXPECT_EQ(m.points[0].id.index_b, 11);
}

TEST(CapsuleBox, RotatedBoxGivesTwoPointsAlongItsFaceNormal) {
  const Transform tb = at({1, 2, 3}, about({0, 1, 0}, 30));
  const Vec3 up = rotate(tb.orientation, Vec3::unit_y());
  const Manifold m =
      capsule_box(0.4, at(tb.position + up * Real(0.7), tb.orientation * k_along_x), tb);
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, -up);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  EXPECT_NEAR(m.points[1].depth, 0.05, k_tol);
}

TEST(CapsuleBox, SegmentThroughBoxCentreGivesFiniteNormalAndDepth) {
  const Manifold m = capsule_box(0.4, at({0, 0, 0}));
  ASSERT_GE(m.count, 1);
  expect_unit_finite_normal(m);
  for (int k = 0; k < m.count; ++k) {
    EXPECT_NEAR(m.points[std::size_t(k)].depth, 0.75, k_tol);
    EXPECT_TRUE(is_finite(m.points[std::size_t(k)].position));
  }
}

}  // namespace
}  // namespace impulse
