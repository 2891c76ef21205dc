#include "collision/box_box.h"
#include "collision/manifold_reduction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-4);

Box box(Real hx, Real hy, Real hz) {
  return Box{{hx, hy, hz}};
}

bool has_point(const Manifold& m, const Vec3& p) {
  for (int k = 0; k < m.count; ++k) {
    if (distance(m.points[std::size_t(k)].position, p) < k_tol) return true;
  }
  return false;
}

void expect_depths(const Manifold& m, Real depth) {
  for (int k = 0; k < m.count; ++k)
    EXPECT_NEAR(m.points[std::size_t(k)].depth, depth, k_tol);
}

std::vector<std::uint64_t> sorted_keys(const Manifold& m) {
  std::vector<std::uint64_t> keys;
  for (int k = 0; k < m.count; ++k)
    keys.push_back(m.points[std::size_t(k)].id.key());
  std::sort(keys.begin(), keys.end());
  return keys;
}

bool ids_distinct(const Manifold& m) {
  const std::vector<std::uint64_t> keys = sorted_keys(m);
  return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

// Area of the convex polygon through the points, seen along the y axis.
Real area_in_xz(std::vector<Vec3> pts) {
  Vec3 c;
  for (const Vec3& p : pts)
    c += p / Real(pts.size());
  std::sort(pts.begin(), pts.end(), [&](const Vec3& p, const Vec3& q) {
    return std::atan2(p.z - c.z, p.x - c.x) < std::atan2(q.z - c.z, q.x - c.x);
  });
  Real twice = 0;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const Vec3& p = pts[k];
    const Vec3& q = pts[(k + 1) % pts.size()];
    twice += p.x * q.z - q.x * p.z;
  }
  return std::abs(twice) / 2;
}

std::vector<Vec3> positions(const Manifold& m) {
  std::vector<Vec3> pts;
  for (int k = 0; k < m.count; ++k)
    pts.push_back(m.points[std::size_t(k)].position);
  return pts;
}

const Box k_unit = box(Real(0.5), Real(0.5), Real(0.5));

TEST(BoxBox, SeparatedBoxesGiveNoPoints) {
  Manifold m;
  EXPECT_FALSE(collide_box_box(k_unit, at({}), k_unit, at({0, Real(1.2), 0}), 0, m));
  EXPECT_EQ(m.count, 0);
  EXPECT_FALSE(collide_box_box(k_unit, at({}), k_unit, at({Real(0.7), Real(1.1), Real(-0.9)}),
                               Real(0.05), m));
  EXPECT_EQ(m.count, 0);
}

TEST(BoxBox, SeparationWithinMarginGivesSpeculativePointsOfNegativeDepth) {
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, at({}), k_unit, at({0, Real(1.2), 0}), Real(0.3), m));
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(-0.2));
  for (Real x : {Real(-0.5), Real(0.5)}) {
    for (Real z : {Real(-0.5), Real(0.5)})
      EXPECT_TRUE(has_point(m, {x, Real(0.7), z}));
  }
}

TEST(BoxBox, TouchingFacesGiveFourPointsOfZeroDepth) {
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, at({}), k_unit, at({0, 1, 0}), 0, m));
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, 0);
}

TEST(BoxBox, ShallowAndDeepFaceOverlapGiveFourCornersAtExactDepth) {
  for (Real depth : {Real(0.01), Real(0.4)}) {
    Manifold m;
    ASSERT_TRUE(collide_box_box(k_unit, at({}), k_unit, at({0, 1 - depth, 0}), 0, m));
    ASSERT_EQ(m.count, 4);
    expect_vec_near(m.normal, {0, 1, 0});
    expect_depths(m, depth);
    for (Real x : {Real(-0.5), Real(0.5)}) {
      for (Real z : {Real(-0.5), Real(0.5)})
        EXPECT_TRUE(has_point(m, {x, Real(0.5) - depth, z}));
    }
  }
}

TEST(BoxBox, NormalPointsFromAToBWhenBIsBelow) {
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, at({}), k_unit, at({0, Real(-0.95), 0}), 0, m));
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_depths(m, Real(0.05));
}

