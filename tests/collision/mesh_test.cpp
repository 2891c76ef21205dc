#include "collision/mesh_shape.h"

#include <impulse/error.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "collision/convex_hull.h"
#include "collision/mesh_grid.h"
#include "collision/polyhedron.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::box_corners;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-4);

Real flat(Real, Real) {
  return 0;
}

// Random bumps of +-5 cm on 0.5 m cells: slopes of up to about 11 degrees in every direction.
Mesh bumpy_terrain(int cells, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> bump(-0.05f, 0.05f);
  return grid_mesh(cells, cells, Real(0.5), [&](Real, Real) { return Real(bump(rng)); });
}

void expect_cooking_error(const Mesh& mesh, const std::string& message_part) {
  try {
    cook_mesh(mesh);
    ADD_FAILURE() << "expected InvalidArgument containing '" << message_part << "'";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  }
}

Mesh one_triangle() {
  return {{{0, 0, 0}, {0, 0, 1}, {1, 0, 0}}, {{0, 1, 2}}};
}

// Two triangles sharing the edge along z at x = 0; the second is folded about it by `degrees`
// (positive: down, a convex ridge; negative: up, a valley).
Mesh folded_pair(Real degrees) {
  const Real a = degrees * k_pi / 180;
  return {{{0, 0, -1}, {0, 0, 1}, {-1, 0, 0}, {std::cos(a), -std::sin(a), 0}},
          {{0, 2, 1}, {0, 1, 3}}};
}

// --- cooking --------------------------------------------------------------------------------

TEST(MeshCooking, NoTrianglesIsRefused) {
  expect_cooking_error(Mesh{{{0, 0, 0}}, {}}, "no triangles");
}

TEST(MeshCooking, IndexOutOfRangeNamesTheTriangleAndIndex) {
  Mesh mesh = one_triangle();
  mesh.triangles.push_back({0, 1, 7});
  expect_cooking_error(mesh, "triangle 1 has vertex index 7");
}

TEST(MeshCooking, NonFiniteVertexNamesTheVertex) {
  Mesh mesh = one_triangle();
  mesh.vertices[2].y = std::numeric_limits<Real>::quiet_NaN();
  expect_cooking_error(mesh, "vertex 2");
  mesh.vertices[2].y = k_infinity;
  expect_cooking_error(mesh, "vertex 2");
}

TEST(MeshCooking, DegenerateTrianglesNameTheTriangle) {
  Mesh collinear = one_triangle();
  collinear.vertices.push_back({2, 0, 0});
  collinear.triangles.push_back({0, 2, 3});  // three points on the x axis
  expect_cooking_error(collinear, "triangle 1 is degenerate");
  Mesh repeated = one_triangle();
  repeated.triangles.push_back({1, 1, 2});
  expect_cooking_error(repeated, "triangle 1 is degenerate");
}

TEST(MeshCooking, NormalsFaceTheCounterClockwiseSide) {
  const auto mesh = cook_mesh(grid_mesh(3, 2, Real(0.5), flat));
  for (const Vec3& n : mesh->normals)
    expect_vec_near(n, {0, 1, 0});
}

TEST(MeshCooking, FlatGridHasOnlyItsBoundaryActive) {
  const int cells = 6;
  const Real half = Real(cells) * Real(0.5) / 2;
  const auto mesh = cook_mesh(grid_mesh(cells, cells, Real(0.5), flat));
  const auto on_boundary = [&](const Vec3& v) {
    return std::abs(std::abs(v.x) - half) < k_tol || std::abs(std::abs(v.z) - half) < k_tol;
  };
  int active_edges = 0;
  for (std::size_t t = 0; t < mesh->triangles.size(); ++t) {
    const auto& tri = mesh->triangles[t];
    for (int i = 0; i < 3; ++i) {
      const Vec3& p = mesh->vertices[tri[i]];
      const Vec3& q = mesh->vertices[tri[(i + 1) % 3]];
      // A boundary edge has both ends on the same side of the square.
      const bool boundary =
          (std::abs(p.x - q.x) < k_tol && std::abs(std::abs(p.x) - half) < k_tol) ||
          (std::abs(p.z - q.z) < k_tol && std::abs(std::abs(p.z) - half) < k_tol);
      const bool edge_active = mesh->active_features[t] & MeshShape::edge_bit(i);
      EXPECT_EQ(edge_active, boundary) << "triangle " << t << " edge " << i;
      active_edges += edge_active;
      EXPECT_EQ(bool(mesh->active_features[t] & MeshShape::vertex_bit(i)), on_boundary(p))
          << "triangle " << t << " corner " << i;
    }
  }
  EXPECT_EQ(active_edges, 4 * cells);
}

