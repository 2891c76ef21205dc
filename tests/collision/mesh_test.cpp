#include "collision/mesh_shape.h"

#include <impulse/error.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "collision/mesh_grid.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-4);

Real flat(Real, Real) {
  return 0;
}

// Gentle random bumps (+-5 cm on 0.5 m cells): every inner edge bends by under 12 degrees.
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

}  // namespace
}  // namespace impulse