TEST(BoxBox, SmallBoxOnLargeFaceGivesItsFourCorners) {
  Manifold m;
  ASSERT_TRUE(
      collide_box_box(box(2, Real(0.5), 2), at({}), k_unit, at({Real(0.3), Real(0.95), 0}), 0, m));
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.05));
  for (Real x : {Real(-0.2), Real(0.8)}) {
    for (Real z : {Real(-0.5), Real(0.5)})
      EXPECT_TRUE(has_point(m, {x, Real(0.45), z}));
  }
}

TEST(BoxBox, OffsetFacesGiveTheClippedRectangle) {
  const Box slab = box(1, Real(0.5), 1);
  Manifold m;
  ASSERT_TRUE(collide_box_box(slab, at({}), slab, at({Real(1.5), Real(0.95), 0}), 0, m));
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.05));
  for (Real x : {Real(0.5), Real(1)}) {
    for (Real z : {Real(-1), Real(1)})
      EXPECT_TRUE(has_point(m, {x, Real(0.45), z}));
  }
  EXPECT_TRUE(ids_distinct(m));
}

TEST(BoxBox, BoxTurned45DegreesReducesTheOctagonToTheLargestSquare) {
  // The turned face clipped by the square one is a regular octagon of circumradius r; the
  // largest quadrilateral on its corners is the square on every other corner, area 2 r^2.
  const Box slab = box(1, Real(0.5), 1);
  Manifold m;
  ASSERT_TRUE(
      collide_box_box(slab, at({}), slab, at({0, Real(0.9), 0}, about({0, 1, 0}, 45)), 0, m));
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.1));
  const Real cut = std::sqrt(Real(2)) - 1;
  for (const Vec3& p : positions(m)) {
    EXPECT_NEAR(p.y, Real(0.4), k_tol);
    EXPECT_NEAR(std::max(std::abs(p.x), std::abs(p.z)), 1, k_tol);
    EXPECT_NEAR(std::min(std::abs(p.x), std::abs(p.z)), cut, k_tol);
  }
  EXPECT_NEAR(area_in_xz(positions(m)), 2 * (1 + cut * cut), 1e-3);
  EXPECT_TRUE(ids_distinct(m));
}

TEST(BoxBox, TiltedBoxOnLargeBoxGivesItsLowestEdgeOnTheLowerFace) {
  // b's face is the reference here: points are projected onto it, so they lie on b's surface.
  const Quat tilt = about({0, 0, 1}, 30);
  const Real lowest = rotate(tilt, {Real(-0.5), Real(-0.5), 0}).y;  // the lowest edge's height
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, at({0, Real(0.5) - lowest - Real(0.02), 0}, tilt),
                              box(3, Real(0.5), 3), at({}), 0, m));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_depths(m, Real(0.02));
  const Real x = rotate(tilt, {Real(-0.5), Real(-0.5), 0}).x;
  EXPECT_TRUE(has_point(m, {x, Real(0.5), Real(-0.5)}));
  EXPECT_TRUE(has_point(m, {x, Real(0.5), Real(0.5)}));
}

TEST(BoxBox, CrossingEdgesGiveOnePointAlongTheCrossProductOfTheEdges) {
  // a's top edge runs along z at y = sqrt(2)/2, b's bottom edge along x; they overlap by 0.01.
  const Real half_diagonal = std::sqrt(Real(2)) / 2;
  const Transform ta = at({}, about({0, 0, 1}, 45));
  const Transform tb = at({0, 2 * half_diagonal - Real(0.01), 0}, about({1, 0, 0}, 45));
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, ta, k_unit, tb, 0, m));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});  // z x x
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  expect_vec_near(m.points[0].position, {0, half_diagonal - Real(0.01), 0});
  EXPECT_EQ(m.points[0].id.type_a, std::uint8_t(FeatureType::edge));
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(FeatureType::edge));
}

TEST(BoxBox, CornerOnFaceGivesOnePoint) {
  // Turn the unit box so its diagonal (1,1,1) points up: the corner (-,-,-) is lowest.
  const Vec3 diagonal = normalize(Vec3{1, 1, 1});
  const Quat q = Quat::from_axis_angle(normalize(cross(diagonal, {0, 1, 0})),
                                       std::acos(dot(diagonal, {0, 1, 0})));
  const Real half_diagonal = std::sqrt(Real(3)) / 2;
  Manifold m;
  ASSERT_TRUE(collide_box_box(box(2, Real(0.5), 2), at({}), k_unit,
                              at({0, Real(0.49) + half_diagonal, 0}, q), Real(0.02), m));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  expect_vec_near(m.points[0].position, {0, Real(0.49), 0});
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(FeatureType::vertex));
  EXPECT_EQ(m.points[0].id.index_b, 0);
}