TEST(MeshCooking, ConvexFoldBeyondThresholdIsActiveFlatAndConcaveAreNot) {
  const auto shared_edge_active = [](Real degrees) {
    const auto mesh = cook_mesh(folded_pair(degrees));
    // Triangle 0 is (0, 2, 1): its edge 2 runs from vertex 1 to vertex 0, the shared one.
    const bool a = mesh->active_features[0] & MeshShape::edge_bit(2);
    const bool b = mesh->active_features[1] & MeshShape::edge_bit(0);
    EXPECT_EQ(a, b) << degrees;
    return a;
  };
  EXPECT_TRUE(shared_edge_active(30));
  EXPECT_TRUE(shared_edge_active(k_active_edge_degrees + 1));
  EXPECT_FALSE(shared_edge_active(k_active_edge_degrees - 1));
  EXPECT_FALSE(shared_edge_active(0));
  EXPECT_FALSE(shared_edge_active(-30));
}

TEST(MeshCooking, RepeatedCornersAreWeldedToFindInnerEdges) {
  // The flat pair with each triangle owning its corners: the shared edge is still inner.
  const Mesh shared = folded_pair(0);
  Mesh split;
  for (const auto& tri : shared.triangles) {
    const auto base = std::uint32_t(split.vertices.size());
    for (const std::uint32_t v : tri)
      split.vertices.push_back(shared.vertices[v]);
    split.triangles.push_back({base, base + 1, base + 2});
  }
  const auto mesh = cook_mesh(split);
  EXPECT_FALSE(mesh->active_features[0] & MeshShape::edge_bit(2));
  EXPECT_FALSE(mesh->active_features[1] & MeshShape::edge_bit(0));
}

TEST(MeshCooking, BackToBackTrianglesHaveActiveEdges) {
  Mesh mesh = one_triangle();
  mesh.triangles.push_back({0, 2, 1});
  EXPECT_EQ(cook_mesh(mesh)->active_features[0] & 7, 7);
}

// --- tree -----------------------------------------------------------------------------------

AABB triangle_box(const MeshShape& mesh, std::size_t t) {
  AABB box;
  for (const std::uint32_t v : mesh.triangles[t])
    box.include(mesh.vertices[v]);
  return box;
}

TEST(MeshTree, QueriesEqualBruteForceOnBumpyTerrain) {
  const auto mesh = cook_mesh(bumpy_terrain(40, 1));  // 3200 triangles
  ASSERT_EQ(mesh->triangles.size(), 3200u);
  EXPECT_LE(mesh->tree.height(), 16);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> coord(-11.f, 11.f), size(0.01f, 2.f);
  for (int q = 0; q < 300; ++q) {
    const Vec3 c{Real(coord(rng)), Real(coord(rng)) * Real(0.02), Real(coord(rng))};
    const AABB box = AABB::from_center_half_extents(
        c, {Real(size(rng)), Real(size(rng)) * Real(0.1), Real(size(rng))});
    std::vector<std::uint32_t> found;
    mesh->tree.query(box, [&](std::uint32_t t) {
      found.push_back(t);
      return true;
    });
    std::sort(found.begin(), found.end());
    std::vector<std::uint32_t> expected;
    for (std::uint32_t t = 0; t < mesh->triangles.size(); ++t) {
      if (triangle_box(*mesh, t).overlaps(box)) expected.push_back(t);
    }
    EXPECT_EQ(found, expected) << "query " << q;
  }
}

TEST(MeshTree, CoincidentTrianglesStillGiveABoundedTree) {
  Mesh mesh = one_triangle();
  for (int k = 1; k < 1000; ++k)
    mesh.triangles.push_back({0, 1, 2});
  const auto cooked = cook_mesh(mesh);
  EXPECT_LE(cooked->tree.height(), MeshTree::k_max_height);
  int count = 0;
  cooked->tree.query(AABB{{0, -1, 0}, {1, 1, 1}}, [&](std::uint32_t) { return ++count > 0; });
  EXPECT_EQ(count, 1000);
}

