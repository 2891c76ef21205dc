#include "collision/plane_pairs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "collision/convex_hull.h"
#include "collision/polyhedron.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-4);
constexpr Real k_margin = Real(0.1);
const Real k_sqrt_half = std::sqrt(Real(0.5));

// The floor y <= 0.
const Plane k_floor{};

// A plane through (1, 2, 3) with its normal turned 45 degrees from +y towards +x, written in a
// frame of its own so that the pose and the offset both count.
const Vec3 k_tilted_normal{k_sqrt_half, k_sqrt_half, 0};
const Vec3 k_tilted_point{1, 2, 3};  // on the tilted plane's surface
const Plane k_tilted{Vec3::unit_y(), Real(0.5)};
const Transform k_tilted_pose =
    at(k_tilted_point - k_tilted_normal * Real(0.5), about({0, 0, 1}, -45));

Manifold collide(const ConvexRef& a, const Transform& ta, const Plane& plane = k_floor,
                 const Transform& tb = {}, bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_convex_plane(a, ta, plane, tb, k_margin, m);
  EXPECT_EQ(h, m.count > 0);
  if (hit) *hit = h;
  return m;
}

// Every point lies on the plane with the given world normal through `on_plane`.
void expect_points_on_plane(const Manifold& m, const Vec3& normal, const Vec3& on_plane) {
  for (int i = 0; i < m.count; ++i)
    EXPECT_NEAR(dot(m.points[i].position - on_plane, normal), 0, k_tol) << "point " << i;
}

void expect_vertex_on_face(const ContactPoint& p, std::uint32_t vertex) {
  EXPECT_EQ(p.id.type_a, std::uint8_t(FeatureType::vertex));
  EXPECT_EQ(p.id.index_a, vertex);
  EXPECT_EQ(p.id.type_b, std::uint8_t(FeatureType::face));
  EXPECT_EQ(p.id.index_b, 0u);
}

// --- sphere ---------------------------------------------------------------------------------

TEST(SpherePlane, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  collide(Sphere{0.5}, at({0, Real(0.65), 0}), k_floor, {}, &hit);
  EXPECT_FALSE(hit);
}

TEST(SpherePlane, TouchingShallowAndDeepGiveOnePointBelowTheCentre) {
  for (const Real depth : {Real(0), Real(0.01), Real(0.3)}) {
    const Manifold m = collide(Sphere{0.5}, at({1, Real(0.5) - depth, 2}));
    ASSERT_EQ(m.count, 1) << depth;
    expect_vec_near(m.normal, {0, -1, 0});
    EXPECT_NEAR(m.points[0].depth, depth, k_tol);
    expect_vec_near(m.points[0].position, {1, 0, 2});
    expect_vertex_on_face(m.points[0], 0);
  }
}

TEST(SpherePlane, WithinMarginGivesSpeculativePoint) {
  const Manifold m = collide(Sphere{0.5}, at({0, Real(0.55), 0}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, -0.05, k_tol);
}

TEST(SpherePlane, TiltedPlanePushesAlongItsWorldNormal) {
  const Vec3 centre = k_tilted_point + k_tilted_normal * Real(0.45);
  const Manifold m = collide(Sphere{0.5}, at(centre), k_tilted, k_tilted_pose);
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, -k_tilted_normal);
  EXPECT_NEAR(m.points[0].depth, 0.05, k_tol);
  expect_vec_near(m.points[0].position, k_tilted_point);
}

TEST(SpherePlane, UnnormalisedPlaneNormalDescribesTheSameHalfSpace) {
  const Manifold m = collide(Sphere{0.5}, at({0, Real(1.4), 0}), Plane{{0, 2, 0}, 2});
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.1, k_tol);
  expect_vec_near(m.points[0].position, {0, 1, 0});
}

// --- capsule --------------------------------------------------------------------------------

const Capsule k_capsule{Real(0.25), Real(0.5)};