TEST(BoxBox, SwappingTheBoxesFlipsTheNormalAndKeepsTheDepth) {
  const Transform cases[][2] = {
      {at({}, about({0, 0, 1}, 45)), at({0, Real(1.404), 0}, about({1, 0, 0}, 45))},
      {at({}), at({Real(0.3), Real(0.93), Real(-0.2)}, about({0, 1, 0}, 20))},
  };
  for (const auto& c : cases) {
    Manifold ab, ba;
    ASSERT_TRUE(collide_box_box(k_unit, c[0], k_unit, c[1], 0, ab));
    ASSERT_TRUE(collide_box_box(k_unit, c[1], k_unit, c[0], 0, ba));
    ASSERT_EQ(ab.count, ba.count);
    expect_vec_near(ba.normal, -ab.normal);
    for (int k = 0; k < ab.count; ++k) {
      EXPECT_NEAR(ab.points[std::size_t(k)].depth, ba.points[0].depth, k_tol);
    }
  }
}

// The overlap of two boxes' projections on unit axis n, computed from their world axes alone.
Real projected_overlap(const Box& a, const Transform& ta, const Box& b, const Transform& tb,
                       const Vec3& n) {
  const auto radius = [&](const Box& box, const Transform& t) {
    const Mat33 r = to_matrix(t.orientation);
    return box.half_extents.x * std::abs(dot(r.c0, n)) +
           box.half_extents.y * std::abs(dot(r.c1, n)) +
           box.half_extents.z * std::abs(dot(r.c2, n));
  };
  return radius(a, ta) + radius(b, tb) - std::abs(dot(tb.position - ta.position, n));
}

// Random pairs of boxes of random shapes, checked against the 15 candidate axes (the face normals
// of either box and the cross products of their edges) in the world by brute force. A pair is
// reported touching exactly when no candidate separates it (edge axes alone separate some: those
// are counted). For an overlapping pair the normal is a candidate, points from a to b, overlaps
// least within the tie tolerance that lets faces win over edges (k_relative_tolerance 5% of the
// overlap, and 1 mm), and the points are as deep as the overlap along it.
TEST(BoxBox, RandomPairsAgreeWithTheFifteenAxesByBruteForce) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<Real> unit(-1, 1), size(Real(0.2), Real(1.5));
  const auto random_pose = [&](Real spread) {
    const Vec3 axis = normalize(Vec3{unit(rng), unit(rng), unit(rng)});
    return at({spread * unit(rng), spread * unit(rng), spread * unit(rng)},
              Quat::from_axis_angle(axis, k_pi * unit(rng)));
  };
  int overlaps = 0, edge_normals = 0, edge_separated = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Box a = box(size(rng), size(rng), size(rng)), b = box(size(rng), size(rng), size(rng));
    const Transform ta = random_pose(0), tb = random_pose(Real(1.5));
    const Mat33 ra = to_matrix(ta.orientation), rb = to_matrix(tb.orientation);
    std::vector<Vec3> axes = {ra.c0, ra.c1, ra.c2, rb.c0, rb.c1, rb.c2};
    for (const Vec3& ea : {ra.c0, ra.c1, ra.c2}) {
      for (const Vec3& eb : {rb.c0, rb.c1, rb.c2}) {
        if (length(cross(ea, eb)) > Real(1e-3)) axes.push_back(normalize(cross(ea, eb)));
      }
    }
    Real least = k_infinity, least_face = k_infinity;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const Real overlap = projected_overlap(a, ta, b, tb, axes[k]);
      least = std::min(least, overlap);
      if (k < 6) least_face = std::min(least_face, overlap);
    }
    Manifold m;
    const bool touching = collide_box_box(a, ta, b, tb, 0, m);
    if (std::abs(least) <= k_tol) continue;  // touching within rounding: either answer
    ASSERT_EQ(touching, least > 0) << "trial " << trial << ", least overlap " << least;
    if (!touching) {
      if (least_face > 0) ++edge_separated;
      continue;
    }
    ++overlaps;
    bool a_candidate = false;
    for (const Vec3& n : axes)
      a_candidate = a_candidate || std::abs(std::abs(dot(n, m.normal)) - 1) < Real(1e-5);
    ASSERT_TRUE(a_candidate) << "trial " << trial;
    EXPECT_GE(dot(tb.position - ta.position, m.normal), -k_tol) << "trial " << trial;
    const Real along_normal = projected_overlap(a, ta, b, tb, m.normal);
    Real deepest = -k_infinity;
    for (int k = 0; k < m.count; ++k)
      deepest = std::max(deepest, m.points[std::size_t(k)].depth);
    // Kept unless another beats it: overlap - 5% of its overlap - 1 mm > the other's.
    EXPECT_LE(along_normal, (least + Real(0.001)) / Real(0.95) + k_tol) << "trial " << trial;
    // An edge pair's one point is as deep as the overlap; a face's clipped points are no deeper
    // (the incident box's deepest corner may lie beside the reference face, clipped away).
    bool edges = true;  // the normal is along no face's
    for (std::size_t k = 0; k < 6; ++k)
      edges = edges && std::abs(std::abs(dot(axes[k], m.normal)) - 1) > Real(1e-5);
    if (edges) {
      ++edge_normals;
      EXPECT_NEAR(deepest, along_normal, k_tol) << "trial " << trial;
    } else {
      EXPECT_LE(deepest, along_normal + k_tol) << "trial " << trial;
    }
  }
  // Every branch was exercised, not only the faces.
  EXPECT_GT(overlaps, 500);
  EXPECT_GT(edge_normals, 20);
  EXPECT_GT(edge_separated, 10);
}