TEST(MeshShape, BoundsEncloseEveryVertexTightly) {
  const auto mesh = cook_mesh(bumpy_terrain(10, 3));
  AABB expected;
  for (const Vec3& v : mesh->vertices)
    expected.include(v);
  EXPECT_EQ(mesh_bounds(*mesh), expected);
}

// --- raycast --------------------------------------------------------------------------------

TEST(MeshRaycast, ClosestHitEqualsBruteForceOnBumpyTerrain) {
  const auto mesh = cook_mesh(bumpy_terrain(40, 4));
  const Transform pose = at({1, 2, -3}, about({1, 2, 3}, 20));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> coord(-12.f, 12.f), unit(-1.f, 1.f);
  int hits = 0;
  for (int r = 0; r < 1000; ++r) {
    // Mostly towards the terrain, from either side, some grazing it.
    const Vec3 o_local{Real(coord(rng)), Real(unit(rng)) * 3, Real(coord(rng))};
    const Vec3 d_local{Real(unit(rng)) * 8, -2 * o_local.y + Real(unit(rng)), Real(unit(rng)) * 8};
    const Vec3 origin = apply(pose, o_local);
    const Vec3 direction = rotate(pose.orientation, d_local);
    const Real max_fraction = r % 2 ? Real(1) : Real(0.5);
    RayHit hit;
    const bool found = raycast(*mesh, pose, origin, direction, max_fraction, hit);

    const Vec3 o = apply_inverse(pose, origin);
    const Vec3 d = inverse_rotate(pose.orientation, direction);
    Real best = max_fraction;
    std::uint32_t best_t = 0;
    bool expected = false;
    for (std::uint32_t t = 0; t < mesh->triangles.size(); ++t) {
      const auto& tri = mesh->triangles[t];
      const Real f = ray_triangle_fraction(mesh->vertices[tri[0]], mesh->vertices[tri[1]],
                                           mesh->vertices[tri[2]], o, d, best);
      if (f >= 0 && (!expected || f < best)) {
        expected = true;
        best = f;
        best_t = t;
      }
    }
    ASSERT_EQ(found, expected) << "ray " << r;
    if (!found) continue;
    ++hits;
    EXPECT_EQ(hit.fraction, best) << "ray " << r;
    EXPECT_EQ(hit.sub_shape, best_t) << "ray " << r;
    EXPECT_LT(dot(hit.normal, direction), 0) << "ray " << r;
  }
  EXPECT_GT(hits, 300);  // the comparison is not vacuous
}

TEST(MeshRaycast, HitsEitherSideWithTheNormalAgainstTheRay) {
  const auto mesh = cook_mesh(grid_mesh(4, 4, 1, flat));
  const Transform pose = at({0, 1, 0});
  RayHit hit;
  ASSERT_TRUE(raycast(*mesh, pose, {Real(0.3), 3, Real(0.2)}, {0, -4, 0}, 1, hit));
  EXPECT_NEAR(hit.fraction, 0.5, k_tol);
  expect_vec_near(hit.normal, {0, 1, 0});
  ASSERT_TRUE(raycast(*mesh, pose, {Real(0.3), -1, Real(0.2)}, {0, 4, 0}, 1, hit));
  EXPECT_NEAR(hit.fraction, 0.5, k_tol);
  expect_vec_near(hit.normal, {0, -1, 0});
  const auto& tri = mesh->triangles[hit.sub_shape];
  AABB box;
  for (const std::uint32_t v : tri)
    box.include(mesh->vertices[v]);
  EXPECT_TRUE(box.expanded(k_tol).contains(Vec3{Real(0.3), 0, Real(0.2)}));
}

TEST(MeshRaycast, MissesBeyondMaxFractionAndParallelRays) {
  const auto mesh = cook_mesh(grid_mesh(4, 4, 1, flat));
  RayHit hit;
  EXPECT_FALSE(raycast(*mesh, {}, {0, 3, 0}, {0, -4, 0}, Real(0.7), hit));
  EXPECT_FALSE(raycast(*mesh, {}, {-5, Real(0.1), 0}, {10, 0, 0}, 1, hit));
  EXPECT_FALSE(raycast(*mesh, {}, {-5, Real(0.1), 0}, {0, 0, 0}, 1, hit));
}