TEST(CapsulePlane, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  collide(k_capsule, at({0, Real(0.9), 0}), k_floor, {}, &hit);
  EXPECT_FALSE(hit);
}

TEST(CapsulePlane, UprightGivesOnePointAtTheLowerEnd) {
  for (const Real depth : {Real(0), Real(0.01), Real(0.3)}) {
    const Manifold m = collide(k_capsule, at({0, Real(0.75) - depth, 0}));
    ASSERT_EQ(m.count, 1) << depth;
    expect_vec_near(m.normal, {0, -1, 0});
    EXPECT_NEAR(m.points[0].depth, depth, k_tol);
    expect_vec_near(m.points[0].position, {0, 0, 0});
    expect_vertex_on_face(m.points[0], 0);
  }
}

TEST(CapsulePlane, LyingFlatGivesBothEnds) {
  const Quat along_x = about({0, 0, 1}, 90);  // local +y to world -x
  for (const Real depth : {Real(0), Real(0.01), Real(0.3)}) {
    const Manifold m = collide(k_capsule, at({0, Real(0.25) - depth, 0}, along_x));
    ASSERT_EQ(m.count, 2) << depth;
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(m.points[i].depth, depth, k_tol);
    expect_vec_near(m.points[0].position, {Real(0.5), 0, 0});
    expect_vec_near(m.points[1].position, {Real(-0.5), 0, 0});
    expect_vertex_on_face(m.points[0], 0);
    expect_vertex_on_face(m.points[1], 1);
  }
}

TEST(CapsulePlane, TiltedFortyFiveDegreesTouchesWithItsLowerEnd) {
  const Real drop = Real(0.5) * k_sqrt_half;  // the lower end's depth below the centre
  const Manifold m =
      collide(k_capsule, at({0, drop + Real(0.25) - Real(0.02), 0}, about({0, 0, 1}, 45)));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.02, k_tol);
  expect_vec_near(m.points[0].position, {drop, 0, 0});
  expect_vertex_on_face(m.points[0], 0);
}

TEST(CapsulePlane, TiltedPlaneRestingAlongItGivesTwoPoints) {
  // The capsule's axis along the plane's surface (world z), 0.1 deep.
  const Vec3 centre = k_tilted_point + k_tilted_normal * Real(0.15);
  const Manifold m = collide(k_capsule, at(centre, about({1, 0, 0}, 90)), k_tilted, k_tilted_pose);
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, -k_tilted_normal);
  for (int i = 0; i < 2; ++i)
    EXPECT_NEAR(m.points[i].depth, 0.1, k_tol);
  expect_points_on_plane(m, k_tilted_normal, k_tilted_point);
}

// --- box and hull ---------------------------------------------------------------------------

const BoxPolyhedron k_cube{Box{}};  // half extents 0.5

TEST(BoxPlane, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  collide(k_cube.view(), at({0, Real(0.65), 0}), k_floor, {}, &hit);
  EXPECT_FALSE(hit);
}

TEST(BoxPlane, RestingFlatGivesTheFourBottomCorners) {
  for (const Real depth : {Real(0), Real(0.01), Real(0.3)}) {
    const Manifold m = collide(k_cube.view(), at({1, Real(0.5) - depth, 2}));
    ASSERT_EQ(m.count, 4) << depth;
    expect_vec_near(m.normal, {0, -1, 0});
    std::uint32_t corners = 0;
    for (int i = 0; i < 4; ++i) {
      const ContactPoint& p = m.points[i];
      EXPECT_NEAR(p.depth, depth, k_tol);
      EXPECT_NEAR(p.position.y, 0, k_tol);
      EXPECT_NEAR(std::abs(p.position.x - 1), 0.5, k_tol);
      EXPECT_NEAR(std::abs(p.position.z - 2), 0.5, k_tol);
      expect_vertex_on_face(p, p.id.index_a);
      EXPECT_EQ(p.id.index_a & 2, 0u);  // box_box.h numbering: bit 1 clear is the -y side
      corners |= 1u << p.id.index_a;
    }
    EXPECT_EQ(corners, 0b110011u);  // vertices 0, 1, 4, 5
  }
}