// A box tipped a few degrees over the edges of another's top face: an edge pair's axis beats the
// faces' by the tolerance. Its one point would let the top box turn about it and swing its face's
// corners into the other within a step (34 mm deep in a tumbling drum); the face most nearly
// across the axis is clipped instead, its gaps measured along the axis: the deepest as deep as
// the boxes' overlap along it, none deeper, every point on b's surface.
TEST(BoxBox, AnEdgeAxisAcrossNearlyParallelFacesGivesTheClippedFace) {
  const Transform ta = at({});
  const Transform tb = at({Real(-0.5824), Real(1.013), Real(0.4889)},
                          about({1, 0, 0}, Real(-2.323)) * about({0, 0, 1}, Real(3.579)) *
                              about({0, 1, 0}, Real(23.287)));
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, ta, k_unit, tb, Real(0.02), m));
  const Mat33 rb = to_matrix(tb.orientation);
  for (const Vec3& face : {Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}, rb.c0, rb.c1, rb.c2})
    EXPECT_LT(std::abs(dot(face, m.normal)), Real(0.9999));  // no face's normal: the edges'
  EXPECT_EQ(m.normal_face, NormalFace::none);
  EXPECT_GE(m.count, 2);
  const Real overlap = projected_overlap(k_unit, ta, k_unit, tb, m.normal);
  Real deepest = -k_infinity;
  for (int k = 0; k < m.count; ++k) {
    const ContactPoint& p = m.points[std::size_t(k)];
    deepest = std::max(deepest, p.depth);
    const Vec3 local = apply_inverse(tb, p.position);
    const Real reach = std::max({std::abs(local.x), std::abs(local.y), std::abs(local.z)});
    EXPECT_NEAR(reach, Real(0.5), k_tol) << "point " << k << " is not on b's surface";
  }
  EXPECT_NEAR(deepest, overlap, k_tol);
}

// The crossing edges of CrossingEdgesGiveOnePointAlongTheCrossProductOfTheEdges 1 cm apart: only
// the edges' cross product separates them.
TEST(BoxBox, EdgesOneCentimetreApartGiveNoPoints) {
  const Real half_diagonal = std::sqrt(Real(2)) / 2;
  const Transform ta = at({}, about({0, 0, 1}, 45));
  const Transform tb = at({0, 2 * half_diagonal + Real(0.01), 0}, about({1, 0, 0}, 45));
  Manifold m;
  EXPECT_FALSE(collide_box_box(k_unit, ta, k_unit, tb, 0, m));
  EXPECT_EQ(m.count, 0);
  // Within a 2 cm margin they are a speculative contact 1 cm apart.
  ASSERT_TRUE(collide_box_box(k_unit, ta, k_unit, tb, Real(0.02), m));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, Real(-0.01), k_tol);
  expect_vec_near(m.normal, {0, 1, 0});
}