// --- convex against mesh --------------------------------------------------------------------

constexpr Real k_margin = Real(0.05);
const Vec3 k_down{0, -1, 0};

std::vector<Manifold> collide(const ConvexRef& a, const Transform& ta, const MeshShape& mesh,
                              const Transform& tb = {}, std::span<const MeshTouch> touched = {}) {
  std::vector<Manifold> out;
  collide_convex_mesh(a, ta, mesh, tb, k_margin, out, touched);
  for (const Manifold& m : out) {
    EXPECT_GT(m.count, 0);
    EXPECT_LE(m.count, Manifold::k_max_points);
    EXPECT_NEAR(length(m.normal), 1, k_tol);
  }
  return out;
}

Real deepest(const std::vector<Manifold>& out) {
  Real depth = -k_infinity;
  for (const Manifold& m : out) {
    for (int i = 0; i < m.count; ++i)
      depth = std::max(depth, m.points[i].depth);
  }
  return depth;
}

// Every manifold has normal `expected`, to within tol per component.
void expect_only_normal(const std::vector<Manifold>& out, const Vec3& expected, Real tol,
                        const std::string& where) {
  for (const Manifold& m : out) {
    EXPECT_NEAR(m.normal.x, expected.x, tol) << where;
    EXPECT_NEAR(m.normal.y, expected.y, tol) << where;
    EXPECT_NEAR(m.normal.z, expected.z, tol) << where;
  }
}

// The hull of the box between corners `low` and `high` (its own frame).
HullData cuboid_hull(const Vec3& low, const Vec3& high) {
  return build_convex_hull(box_corners((high - low) / 2, (high + low) / 2));
}

// A 16 x 16 m floor of 0.5 m cells at y = 0: inner edges and corners every half metre.
const MeshShape& floor_mesh() {
  static const auto mesh = cook_mesh(grid_mesh(32, 32, Real(0.5), flat));
  return *mesh;
}

TEST(MeshContacts, SphereRollingAcrossInnerEdgesAndCornersGetsTheFaceNormal) {
  const Sphere ball{Real(0.3)};
  // Along z = 0, a row of inner edges and corners, then across the cells' diagonals.
  for (const Real z : {Real(0), Real(0.1)}) {
    for (int k = 0; k <= 200; ++k) {
      const Real x = Real(-1) + Real(k) * Real(0.01);  // hits x = -1, -0.5, 0, ... exactly
      const auto out = collide(ball, at({x, Real(0.29), z}), floor_mesh());
      const std::string where = "x = " + std::to_string(x) + ", z = " + std::to_string(z);
      ASSERT_EQ(out.size(), 1u) << where;
      expect_only_normal(out, k_down, k_tol, where);
      EXPECT_NEAR(deepest(out), 0.01, k_tol) << where;
      // The deepest point is the ball's foot; others are neighbours' shallower edge points.
      const auto& points = out[0].points;
      const auto foot = std::max_element(
          points.begin(), points.begin() + out[0].count,
          [](const ContactPoint& p, const ContactPoint& q) { return p.depth < q.depth; });
      expect_vec_near(foot->position, {x, 0, z});
    }
  }
}

TEST(MeshContacts, SphereBesideTheBoundaryKeepsTheEdgeNormal) {
  // The floor ends at x = 8; a ball beside and a little below its edge touches the edge itself.
  const auto out = collide(Sphere{Real(0.5)}, at({Real(8.3), Real(0.1), Real(0.2)}), floor_mesh());
  ASSERT_EQ(out.size(), 1u);
  expect_vec_near(out[0].normal, normalize(Vec3{Real(-0.3), Real(-0.1), 0}));
  EXPECT_NEAR(deepest(out), Real(0.5) - std::sqrt(Real(0.1)), k_tol);
  expect_vec_near(out[0].points[0].position, {8, 0, Real(0.2)});
}