TEST(BoxPlane, TiltedFortyFiveDegreesRestsOnAnEdge) {
  const Manifold m =
      collide(k_cube.view(), at({0, k_sqrt_half - Real(0.02), 0}, about({0, 0, 1}, 45)));
  ASSERT_EQ(m.count, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(m.points[i].depth, 0.02, k_tol);
    EXPECT_NEAR(m.points[i].position.x, 0, k_tol);
    EXPECT_NEAR(std::abs(m.points[i].position.z), 0.5, k_tol);
  }
}

TEST(BoxPlane, CornerDownGivesOnePoint) {
  // The cube's diagonal from vertex 0 (-,-,-) to vertex 7 (+,+,+) turned onto +y.
  const Vec3 diagonal = normalize(Vec3{1, 1, 1});
  const Vec3 axis = normalize(cross(diagonal, Vec3::unit_y()));
  const Quat q = Quat::from_axis_angle(axis, std::acos(diagonal.y));
  const Real half_diagonal = Real(0.5) * std::sqrt(Real(3));
  const Manifold m = collide(k_cube.view(), at({0, half_diagonal - Real(0.01), 0}, q));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.01, k_tol);
  expect_vec_near(m.points[0].position, {0, 0, 0});
  expect_vertex_on_face(m.points[0], 0);
}

TEST(BoxPlane, RestingOnTheTiltedPlaneGivesFourPointsOnIt) {
  const Quat turn = k_tilted_pose.orientation;
  const Vec3 centre = k_tilted_point + k_tilted_normal * Real(0.45);
  const Manifold m = collide(k_cube.view(), at(centre, turn), k_tilted, k_tilted_pose);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, -k_tilted_normal);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(m.points[i].depth, 0.05, k_tol);
  expect_points_on_plane(m, k_tilted_normal, k_tilted_point);
}

// An octagonal prism 1 m tall with corners 1 m from its axis (local y).
HullData octagonal_prism() {
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k) {
    const Real angle = Real(k) * k_pi / 4;
    for (const Real y : {Real(-0.5), Real(0.5)})
      points.push_back({std::cos(angle), y, std::sin(angle)});
  }
  return build_convex_hull(points);
}

TEST(HullPlane, SeparatedBeyondMarginGivesNoPoint) {
  bool hit = true;
  collide(octagonal_prism().view(), at({0, Real(0.65), 0}), k_floor, {}, &hit);
  EXPECT_FALSE(hit);
}

TEST(HullPlane, ManyCornersOnTheFloorAreReducedToFour) {
  // Standing on the floor: its eight bottom corners touch.
  const HullData hull = octagonal_prism();
  for (const Real depth : {Real(0), Real(0.02), Real(0.3)}) {
    const Manifold m = collide(hull.view(), at({0, Real(0.5) - depth, 0}));
    ASSERT_EQ(m.count, 4) << depth;
    expect_vec_near(m.normal, {0, -1, 0});
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(m.points[i].depth, depth, k_tol);
      EXPECT_NEAR(length(m.points[i].position), 1, k_tol);  // corners of the octagon
    }
  }
}

TEST(HullPlane, TiltedFortyFiveDegreesTouchesWithOneCorner) {
  // Turned about z: the bottom corner at -x goes lowest, its neighbours 0.2 m above it.
  const HullData hull = octagonal_prism();
  const Quat turn = about({0, 0, 1}, 45);
  const Vec3 corner = rotate(turn, {-1, Real(-0.5), 0});
  const Manifold m = collide(hull.view(), at({0, -corner.y - Real(0.01), 0}, turn));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, 0.01, k_tol);
  expect_vec_near(m.points[0].position, {corner.x, 0, 0});
}

}  // namespace
}  // namespace impulse