// A box beside another's edge: the x face axis separates them most (0.2 m), but b's incident face
// lies wholly above a's +x face, so clipping it leaves nothing. The pair's nearest features are
// the two parallel edges 0.2 m across and 0.05 m up: within a margin that reaches them, one point
// on b's edge along the line between them (before, no point: the next step could find the boxes
// deep in each other).
TEST(BoxBox, ABoxBesideAnothersEdgeWithinTheMarginGetsItsNearestPoint) {
  const Transform ta = at({}), tb = at({Real(1.2), Real(1.05), 0});
  const Real gap = std::sqrt(Real(0.2 * 0.2 + 0.05 * 0.05));
  Manifold m;
  EXPECT_FALSE(collide_box_box(k_unit, ta, k_unit, tb, Real(0.2), m));  // the edges are 0.206 apart
  ASSERT_TRUE(collide_box_box(k_unit, ta, k_unit, tb, Real(0.25), m));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, Vec3{Real(0.2), Real(0.05), 0} / gap);
  EXPECT_EQ(m.normal_face, NormalFace::none);
  EXPECT_NEAR(m.points[0].depth, -gap, k_tol);
  const Vec3& p = m.points[0].position;  // on b's lower edge along z at x 0.7, y 0.55
  EXPECT_NEAR(p.x, Real(0.7), k_tol);
  EXPECT_NEAR(p.y, Real(0.55), k_tol);
  EXPECT_LE(std::abs(p.z), Real(0.5) + k_tol);
  EXPECT_EQ(m.points[0].id.type_a, std::uint8_t(FeatureType::edge));
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(FeatureType::edge));
  // Seen from b, the same gap and the normal the other way.
  Manifold swapped;
  ASSERT_TRUE(collide_box_box(k_unit, tb, k_unit, ta, Real(0.25), swapped));
  ASSERT_EQ(swapped.count, 1);
  expect_vec_near(swapped.normal, -m.normal);
  EXPECT_NEAR(swapped.points[0].depth, -gap, k_tol);
}

// Corner to corner along the diagonal: each face axis separates them by 0.1 m and no face clip
// reaches the other box. The corners' line is the normal.
TEST(BoxBox, BoxesCornerToCornerGetTheCornersLine) {
  const Transform ta = at({}), tb = at({Real(1.1), Real(1.1), Real(1.1)});
  Manifold m;
  ASSERT_TRUE(collide_box_box(k_unit, ta, k_unit, tb, Real(0.5), m));
  ASSERT_EQ(m.count, 1);
  const Vec3 a_corner{Real(0.5), Real(0.5), Real(0.5)};
  const Vec3 b_corner{Real(0.6), Real(0.6), Real(0.6)};
  expect_vec_near(m.normal, normalize(b_corner - a_corner));
  EXPECT_NEAR(m.points[0].depth, -distance(a_corner, b_corner), k_tol);
  expect_vec_near(m.points[0].position, b_corner);
}

TEST(BoxBox, RestingBoxKeepsItsIdsUnderJitter) {
  const Box ground = box(5, Real(0.5), 5);
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> jitter(-1, 1);
  Manifold m;
  ASSERT_TRUE(
      collide_box_box(ground, at({}), k_unit, at({Real(0.3), Real(0.99), Real(-0.2)}), 0, m));
  ASSERT_EQ(m.count, 4);
  const std::vector<std::uint64_t> first = sorted_keys(m);
  EXPECT_TRUE(ids_distinct(m));
  for (int call = 0; call < 100; ++call) {
    const Vec3 dp = Real(1e-4) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
    const Vec3 dr = Real(1e-3) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
    ASSERT_TRUE(collide_box_box(
        ground, at({}), k_unit,
        at(Vec3{Real(0.3), Real(0.99), Real(-0.2)} + dp, Quat::from_rotation_vector(dr)), 0, m));
    ASSERT_EQ(m.count, 4);
    EXPECT_EQ(sorted_keys(m), first) << "call " << call;
  }
}