TEST(MeshContacts, FeatureIdsNameTheTriangleAndItsFeature) {
  const auto& mesh = floor_mesh();
  const auto out = collide(Sphere{Real(0.3)}, at({Real(0.2), Real(0.29), Real(0.1)}), mesh);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].count, 1);
  const FeatureId id = out[0].points[0].id;
  EXPECT_EQ(id.type_b, std::uint8_t(FeatureType::face));
  EXPECT_EQ(id.index_b % 8, 0u);  // the front face
  const std::uint32_t t = id.index_b / 8;
  ASSERT_LT(t, mesh.triangles.size());
  EXPECT_TRUE(triangle_box(mesh, t).contains(Vec3{Real(0.2), 0, Real(0.1)}));
}

TEST(MeshContacts, PosedMeshPushesAlongItsWorldFaceNormal) {
  const Transform pose = at({1, 2, 3}, about({1, 0, 1}, 30));
  const Vec3 up = rotate(pose.orientation, Vec3::unit_y());
  const Vec3 centre = apply(pose, {Real(0.25), 0, Real(0.25)}) + up * Real(0.28);
  const auto out = collide(Sphere{Real(0.3)}, at(centre), floor_mesh(), pose);
  ASSERT_EQ(out.size(), 1u);
  expect_vec_near(out[0].normal, -up);
  EXPECT_NEAR(deepest(out), 0.02, k_tol);
}

TEST(MeshContacts, OneSidedFloorIgnoresBodiesBelowItAndPushesUpThoseAbove) {
  // Centre below the floor: nothing, though the ball reaches 0.2 m above it.
  EXPECT_TRUE(
      collide(Sphere{Real(0.5)}, at({Real(0.1), Real(-0.3), Real(0.2)}), floor_mesh()).empty());
  // Centre just above, most of the ball below: pushed up, out of the front.
  const auto out = collide(Sphere{Real(0.5)}, at({Real(0.1), Real(0.1), Real(0.2)}), floor_mesh());
  ASSERT_FALSE(out.empty());
  expect_only_normal(out, k_down, k_tol, "deep");
  EXPECT_NEAR(deepest(out), 0.4, k_tol);
}

// A hull whose corners all lie above its origin, resting on the floor with the origin 0.2 m below
// it: the one-sided test asks for a point inside the hull, not its origin (taken for a body
// behind the floor, such a hull lost its contacts and fell through).
TEST(MeshContacts, AHullAboveItsOwnOriginRestingOnTheFloorIsPushedUp) {
  const HullData hull =
      cuboid_hull({Real(-0.3), Real(0.2), Real(-0.3)}, {Real(0.3), Real(0.6), Real(0.3)});
  const auto out = collide(hull.view(), at({Real(0.1), Real(-0.21), Real(0.2)}), floor_mesh());
  ASSERT_EQ(out.size(), 1u);
  expect_only_normal(out, k_down, k_tol, "resting");
  EXPECT_NEAR(deepest(out), 0.01, k_tol);
  // Wholly below the floor it stays behind it.
  EXPECT_TRUE(collide(hull.view(), at({Real(0.1), Real(-0.7), Real(0.2)}), floor_mesh()).empty());
}

// A knife-edged hull 1 cm tall, its edge down and 6.2 mm through the floor: more of it lies below
// the floor than above, so its overlap is least along the triangle's back face, whose normal would
// pull it on through; its corners' mean is above the floor, so it is in front, and pushed out of
// the front (1 cm needles dropped on a mesh fell through it, their corners half through).
TEST(MeshContacts, AThinHullMoreThanHalfThroughTheFloorIsPushedOutOfTheFront) {
  const Real h = Real(0.005), depth = Real(0.0062);
  const HullData knife = build_convex_hull(std::vector<Vec3>{{Real(-0.5), -h, 0},
                                                             {Real(0.5), -h, 0},
                                                             {Real(-0.5), h, Real(-0.05)},
                                                             {Real(-0.5), h, Real(0.05)},
                                                             {Real(0.5), h, Real(-0.05)},
                                                             {Real(0.5), h, Real(0.05)}});
  const Mesh floor{{{-5, 0, -5}, {-5, 0, 10}, {10, 0, -5}}, {{0, 1, 2}}};
  const auto out = collide(knife.view(), at({0, h - depth, 0}), *cook_mesh(floor));
  ASSERT_EQ(out.size(), 1u);
  expect_only_normal(out, k_down, k_tol, "knife");
  // A slanted side's corners: the edge's ends at that depth, the others their gap above.
  ASSERT_EQ(out[0].count, 4);
  int edge_ends = 0;
  for (int i = 0; i < out[0].count; ++i) {
    const ContactPoint& p = out[0].points[i];
    EXPECT_NEAR(std::abs(p.position.x), Real(0.5), k_tol);
    if (std::abs(p.depth - depth) < k_tol) {
      ++edge_ends;
    } else {
      EXPECT_NEAR(p.depth, depth - 2 * h, k_tol);
    }
  }
  EXPECT_EQ(edge_ends, 2);
}

// A plate 4 mm thick that sank 6 mm into the floor, wholly behind its plane: its corners' mean is
// behind it, but by less than a body resting on it sinks (the slop and more under load), so it is
// still in front, and pushed out of the front. 3 cm behind it is behind the floor.
TEST(MeshContacts, AThinPlateSunkWhollyIntoTheFloorIsStillInFront) {
  const HullData plate =
      cuboid_hull({Real(-0.5), Real(-0.002), Real(-0.5)}, {Real(0.5), Real(0.002), Real(0.5)});
  const auto out = collide(plate.view(), at({Real(0.1), Real(-0.004), Real(0.2)}), floor_mesh());
  ASSERT_EQ(out.size(), 1u);
  expect_only_normal(out, k_down, k_tol, "sunk");
  EXPECT_EQ(out[0].count, 4);
  EXPECT_NEAR(deepest(out), 0.006, k_tol);
  EXPECT_TRUE(collide(plate.view(), at({Real(0.1), Real(-0.03), Real(0.2)}), floor_mesh()).empty());
}

// A plate 4 mm thick slammed flat 8 cm into the floor, beyond k_through and the margin: by its
// pose alone it is behind the floor, and fell through (a 2 m plate landing spinning sank 12 cm in
// a step, wholly under a two-triangle floor). Having touched the floor at the last step, anywhere
// on its plane, it is in front still and pushed out of the front by its depth. A last contact on a
// surface facing another way or lying off the floor's plane (a wall, a floor below) says nothing.
TEST(MeshContacts, AThinPlateThatTouchedTheFloorLastStepIsPushedOutHoweverDeepItSank) {
  const HullData plate =
      cuboid_hull({Real(-0.5), Real(-0.002), Real(-0.5)}, {Real(0.5), Real(0.002), Real(0.5)});
  const Transform sunk = at({Real(0.1), Real(-0.08), Real(0.2)});
  EXPECT_TRUE(collide(plate.view(), sunk, floor_mesh()).empty());
  const MeshTouch on_floor[] = {{{Real(0.7), 0, Real(-0.4)}, {0, 1, 0}}};
  const auto out = collide(plate.view(), sunk, floor_mesh(), {}, on_floor);
  ASSERT_EQ(out.size(), 1u);
  expect_only_normal(out, k_down, k_tol, "sunk");
  EXPECT_EQ(out[0].count, 4);
  EXPECT_NEAR(deepest(out), 0.082, k_tol);
  const MeshTouch on_wall[] = {{{Real(0.7), 0, Real(-0.4)}, {1, 0, 0}}};
  const MeshTouch below[] = {{{Real(0.7), Real(-0.5), Real(-0.4)}, {0, 1, 0}}};
  EXPECT_TRUE(collide(plate.view(), sunk, floor_mesh(), {}, on_wall).empty());
  EXPECT_TRUE(collide(plate.view(), sunk, floor_mesh(), {}, below).empty());
}

// A ledge: a floor at y = 0 for x <= 0 and its side, facing +x, from y = 0 down to -2.
const MeshShape& ledge_mesh() {
  static const auto mesh =
      cook_mesh(Mesh{{{-5, 0, -5}, {-5, 0, 5}, {0, 0, 5}, {0, 0, -5}, {0, -2, 5}, {0, -2, -5}},
                     {{0, 1, 2}, {0, 2, 3}, {3, 2, 4}, {3, 4, 5}}});
  return *mesh;
}