TEST(BoxBox, BoxTurningAboutTheNormalKeepsItsIds) {
  const Box ground = box(5, Real(0.5), 5);
  std::vector<std::uint64_t> first;
  for (int deg = 0; deg < 30; ++deg) {
    Manifold m;
    ASSERT_TRUE(collide_box_box(
        ground, at({}), k_unit,
        at({Real(0.3), Real(0.99), Real(-0.2)}, about({0, 1, 0}, Real(deg))), 0, m));
    ASSERT_EQ(m.count, 4);
    EXPECT_TRUE(ids_distinct(m));
    if (deg == 0) first = sorted_keys(m);
    EXPECT_EQ(sorted_keys(m), first) << deg << " degrees";
  }
}

TEST(BoxBox, ClippedPointsKeepTheirIdsWhileTheBoxTurns) {
  // b hangs over a's +x edge: two points are b's corners, two come from clipping b's edges
  // against a's side edge; the same edges cross for the whole turn.
  const Box slab = box(1, Real(0.5), 1);
  std::vector<std::uint64_t> first;
  for (int deg = 0; deg < 30; ++deg) {
    Manifold m;
    ASSERT_TRUE(collide_box_box(slab, at({}), k_unit,
                                at({1, Real(0.99), 0}, about({0, 1, 0}, Real(deg))), 0, m));
    ASSERT_EQ(m.count, 4);
    expect_depths(m, Real(0.01));
    EXPECT_TRUE(ids_distinct(m));
    int clipped = 0;
    for (int k = 0; k < m.count; ++k) {
      clipped += m.points[std::size_t(k)].id.type_a == std::uint8_t(FeatureType::edge);
    }
    EXPECT_EQ(clipped, 2);
    if (deg == 0) first = sorted_keys(m);
    EXPECT_EQ(sorted_keys(m), first) << deg << " degrees";
  }
}

ContactPoint candidate(Real x, Real z, Real depth, std::uint8_t index) {
  return {{x, 0, z}, depth, {std::uint8_t(FeatureType::vertex), index, 0, 0}};
}

TEST(ManifoldReduction, KeepsAllCandidatesWhenFourOrFewer) {
  const ContactPoint c[3] = {candidate(0, 0, Real(0.1), 0), candidate(1, 0, Real(0.2), 1),
                             candidate(0, 1, Real(0.3), 2)};
  Manifold m;
  m.count = 2;  // stale content is replaced
  reduce_manifold(c, {0, 1, 0}, m);
  ASSERT_EQ(m.count, 3);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(m.points[std::size_t(k)].id, c[k].id);
  expect_vec_near(m.normal, {0, 1, 0});
}

TEST(ManifoldReduction, KeepsTheDeepestThenTheLargestArea) {
  // A regular octagon (one corner deeper) with two points inside it: the result is the deepest
  // corner and the square through it, the largest quadrilateral on the corners.
  std::vector<ContactPoint> c;
  for (int k = 0; k < 8; ++k) {
    const Real angle = k_pi / 4 * Real(k);
    c.push_back(candidate(std::cos(angle), std::sin(angle), k == 3 ? Real(0.2) : Real(0.1),
                          std::uint8_t(k)));
  }
  c.push_back(candidate(Real(0.1), Real(0.2), Real(0.15), 8));
  c.push_back(candidate(Real(-0.3), 0, Real(0.12), 9));
  Manifold m;
  reduce_manifold(c, {0, 1, 0}, m);
  ASSERT_EQ(m.count, 4);
  std::set<int> kept;
  for (int k = 0; k < 4; ++k)
    kept.insert(m.points[std::size_t(k)].id.index_a);
  EXPECT_EQ(kept, (std::set<int>{1, 3, 5, 7}));
  EXPECT_NEAR(area_in_xz(positions(m)), 2, k_tol);
}

TEST(ManifoldReduction, CollinearCandidatesKeepTheDeepestAndTheFarthest) {
  std::vector<ContactPoint> c;
  for (int k = 0; k < 6; ++k) {
    c.push_back(candidate(Real(k), 0, k == 2 ? Real(0.3) : Real(0.1), std::uint8_t(k)));
  }
  Manifold m;
  reduce_manifold(c, {0, 1, 0}, m);
  ASSERT_EQ(m.count, 2);
  EXPECT_EQ(m.points[0].id.index_a, 2);
  EXPECT_EQ(m.points[1].id.index_a, 5);
}

}  // namespace
}  // namespace impulse