// A cube and a plate 4 mm thick resting on the ledge with their centres 1 cm back from its edge:
// within k_behind behind the side, which the plate, thin, does not pass; but they reach far behind
// it, so they are beside it, not through it, and get the floor's normal alone (pushed out of the
// side's front, a resting cube was thrown off the ledge at 1.15 m/s); so too when they touched the
// floor at the last step, which faces another way than the side. A capsule 1.4 cm behind a floor,
// not thin, is behind it.
TEST(MeshContacts, BodiesRestingNearALedgesEdgeGetNoPushFromItsSide) {
  const HullData cube = cuboid_hull({Real(-0.5), Real(-0.5), Real(-0.5)}, Vec3::splat(Real(0.5)));
  const HullData plate =
      cuboid_hull({Real(-0.5), Real(-0.002), Real(-0.5)}, {Real(0.5), Real(0.002), Real(0.5)});
  ASSERT_FALSE(cube.thin);
  ASSERT_TRUE(plate.thin);
  const MeshTouch on_floor[] = {{{Real(-0.3), 0, Real(0.2)}, {0, 1, 0}}};
  for (const auto& [hull, centre_y] : {std::pair{&cube, Real(0.49)}, {&plate, Real(0.001)}}) {
    for (const std::span<const MeshTouch> touched : {std::span<const MeshTouch>{}, {on_floor}}) {
      const auto out =
          collide(hull->view(), at({Real(-0.01), centre_y, 0}), ledge_mesh(), {}, touched);
      ASSERT_FALSE(out.empty());
      expect_only_normal(out, k_down, k_tol, centre_y > Real(0.1) ? "cube" : "plate");
      EXPECT_LT(deepest(out), Real(0.011));
    }
  }
  // A capsule lying across the floor's inner edges, its centre 1.4 cm behind it.
  const Capsule rod{Real(0.03), Real(0.5)};
  for (const Real x : {Real(0), Real(0.1), Real(0.25), Real(0.5)}) {
    EXPECT_TRUE(
        collide(rod, at({x, Real(-0.014), Real(0.1)}, about({0, 0, 1}, 90)), floor_mesh()).empty())
        << "x = " << x;
  }
}

const BoxPolyhedron k_cube{Box{}};  // half extents 0.5

TEST(MeshContacts, BoxRestingOnTheFloorGetsTheFaceNormalOverInnerEdgesAndCorners) {
  // Corners on inner corners and sides along inner edges; then across the cells' diagonals; then
  // anywhere, turned.
  const Transform poses[] = {at({0, Real(0.49), 0}), at({Real(0.25), Real(0.49), Real(0.25)}),
                             at({Real(0.1), Real(0.49), Real(0.37)}, about({0, 1, 0}, 30))};
  for (const Transform& pose : poses) {
    const auto out = collide(k_cube.view(), pose, floor_mesh());
    const std::string where = "x = " + std::to_string(pose.position.x);
    ASSERT_EQ(out.size(), 1u) << where;
    expect_only_normal(out, k_down, k_tol, where);
    EXPECT_EQ(out[0].count, 4) << where;
    for (int i = 0; i < out[0].count; ++i) {
      EXPECT_NEAR(out[0].points[i].depth, 0.01, k_tol) << where;
      EXPECT_NEAR(out[0].points[i].position.y, 0, k_tol) << where;
    }
  }
}

TEST(MeshContacts, BoxSlidingAcrossTheFloorNeverGetsASidewaysNormal) {
  // The geometric core of "no bump at inner edges": a box pushed along x at constant height,
  // 5 mm deep, crossing inner edges and corners square on and turned.
  for (const Real yaw : {Real(0), Real(30)}) {
    for (const Real z : {Real(0), Real(0.1)}) {
      for (int k = 0; k <= 400; ++k) {
        const Real x =
            k % 100 == 0 ? Real(k / 100 - 2) * Real(0.5) : Real(-1) + Real(k) * Real(0.005);
        const auto out =
            collide(k_cube.view(), at({x, Real(0.495), z}, about({0, 1, 0}, yaw)), floor_mesh());
        const std::string where = "yaw " + std::to_string(yaw) + ", x = " + std::to_string(x) +
                                  ", z = " + std::to_string(z);
        ASSERT_FALSE(out.empty()) << where;
        for (const Manifold& m : out) {
          EXPECT_LE(std::abs(m.normal.x), k_tol) << where;
          EXPECT_LE(std::abs(m.normal.z), k_tol) << where;
        }
        EXPECT_NEAR(deepest(out), 0.005, k_tol) << where;
      }
    }
  }
}

TEST(MeshContacts, CapsuleRollingAcrossInnerEdgesGetsTheFaceNormal) {
  const Capsule capsule{Real(0.25), Real(0.5)};
  // Lying along x, then along z, then along the cells' diagonals (which are inner edges).
  for (const Real yaw : {Real(0), Real(90), Real(-45)}) {
    for (int k = 0; k <= 100; ++k) {
      const Real x = Real(-0.5) + Real(k) * Real(0.01);
      const Quat lying = about({0, 1, 0}, yaw) * about({0, 0, 1}, 90);
      const auto out = collide(capsule, at({x, Real(0.24), 0}, lying), floor_mesh());
      const std::string where = "yaw " + std::to_string(yaw) + ", x = " + std::to_string(x);
      ASSERT_FALSE(out.empty()) << where;
      expect_only_normal(out, k_down, k_tol, where);
      EXPECT_NEAR(deepest(out), 0.01, k_tol) << where;
    }
  }
}

// Two triangles meeting at a ridge along z at x = 0, each sloping down 15 degrees away from it:
// a convex fold of 30 degrees, so the ridge is an active edge.
Mesh ridge() {
  const Real a = 15 * k_pi / 180;
  const Real c = 2 * std::cos(a), s = 2 * std::sin(a);
  return {{{0, 0, -1}, {0, 0, 1}, {-c, -s, 0}, {c, -s, 0}}, {{0, 2, 1}, {0, 1, 3}}};
}

TEST(MeshContacts, BoxOnAConvexRidgeKeepsTheEdgeContact) {
  const auto mesh = cook_mesh(ridge());
  ASSERT_TRUE(mesh->active_features[0] & MeshShape::edge_bit(2));
  const auto out = collide(k_cube.view(), at({0, Real(0.49), 0}), *mesh);
  ASSERT_EQ(out.size(), 1u);
  // The box's face normal, which is neither triangle's: the ridge holds the box up.
  expect_vec_near(out[0].normal, k_down);
  EXPECT_NEAR(deepest(out), 0.01, k_tol);
  for (int i = 0; i < out[0].count; ++i) {
    if (out[0].points[i].depth < 0) continue;  // speculative points down the slopes
    EXPECT_NEAR(out[0].points[i].position.x, 0, k_tol);
    EXPECT_NEAR(out[0].points[i].position.y, 0, k_tol);
  }
}

TEST(MeshContacts, BoxBelowTheOneSidedFloorIsNotPushedThrough) {
  // Centre below, top face 0.2 m above the floor: nothing.
  EXPECT_TRUE(collide(k_cube.view(), at({Real(0.1), Real(-0.3), Real(0.2)}), floor_mesh()).empty());
  // Centre above, 0.3 m deep: pushed up.
  const auto out = collide(k_cube.view(), at({Real(0.1), Real(0.2), Real(0.2)}), floor_mesh());
  ASSERT_FALSE(out.empty());
  expect_only_normal(out, k_down, k_tol, "deep");
  EXPECT_NEAR(deepest(out), 0.3, k_tol);
}

TEST(MeshContacts, BoxInAConcaveCornerGetsTheFloorAndTheWallNormals) {
  // A floor (x < 0) meeting a wall (x = 0, facing -x) at a concave, so inactive, edge along z.
  const auto mesh =
      cook_mesh({{{-2, 0, -1}, {-2, 0, 1}, {0, 0, 1}, {0, 0, -1}, {0, 2, 1}, {0, 2, -1}},
                 {{0, 1, 2}, {0, 2, 3}, {3, 2, 4}, {3, 4, 5}}});
  for (const Real gap : {Real(-0.01), Real(0.02)}) {
    const auto out = collide(k_cube.view(), at({Real(-0.5) - gap, Real(0.49), 0}), *mesh);
    ASSERT_EQ(out.size(), 2u) << gap;
    for (const Manifold& m : out) {
      const bool floor = m.normal.y < -Real(0.5);
      expect_vec_near(m.normal, floor ? k_down : Vec3{1, 0, 0});
      EXPECT_EQ(m.count, 4) << gap;
      for (int i = 0; i < m.count; ++i)
        EXPECT_NEAR(m.points[i].depth, floor ? Real(0.01) : -gap, k_tol) << gap;
    }
  }
}

}  // namespace
}  // namespace impulse
