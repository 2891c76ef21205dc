#include "collision/polyhedron.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "collision/box_box.h"
#include "collision/convex_hull.h"
#include "collision/primitives.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::box_corners;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-4);
constexpr Real k_margin = Real(0.1);
constexpr FeatureType k_vertex = FeatureType::vertex;
constexpr FeatureType k_edge = FeatureType::edge;
constexpr FeatureType k_face = FeatureType::face;

// --- shapes ----------------------------------------------------------------------------------

// A regular tetrahedron of edge 2 with a top edge along y at z = +h and a bottom edge along x at
// z = -h, h = 1 / sqrt(2); turned so that z becomes y when `upright`.
std::vector<Vec3> tetrahedron() {
  const Real h = std::sqrt(Real(0.5));
  return {{1, 0, -h}, {-1, 0, -h}, {0, 1, h}, {0, -1, h}};
}

std::vector<Vec3> octahedron(Real r) {
  return {{r, 0, 0}, {-r, 0, 0}, {0, r, 0}, {0, -r, 0}, {0, 0, r}, {0, 0, -r}};
}

// A prism of `sides` sides about y (a cylinder approximation): corners at radius r, y = +-h.
std::vector<Vec3> prism(int sides, Real r, Real h) {
  std::vector<Vec3> points;
  for (int i = 0; i < sides; ++i) {
    const Real angle = 2 * k_pi * Real(i) / Real(sides);
    for (const Real y : {-h, h}) {
      points.push_back({r * std::cos(angle), y, r * std::sin(angle)});
    }
  }
  return points;
}

std::vector<Vec3> random_on_sphere(std::mt19937& rng, int count, Real r) {
  std::normal_distribution<Real> normal;
  std::vector<Vec3> points;
  for (int i = 0; i < count; ++i) {
    points.push_back(r * normalize(Vec3{normal(rng), normal(rng), normal(rng)}));
  }
  return points;
}

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<Real> normal;
  return normalize(Quat{normal(rng), normal(rng), normal(rng), normal(rng)});
}

Box box(Real hx, Real hy, Real hz) {
  return Box{{hx, hy, hz}};
}
const Box k_unit = box(Real(0.5), Real(0.5), Real(0.5));

// --- checks ----------------------------------------------------------------------------------

std::vector<Vec3> world_vertices(const PolyhedronView& p, const Transform& t) {
  std::vector<Vec3> points;
  for (const Vec3& v : p.vertices) {
    points.push_back(apply(t, v));
  }
  return points;
}

// Gap between the projections on n of points a (below) and b (above): < 0 when they overlap.
Real separation_along(const std::vector<Vec3>& a, const std::vector<Vec3>& b, const Vec3& n) {
  Real max_a = -k_infinity, min_b = k_infinity;
  for (const Vec3& v : a) {
    max_a = std::max(max_a, dot(n, v));
  }
  for (const Vec3& v : b) {
    min_b = std::min(min_b, dot(n, v));
  }
  return min_b - max_a;
}

Real separation_along(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                      const Transform& tb, const Vec3& n) {
  return separation_along(world_vertices(a, ta), world_vertices(b, tb), n);
}

// The separation of a and b found by trying every face normal and every edge cross product,
// without pruning: the oracle for the pruned test. best_axis, if given, receives the axis (from a
// to b) that separates them most.
Real brute_force_separation(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                            const Transform& tb, Vec3* best_axis = nullptr) {
  std::vector<Vec3> axes;
  for (const PolyFace& f : a.faces) {
    axes.push_back(rotate(ta.orientation, f.normal));
  }
  for (const PolyFace& f : b.faces) {
    axes.push_back(rotate(tb.orientation, f.normal));
  }
  for (const PolyEdge& ea : a.edges) {
    const Vec3 da = rotate(ta.orientation, a.vertices[ea.vertices[1]] - a.vertices[ea.vertices[0]]);
    for (const PolyEdge& eb : b.edges) {
      const Vec3 db =
          rotate(tb.orientation, b.vertices[eb.vertices[1]] - b.vertices[eb.vertices[0]]);
      const Vec3 c = cross(da, db);
      if (length(c) > Real(1e-3) * length(da) * length(db)) axes.push_back(normalize(c));
    }
  }
  const std::vector<Vec3> va = world_vertices(a, ta);
  const std::vector<Vec3> vb = world_vertices(b, tb);
  Real best = -k_infinity;
  for (const Vec3& n : axes) {
    for (const Vec3& m : {n, -n}) {
      const Real along = separation_along(va, vb, m);
      if (along <= best) continue;
      best = along;
      if (best_axis != nullptr) *best_axis = m;
    }
  }
  return best;
}

// Whether x lies on p's surface: on one face's plane, inside its polygon, and behind the others.
bool on_surface(const PolyhedronView& p, const Transform& t, const Vec3& world,
                Real tol = Real(1e-4)) {
  const Vec3 x = apply_inverse(t, world);
  bool on_a_face = false;
  for (const PolyFace& f : p.faces) {
    const Real h = dot(f.normal, x) - f.offset;
    if (h > tol) return false;
    if (h < -tol) continue;
    bool inside = true;
    for (std::uint32_t i = 0; i < f.count; ++i) {
      const Vec3& u = p.vertices[p.face_vertices[f.first + i]];
      const Vec3& w = p.vertices[p.face_vertices[f.first + (i + 1) % f.count]];
      inside = inside && dot(cross(w - u, f.normal), x - u) <= tol * length(w - u);
    }
    on_a_face = on_a_face || inside;
  }
  return on_a_face;
}

void expect_points_on(const PolyhedronView& b, const Transform& tb, const Manifold& m) {
  for (int k = 0; k < m.count; ++k) {
    EXPECT_TRUE(on_surface(b, tb, m.points[std::size_t(k)].position))
        << "point " << k << " is not on b's surface";
  }
}

void expect_depths(const Manifold& m, Real depth) {
  for (int k = 0; k < m.count; ++k) {
    EXPECT_NEAR(m.points[std::size_t(k)].depth, depth, k_tol);
  }
}

bool has_point(const Manifold& m, const Vec3& p) {
  for (int k = 0; k < m.count; ++k) {
    if (distance(m.points[std::size_t(k)].position, p) < k_tol) return true;
  }
  return false;
}

std::vector<std::uint64_t> sorted_keys(const Manifold& m) {
  std::vector<std::uint64_t> keys;
  for (int k = 0; k < m.count; ++k) {
    keys.push_back(m.points[std::size_t(k)].id.key());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<Real> sorted_depths(const Manifold& m) {
  std::vector<Real> depths;
  for (int k = 0; k < m.count; ++k) {
    depths.push_back(m.points[std::size_t(k)].depth);
  }
  std::sort(depths.begin(), depths.end());
  return depths;
}

bool ids_distinct(const Manifold& m) {
  const std::vector<std::uint64_t> keys = sorted_keys(m);
  return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

FeatureId id(FeatureType ta, std::uint32_t ia, FeatureType tb, std::uint32_t ib) {
  return {std::uint8_t(ta), ia, std::uint8_t(tb), ib};
}

// Checks that a view is a closed convex polyhedron in PolyhedronView's conventions.
void expect_consistent(const PolyhedronView& p) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> face_of;  // directed edge
  for (std::uint32_t f = 0; f < p.faces.size(); ++f) {
    const PolyFace& face = p.faces[f];
    for (std::uint32_t i = 0; i < face.count; ++i) {
      const std::uint32_t u = p.face_vertices[face.first + i];
      const std::uint32_t w = p.face_vertices[face.first + (i + 1) % face.count];
      const std::uint32_t x = p.face_vertices[face.first + (i + 2) % face.count];
      EXPECT_NEAR(dot(face.normal, p.vertices[u]), face.offset, k_tol);
      EXPECT_GT(
          dot(cross(p.vertices[w] - p.vertices[u], p.vertices[x] - p.vertices[w]), face.normal), 0)
          << "face " << f << " is not counter-clockwise from outside";
      face_of[{u, w}] = f;
    }
  }
  for (const PolyEdge& e : p.edges) {
    EXPECT_EQ(face_of.at({e.vertices[0], e.vertices[1]}), e.faces[0]);
    EXPECT_EQ(face_of.at({e.vertices[1], e.vertices[0]}), e.faces[1]);
  }
  EXPECT_EQ(face_of.size(), 2 * p.edges.size());
}

// --- views -----------------------------------------------------------------------------------

TEST(PolyhedronView, SupportIndexIsTheFarthestVertex) {
  const BoxPolyhedron b(box(1, 2, 3));
  EXPECT_EQ(b.view().support_index({1, 1, 1}), 7u);
  EXPECT_EQ(b.view().support_index({-1, Real(0.1), -1}), 2u);
  EXPECT_EQ(b.view().support({1, -1, 1}), (Vec3{1, -2, 3}));
}

TEST(BoxPolyhedron, NumbersFeaturesAsBoxBoxDoes) {
  const Vec3 h{1, 2, 3};
  const BoxPolyhedron b(Box{h});
  const PolyhedronView v = b.view();
  expect_consistent(v);
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(v.vertices[i], box_corners(h)[i]);
  }
  for (int k = 0; k < 3; ++k) {
    Vec3 n = Vec3::zero();
    n[k] = 1;
    EXPECT_EQ(v.faces[std::size_t(2 * k)].normal, n);
    EXPECT_EQ(v.faces[std::size_t(2 * k + 1)].normal, -n);
    for (std::uint32_t b1 = 0; b1 < 2; ++b1) {
      for (std::uint32_t b2 = 0; b2 < 2; ++b2) {
        const PolyEdge& e = v.edges[std::size_t(4 * k) + b1 + 2 * b2];
        const std::uint32_t base = b1 << ((k + 1) % 3) | b2 << ((k + 2) % 3);
        EXPECT_EQ(e.vertices[0], base);
        EXPECT_EQ(e.vertices[1], base | 1u << k);
      }
    }
  }
}

TEST(TrianglePolyhedron, IsFlatWithOppositeFacesAndThreeEdges) {
  const TrianglePolyhedron t({0, 0, 0}, {1, 0, 0}, {0, 0, -1});
  const PolyhedronView v = t.view();
  expect_consistent(v);
  expect_vec_near(v.faces[0].normal, {0, 1, 0});
  EXPECT_EQ(v.faces[1].normal, -v.faces[0].normal);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(v.edges[i].vertices[0], i);
    EXPECT_EQ(v.edges[i].vertices[1], (i + 1) % 3);
  }
}

// --- polyhedron-polyhedron: checked against oracles -----------------------------------------

// Four shapes of every kind the routine reads (two random hulls, a box, a flat triangle), the
// hulls drawn from rng; trial k pairs shapes k % 4 and (k / 4) % 4.
struct RandomShapes {
  explicit RandomShapes(std::mt19937& rng)
      : blob(build_convex_hull(random_on_sphere(rng, 20, Real(0.8)))),
        rock(build_convex_hull(random_on_sphere(rng, 12, Real(0.6)))) {}
  std::array<PolyhedronView, 4> views() const {
    return {blob.view(), rock.view(), slab.view(), tri.view()};
  }

  HullData blob, rock;
  BoxPolyhedron slab{box(Real(0.9), Real(0.3), Real(0.6))};
  TrianglePolyhedron tri{{-1, 0, -1}, {1, Real(0.2), 0}, {Real(-0.5), Real(-0.1), 1}};
};

TEST(Polyhedra, NormalIsTheAxisOfLeastSeparationOnRandomHulls) {
  // The pruned test must find what trying every axis finds: within its face-preferring tolerance
  // when they overlap, and no contact exactly when they are apart by more than the margin.
  std::mt19937 rng(11);
  std::uniform_real_distribution<Real> offset(Real(-1.6), Real(1.6));
  const RandomShapes random_shapes(rng);
  const std::array<PolyhedronView, 4> shapes = random_shapes.views();
  int contacts = 0, edge_contacts = 0, nearest = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    const PolyhedronView& a = shapes[trial % 4];
    const PolyhedronView& b = shapes[(trial / 4) % 4];
    const Transform ta = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    const Transform tb = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    const Real truth = brute_force_separation(a, ta, b, tb);
    Manifold m;
    const bool hit = collide_polyhedra(a, ta, b, tb, k_margin, m);
    if (std::abs(truth - k_margin) < Real(1e-4)) continue;  // too close to call in float
    EXPECT_EQ(hit, m.count > 0);
    if (truth > k_margin) {
      EXPECT_FALSE(hit) << "trial " << trial;
      continue;
    }
    if (!hit) continue;  // the chosen face's clipped points may all lie beyond the margin
    ++contacts;
    edge_contacts += m.count == 1 && m.points[0].id.type_a == std::uint8_t(k_edge);
    EXPECT_NEAR(length(m.normal), 1, k_tol);
    const Real along = separation_along(a, ta, b, tb, m.normal);
    // A pair apart whose face clip found nothing gets its nearest features' point, apart along
    // its line by their distance, which may exceed every candidate axis's separation (corners
    // and edges off each other's faces).
    const bool nearest_features =
        m.count == 1 && m.points[0].depth < 0 && std::abs(along + m.points[0].depth) < k_tol;
    nearest += nearest_features;
    if (nearest_features) {
      EXPECT_GE(along, truth - k_tol) << "trial " << trial;
    } else {
      EXPECT_LE(along, truth + k_tol) << "trial " << trial;
    }
    EXPECT_GE(along, truth - Real(0.05) * std::abs(truth) - Real(0.0011)) << "trial " << trial;
    expect_points_on(b, tb, m);
  }
  EXPECT_GT(contacts, 200);
  EXPECT_GT(edge_contacts, 10);
  EXPECT_GT(nearest, 0);
}

// closest_feature_contact on random pairs apart: certified by its own answer. Its point lies on
// b, the point a distance back along the normal lies on a, and the pair is apart along the
// normal by that distance: no pair of points can be nearer, so it is the distance exactly. In
// float a corner beside an edge's end ties with that edge (their distances differ below the
// rounding) while their lines differ by up to sqrt(epsilon), 3e-4 rad: the separation along a
// few normals falls short by that angle times the shapes' size.
TEST(Polyhedra, NearestFeaturesOfPairsApartAreTheirDistanceExactly) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<Real> offset(Real(-2), Real(2));
  const RandomShapes random_shapes(rng);
  const std::array<PolyhedronView, 4> shapes = random_shapes.views();
  int apart = 0, ties = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const PolyhedronView& a = shapes[trial % 4];
    const PolyhedronView& b = shapes[(trial / 4) % 4];
    const Transform ta = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    const Transform tb = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    Vec3 axis;
    const Real separation = brute_force_separation(a, ta, b, tb, &axis);
    if (separation < Real(1e-3)) continue;
    ++apart;
    Manifold m;
    ASSERT_TRUE(closest_feature_contact(a, ta, b, tb, axis, 10, m)) << "trial " << trial;
    ASSERT_EQ(m.count, 1);
    const Real distance = -m.points[0].depth;
    EXPECT_GE(distance, separation - k_tol) << "trial " << trial;
    EXPECT_NEAR(length(m.normal), 1, k_tol);
    const Real shortfall = distance - separation_along(a, ta, b, tb, m.normal);
    EXPECT_GE(shortfall, -k_tol) << "trial " << trial;
    EXPECT_LE(shortfall, Real(1e-3)) << "trial " << trial;
    ties += shortfall > k_tol;
    expect_points_on(b, tb, m);
    EXPECT_TRUE(on_surface(a, ta, m.points[0].position - distance * m.normal)) << "trial " << trial;
    // The margin decides: a little short of the distance, nothing.
    EXPECT_FALSE(closest_feature_contact(a, ta, b, tb, axis, distance - Real(1e-3), m));
    EXPECT_TRUE(closest_feature_contact(a, ta, b, tb, axis, distance + Real(1e-3), m));
  }
  EXPECT_GT(apart, 500);
  EXPECT_LE(ties, apart / 100);
}

// BoxBox.AnEdgeAxisAcrossNearlyParallelFacesGivesTheClippedFace's pose: a hull clips the face
// most nearly across the winning edge axis as collide_box_box does.
TEST(Polyhedra, AnEdgeAxisAcrossNearlyParallelFacesGivesWhatCollideBoxBoxGives) {
  const Transform ta = at({});
  const Transform tb = at({Real(-0.5824), Real(1.013), Real(0.4889)},
                          about({1, 0, 0}, Real(-2.323)) * about({0, 0, 1}, Real(3.579)) *
                              about({0, 1, 0}, Real(23.287)));
  Manifold expected, got;
  ASSERT_TRUE(collide_box_box(k_unit, ta, k_unit, tb, k_margin, expected));
  ASSERT_GE(expected.count, 2);
  const HullData hull = build_convex_hull(box_corners(k_unit.half_extents));
  ASSERT_TRUE(collide_polyhedra(hull.view(), ta, hull.view(), tb, k_margin, got));
  ASSERT_EQ(got.count, expected.count);
  expect_vec_near(got.normal, expected.normal);
  EXPECT_EQ(got.normal_face, NormalFace::none);
  const std::vector<Real> want = sorted_depths(expected), have = sorted_depths(got);
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_NEAR(have[k], want[k], k_tol);
}

TEST(Polyhedra, BoxesGiveWhatCollideBoxBoxGivesOnRandomPoses) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> size(Real(0.2), Real(1));
  std::uniform_real_distribution<Real> offset(Real(-1.2), Real(1.2));
  int contacts = 0, near_ties = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Box ba = box(size(rng), size(rng), size(rng));
    const Box bb = box(size(rng), size(rng), size(rng));
    const Transform ta = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    const Transform tb = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    Manifold expected, got, from_hull;
    const bool hit = collide_box_box(ba, ta, bb, tb, k_margin, expected);
    const BoxPolyhedron pa(ba), pb(bb);
    const HullData hb = build_convex_hull(box_corners(bb.half_extents));
    EXPECT_EQ(collide_polyhedra(pa.view(), ta, pb.view(), tb, k_margin, got), hit);
    EXPECT_EQ(collide_polyhedra(pa.view(), ta, hb.view(), tb, k_margin, from_hull), hit);
    if (!hit) continue;
    ++contacts;
    for (const Manifold* m : {&got, &from_hull}) {
      ASSERT_EQ(m->count, expected.count) << "trial " << trial;
      expect_vec_near(m->normal, expected.normal);
      EXPECT_NEAR(sorted_depths(*m).back(), sorted_depths(expected).back(), k_tol);
    }
    // The box numbering is box_box's, so the ids agree too. Only when more than four candidates
    // are reduced can a near tie in the greedy choice (the candidates come in another order)
    // keep other points: rarely, and the deepest point is kept all the same.
    if (sorted_keys(got) != sorted_keys(expected)) {
      ++near_ties;
      EXPECT_EQ(got.count, 4);
    } else {
      const std::vector<Real> want = sorted_depths(expected);
      const std::vector<Real> have = sorted_depths(got);
      for (std::size_t k = 0; k < want.size(); ++k) {
        EXPECT_NEAR(have[k], want[k], k_tol) << "trial " << trial;
      }
    }
  }
  EXPECT_GT(contacts, 300);
  EXPECT_LE(near_ties, contacts / 100);
}

// --- polyhedron-polyhedron: analytic configurations -----------------------------------------

HullData hull(const std::vector<Vec3>& points) {
  return build_convex_hull(points);
}

const HullData k_cube = hull(box_corners({Real(0.5), Real(0.5), Real(0.5)}));
const Real k_h = std::sqrt(Real(0.5));  // the tetrahedron's half height

Manifold polyhedra(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                   const Transform& tb, Real margin, bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_polyhedra(a, ta, b, tb, margin, m);
  if (hit) *hit = h;
  EXPECT_EQ(h, m.count > 0);
  expect_points_on(b, tb, m);
  return m;
}

TEST(Polyhedra, SeparatedHullsGiveNoPointsBeyondTheMarginAndNegativeDepthWithinIt) {
  bool hit = true;
  polyhedra(k_cube.view(), at({}), k_cube.view(), at({0, Real(1.2), 0}), Real(0.1), &hit);
  EXPECT_FALSE(hit);
  const Manifold m =
      polyhedra(k_cube.view(), at({}), k_cube.view(), at({0, Real(1.2), 0}), Real(0.3), &hit);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(-0.2));
}

TEST(Polyhedra, TouchingShallowAndDeepParallelFacesGiveFourCornersAtExactDepth) {
  for (const Real depth : {Real(0), Real(0.01), Real(0.4)}) {
    const Manifold m = polyhedra(k_cube.view(), at({}), k_cube.view(), at({0, 1 - depth, 0}), 0);
    ASSERT_EQ(m.count, 4);
    expect_vec_near(m.normal, {0, 1, 0});
    expect_depths(m, depth);
    for (const Real x : {Real(-0.5), Real(0.5)}) {
      for (const Real z : {Real(-0.5), Real(0.5)}) {
        EXPECT_TRUE(has_point(m, {x, Real(0.5) - depth, z}));
      }
    }
    EXPECT_TRUE(ids_distinct(m));
  }
}

TEST(Polyhedra, HullTurned45DegreesReducesTheOctagonToFourOfItsCorners) {
  const HullData slab = hull(box_corners({1, Real(0.5), 1}));
  const Manifold m =
      polyhedra(slab.view(), at({}), slab.view(), at({0, Real(0.9), 0}, about({0, 1, 0}, 45)), 0);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.1));
  const Real cut = std::sqrt(Real(2)) - 1;
  for (int k = 0; k < 4; ++k) {
    const Vec3& p = m.points[std::size_t(k)].position;
    EXPECT_NEAR(std::max(std::abs(p.x), std::abs(p.z)), 1, k_tol);
    EXPECT_NEAR(std::min(std::abs(p.x), std::abs(p.z)), cut, k_tol);
  }
  EXPECT_TRUE(ids_distinct(m));
}

TEST(Polyhedra, CrossingTetrahedronEdgesGiveOnePointAtExactDepth) {
  // a's top edge runs along y at z = h, b's bottom edge along x at z = h - 0.01.
  const HullData tet = hull(tetrahedron());
  const Manifold m = polyhedra(tet.view(), at({}), tet.view(), at({0, 0, 2 * k_h - Real(0.01)}), 0);
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 0, 1});
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  expect_vec_near(m.points[0].position, {0, 0, k_h - Real(0.01)});
  EXPECT_EQ(m.points[0].id.type_a, std::uint8_t(k_edge));
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(k_edge));

  const Manifold swapped =
      polyhedra(tet.view(), at({0, 0, 2 * k_h - Real(0.01)}), tet.view(), at({}), 0);
  ASSERT_EQ(swapped.count, 1);
  expect_vec_near(swapped.normal, {0, 0, -1});
  EXPECT_NEAR(swapped.points[0].depth, Real(0.01), k_tol);
}

TEST(Polyhedra, TetrahedronFaceDownOnABoxGivesItsThreeCorners) {
  const HullData tet = hull({{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0, 1, 0}});
  const BoxPolyhedron ground(box(2, Real(0.5), 2));
  const Manifold m =
      polyhedra(ground.view(), at({}), tet.view(), at({Real(0.2), Real(0.49), 0}), 0);
  ASSERT_EQ(m.count, 3);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.01));
  EXPECT_TRUE(has_point(m, {Real(1.2), Real(0.49), 0}));
  EXPECT_TRUE(has_point(m, {Real(0.2), Real(0.49), 1}));
}

TEST(Polyhedra, OctahedronCornerDownGivesOnePointNamedByTheFaceAndTheCorner) {
  const HullData oct = hull(octahedron(1));
  const BoxPolyhedron ground(box(2, Real(0.5), 2));
  const Manifold m =
      polyhedra(ground.view(), at({}), oct.view(), at({0, Real(1.49), 0}), Real(0.05));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  expect_vec_near(m.points[0].position, {0, Real(0.49), 0});
  EXPECT_EQ(m.points[0].id, id(k_face, 2, k_vertex, 3));  // box's +y face, octahedron's -y corner
}

TEST(Polyhedra, CylinderStandingOnABoxGivesFourPointsOnItsRim) {
  const BoxPolyhedron ground(box(2, Real(0.5), 2));
  for (const int sides : {16, 48}) {  // 48 corners are more than an outline holds
    const HullData cylinder = hull(prism(sides, Real(0.5), Real(0.5)));
    const Manifold m =
        polyhedra(ground.view(), at({}), cylinder.view(), at({Real(0.3), Real(0.98), 0}), 0);
    ASSERT_EQ(m.count, 4) << sides;
    expect_vec_near(m.normal, {0, 1, 0});
    expect_depths(m, Real(0.02));
    for (int k = 0; k < 4; ++k) {
      const Vec3& p = m.points[std::size_t(k)].position;
      EXPECT_NEAR(std::hypot(p.x - Real(0.3), p.z), Real(0.5), k_tol) << sides;
    }
    EXPECT_TRUE(ids_distinct(m));
  }
}

TEST(Polyhedra, CylinderLyingOnABoxGivesTheFourCornersOfItsLowestSide) {
  const BoxPolyhedron ground(box(2, Real(0.5), 2));
  const HullData cylinder = hull(prism(16, Real(0.5), Real(0.7)));
  // Lying along z, turned about its axis so that one side faces straight down.
  const Quat q = about({1, 0, 0}, 90) * about({0, 1, 0}, Real(360) / 32);
  Real lowest = k_infinity;
  for (const Vec3& v : cylinder.vertices) {
    lowest = std::min(lowest, rotate(q, v).y);
  }
  const Manifold m = polyhedra(ground.view(), at({}), cylinder.view(),
                               at({0, Real(0.5) - lowest - Real(0.03), 0}, q), 0);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.03));
}

// A needle's faces are slivers, and its face most anti-parallel to the ground's may lie at the end
// that touches least: the manifold must still hold its deepest corner and its far end, or they
// sink through unseen (of 400 needles like these dropped on a box, 123 fell through the ground).
TEST(Polyhedra, NeedleLyingOnABoxAlwaysHasItsDeepestCornerAndBothEndsInTheManifold) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> unit(-1, 1);
  const BoxPolyhedron ground(box(50, Real(0.5), 50));
  int missed_before = 0;  // poses whose most anti-parallel face lacks the deepest corner
  for (int trial = 0; trial < 300; ++trial) {
    // 2 m long, 2 mm thick: its ends, then points along it.
    std::vector<Vec3> points;
    for (int k = 0; k < 12; ++k) {
      const Real x = k < 4 ? (k < 2 ? -1 : 1) : unit(rng);
      points.push_back({x, Real(0.001) * unit(rng), Real(0.001) * unit(rng)});
    }
    const HullData needle = hull(points);
    // Lying within 0.6 degrees of flat, turned about its length, its lowest corner 0 to 2 cm deep.
    const Quat q = about({0, 1, 0}, 180 * unit(rng)) * about({0, 0, 1}, Real(0.6) * unit(rng)) *
                   about({1, 0, 0}, 180 * unit(rng));
    Real lowest = k_infinity;
    for (const Vec3& v : needle.vertices)
      lowest = std::min(lowest, rotate(q, v).y);
    const Real depth = Real(0.01) * (1 + unit(rng));
    const Transform pose = at({0, Real(0.5) - lowest - depth, 0}, q);
    const PolyhedronView view = needle.view();
    const std::uint32_t deepest = view.support_index(inverse_rotate(q, {0, -1, 0}));
    const PolyFace& incident = view.faces[view.face_along(inverse_rotate(q, {0, -1, 0}))];
    bool on_incident = false;
    for (std::uint32_t c = 0; c < incident.count; ++c)
      on_incident = on_incident || view.face_vertices[incident.first + c] == deepest;
    missed_before += on_incident ? 0 : 1;
    const Manifold m = polyhedra(ground.view(), at({}), view, pose, k_margin);
    ASSERT_GT(m.count, 0) << trial;
    expect_vec_near(m.normal, {0, 1, 0});
    Real deepest_point = -k_infinity;
    for (int k = 0; k < m.count; ++k)
      deepest_point = std::max(deepest_point, m.points[std::size_t(k)].depth);
    // Within the tolerance by which a corner must be deeper than the clipped face to join it.
    EXPECT_LE(deepest_point, depth + k_tol) << "trial " << trial;
    EXPECT_GE(deepest_point, depth - Real(0.0011)) << "trial " << trial;
    // Its points span at least half of it: the ends lie within the margin.
    Real longest = 0;
    for (int i = 0; i < m.count; ++i) {
      for (int j = 0; j < i; ++j) {
        const Vec3 d = m.points[std::size_t(i)].position - m.points[std::size_t(j)].position;
        longest = std::max(longest, std::hypot(d.x, d.z));
      }
    }
    EXPECT_GT(longest, Real(0.9)) << "trial " << trial;
  }
  EXPECT_GT(missed_before, 30);  // the case the test is for
}

// A plate 4 mm thick whose bottom is four facets tilted a quarter of a degree from its middle
// corner, lying on a box tilted a little about z: the face most anti-parallel to the box's is one
// facet, a quarter of the bottom, but its nearly coplanar neighbours are the same surface, and
// their corners join the manifold: it spans the plate both ways.
TEST(Polyhedra, APlateOfNearlyCoplanarFacetsGetsTheirCornersToo) {
  std::vector<Vec3> points{{0, Real(-0.004), 0}};
  for (const Real x : {Real(-0.5), Real(0.5)})
    for (const Real z : {Real(-0.5), Real(0.5)})
      for (const Real y : {Real(-0.002), Real(0.002)})
        points.push_back({x, y, z});
  const HullData plate = hull(points);
  const BoxPolyhedron ground(box(5, Real(0.5), 5));
  const Quat q = about({0, 0, 1}, Real(0.1));
  Real lowest = k_infinity;
  for (const Vec3& v : plate.vertices)
    lowest = std::min(lowest, rotate(q, v).y);
  const Manifold m = polyhedra(ground.view(), at({}), plate.view(),
                               at({0, Real(0.5) - lowest - Real(0.001), 0}, q), k_margin);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  Real x_low = k_infinity, x_high = -k_infinity, z_low = k_infinity, z_high = -k_infinity;
  for (int k = 0; k < m.count; ++k) {
    const Vec3& p = m.points[std::size_t(k)].position;
    x_low = std::min(x_low, p.x);
    x_high = std::max(x_high, p.x);
    z_low = std::min(z_low, p.z);
    z_high = std::max(z_high, p.z);
  }
  EXPECT_GT(x_high - x_low, Real(0.9));
  EXPECT_GT(z_high - z_low, Real(0.9));
}

// A plate 3 mm thick, 1.7 x 0.53 m, of eight random points (slivers sweep seed 1039), tilted 5
// degrees: its face most anti-parallel to the floor's is a strip of its rim, whose three points
// lie along one long edge, 1 mm deep to 19 mm above; the other edge, 5 cm up, fell through the
// floor within two steps. The corner farthest off their line joins them.
TEST(Polyhedra, APlateTiltedOnItsRimGetsAPointOnItsFarEdge) {
  const HullData plate = hull({{Real(-0.854533), Real(0.000781), Real(-0.083839)},
                               {Real(-0.854533), Real(0.000607), Real(0.222389)},
                               {Real(0.854533), Real(0.000828), Real(-0.201592)},
                               {Real(0.854533), Real(0.001365), Real(-0.263190)},
                               {Real(0.254334), Real(-0.000938), Real(-0.123835)},
                               {Real(-0.386438), Real(-0.000859), Real(0.086752)},
                               {Real(-0.012215), Real(-0.001235), Real(-0.188842)},
                               {Real(0.521178), Real(-0.000382), Real(-0.155966)}});
  const Quat q =
      normalize(Quat{Real(-0.48828515), Real(-0.04130433), Real(-0.87137985), Real(0.023849377)});
  Real lowest = k_infinity;
  for (const Vec3& v : plate.vertices)
    lowest = std::min(lowest, rotate(q, v).y);
  const BoxPolyhedron ground(box(20, Real(0.5), 20));
  const Manifold m = polyhedra(ground.view(), at({}), plate.view(),
                               at({0, Real(0.5) - lowest - Real(0.001), 0}, q), k_margin);
  ASSERT_EQ(m.count, 4);
  // How far each point lies across the line through the two farthest apart, in the floor's plane.
  Real longest = 0;
  Vec3 from, along;
  for (int i = 0; i < m.count; ++i) {
    for (int j = 0; j < i; ++j) {
      Vec3 d = m.points[std::size_t(i)].position - m.points[std::size_t(j)].position;
      d.y = 0;
      if (length(d) > longest) {
        longest = length(d);
        from = m.points[std::size_t(j)].position;
        along = d / longest;
      }
    }
  }
  Real widest = 0;
  for (int k = 0; k < m.count; ++k) {
    Vec3 d = m.points[std::size_t(k)].position - from;
    d.y = 0;
    widest = std::max(widest, length(d - along * dot(d, along)));
  }
  EXPECT_GT(widest, Real(0.25));  // the plate is 0.26 to 0.53 m wide
}

TEST(Polyhedra, CylindersCapToCapTurnedGiveFourPointsOnTheClippedRims) {
  const HullData cylinder = hull(prism(16, Real(0.5), Real(0.5)));
  const Manifold m = polyhedra(cylinder.view(), at({}), cylinder.view(),
                               at({Real(0.1), Real(0.99), 0}, about({0, 1, 0}, 11.25)), 0);
  ASSERT_EQ(m.count, 4);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.01));
  EXPECT_TRUE(ids_distinct(m));
}

TEST(Polyhedra, RestingHullKeepsItsIdsUnderJitter) {
  const BoxPolyhedron ground(box(5, Real(0.5), 5));
  // Resting faces of at most four corners: a regular polygon of more has many corners of
  // near-equal depth, among which jitter moves reduce_manifold's choice.
  const HullData wedge = hull({{-1, -1, -1}, {1, -1, -1}, {0, -1, 1}, {0, 1, 0}});
  const struct {
    PolyhedronView body;
    Real height;  // of its centre, to rest 0.01 deep
    int count;
  } cases[] = {{k_cube.view(), Real(0.99), 4}, {wedge.view(), Real(1.49), 3}};
  for (const auto& c : cases) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<Real> jitter(-1, 1);
    const Vec3 rest{Real(0.3), c.height, Real(-0.2)};
    const Manifold first = polyhedra(ground.view(), at({}), c.body, at(rest), 0);
    ASSERT_EQ(first.count, c.count);
    EXPECT_TRUE(ids_distinct(first));
    for (int call = 0; call < 100; ++call) {
      const Vec3 dp = Real(1e-4) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
      const Vec3 dr = Real(1e-3) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
      const Manifold m = polyhedra(ground.view(), at({}), c.body,
                                   at(rest + dp, Quat::from_rotation_vector(dr)), 0);
      ASSERT_EQ(m.count, c.count);
      EXPECT_EQ(sorted_keys(m), sorted_keys(first)) << "call " << call;
    }
  }
}

TEST(Polyhedra, ClippedPointsKeepTheirIdsWhileTheHullTurns) {
  // The cube hangs over the slab's +x edge: two of its corners and two clipped points.
  const HullData slab = hull(box_corners({1, Real(0.5), 1}));
  std::vector<std::uint64_t> first;
  for (int deg = 0; deg < 30; ++deg) {
    const Manifold m = polyhedra(slab.view(), at({}), k_cube.view(),
                                 at({1, Real(0.99), 0}, about({0, 1, 0}, Real(deg))), 0);
    ASSERT_EQ(m.count, 4);
    expect_depths(m, Real(0.01));
    EXPECT_TRUE(ids_distinct(m));
    int clipped = 0;
    for (int k = 0; k < m.count; ++k) {
      clipped += m.points[std::size_t(k)].id.type_a == std::uint8_t(k_edge);
    }
    EXPECT_EQ(clipped, 2);
    if (deg == 0) first = sorted_keys(m);
    EXPECT_EQ(sorted_keys(m), first) << deg << " degrees";
  }
}

// --- a triangle against polyhedra ------------------------------------------------------------

// A triangle in the plane y = 0, its front facing +y, large enough to hold a unit box.
const TrianglePolyhedron k_floor({-3, 0, -3}, {0, 0, 4}, {3, 0, -3});

TEST(TrianglePolyhedra, BoxOnEitherSideOfTheTriangleGivesFourPoints) {
  const BoxPolyhedron cube(k_unit);
  for (const Real side : {Real(1), Real(-1)}) {
    const Transform tb = at({Real(0.2), side * Real(0.49), 0});
    const Manifold m = polyhedra(k_floor.view(), at({}), cube.view(), tb, 0);
    ASSERT_EQ(m.count, 4) << side;
    expect_vec_near(m.normal, {0, side, 0});
    expect_depths(m, Real(0.01));
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(m.points[std::size_t(k)].id.index_a, side > 0 ? 0u : 1u);  // front or back face
    }
    // The triangle second: the normal flips and the points lie on the triangle.
    const Manifold swapped = polyhedra(cube.view(), tb, k_floor.view(), at({}), 0);
    ASSERT_EQ(swapped.count, 4);
    expect_vec_near(swapped.normal, {0, -side, 0});
    expect_depths(swapped, Real(0.01));
  }
}

TEST(TrianglePolyhedra, SeparatedBeyondTheMarginGiveNoPoints) {
  const BoxPolyhedron cube(k_unit);
  bool hit = true;
  polyhedra(k_floor.view(), at({}), cube.view(), at({0, Real(0.65), 0}), Real(0.1), &hit);
  EXPECT_FALSE(hit);
  // Beside the triangle, in its plane.
  polyhedra(k_floor.view(), at({}), cube.view(), at({0, 0, Real(4.7)}), Real(0.1), &hit);
  EXPECT_FALSE(hit);
  const Manifold m =
      polyhedra(k_floor.view(), at({}), cube.view(), at({0, Real(0.55), 0}), Real(0.1), &hit);
  ASSERT_EQ(m.count, 4);
  expect_depths(m, Real(-0.05));
}

TEST(TrianglePolyhedra, TriangleEdgeCrossingABoxEdgeGivesOnePoint) {
  // The triangle stands in the plane z = 0 with its top edge along x at y = 0; the box, turned
  // 45 degrees about z, rests an edge along z across it, 0.01 deep.
  const TrianglePolyhedron fin({-1, 0, 0}, {1, 0, 0}, {0, -1, 0});
  const BoxPolyhedron cube(k_unit);
  const Transform tb = at({0, std::sqrt(Real(0.5)) - Real(0.01), 0}, about({0, 0, 1}, 45));
  const Manifold m = polyhedra(fin.view(), at({}), cube.view(), tb, 0);
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  expect_vec_near(m.points[0].position, {0, Real(-0.01), 0});
  EXPECT_EQ(m.points[0].id.type_a, std::uint8_t(k_edge));
  EXPECT_EQ(m.points[0].id.index_a, 0u);  // the top edge runs from corner 0 to corner 1
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(k_edge));

  const Manifold swapped = polyhedra(cube.view(), tb, fin.view(), at({}), 0);
  ASSERT_EQ(swapped.count, 1);
  expect_vec_near(swapped.normal, {0, -1, 0});
  EXPECT_NEAR(swapped.points[0].depth, Real(0.01), k_tol);
  expect_vec_near(swapped.points[0].position, {0, 0, 0});
}

TEST(TrianglePolyhedra, TriangleStandingOnItsEdgeGivesTwoPoints) {
  const TrianglePolyhedron fin({Real(-0.5), 0, 0}, {Real(0.5), 0, 0}, {0, 1, 0});
  const BoxPolyhedron ground(box(2, Real(0.5), 2));
  const Manifold m = polyhedra(ground.view(), at({}), fin.view(), at({0, Real(0.48), 0}), 0);
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, 1, 0});
  expect_depths(m, Real(0.02));
  EXPECT_TRUE(has_point(m, {Real(-0.5), Real(0.48), 0}));
  EXPECT_TRUE(has_point(m, {Real(0.5), Real(0.48), 0}));
}

TEST(TrianglePolyhedra, HullCornerOnTheTriangleGivesOnePoint) {
  const HullData oct = hull(octahedron(1));
  const Manifold m = polyhedra(k_floor.view(), at({}), oct.view(), at({0, Real(0.99), 0}), 0);
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  EXPECT_EQ(m.points[0].id, id(k_face, 0, k_vertex, 3));
}

TEST(TrianglePolyhedra, RestingBoxKeepsItsIdsUnderJitter) {
  const BoxPolyhedron cube(k_unit);
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> jitter(-1, 1);
  const Vec3 rest{Real(0.3), Real(0.49), Real(-0.2)};
  const Manifold first = polyhedra(k_floor.view(), at({}), cube.view(), at(rest), 0);
  ASSERT_EQ(first.count, 4);
  for (int call = 0; call < 100; ++call) {
    const Vec3 dp = Real(1e-4) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
    const Vec3 dr = Real(1e-3) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
    const Manifold m = polyhedra(k_floor.view(), at({}), cube.view(),
                                 at(rest + dp, Quat::from_rotation_vector(dr)), 0);
    ASSERT_EQ(m.count, 4);
    EXPECT_EQ(sorted_keys(m), sorted_keys(first)) << "call " << call;
  }
}

// --- spheres ---------------------------------------------------------------------------------

// The checks every rounded-shape result must pass: hit exactly when it has points, points on b's
// surface, a unit normal.
Manifold checked(bool h, const Manifold& m, const PolyhedronView& b, const Transform& tb,
                 bool* hit) {
  if (hit) *hit = h;
  EXPECT_EQ(h, m.count > 0);
  expect_points_on(b, tb, m);
  if (h) {
    EXPECT_NEAR(length(m.normal), 1, k_tol);
  }
  return m;
}

Manifold sphere_poly(Real radius, const Vec3& centre, const PolyhedronView& b, const Transform& tb,
                     Real margin = k_margin, bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_sphere_polyhedron(Sphere{radius}, at(centre), b, tb, margin, m);
  return checked(h, m, b, tb, hit);
}

TEST(SpherePolyhedron, BoxGivesWhatCollideSphereBoxGivesOnRandomPositions) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<Real> offset(Real(-1.2), Real(1.2));
  const Box b = box(Real(0.7), Real(0.4), Real(0.5));
  const BoxPolyhedron pb(b);
  const Transform tb = at({Real(0.1), Real(-0.2), Real(0.3)}, about({1, 2, 3}, 40));
  int contacts = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const Vec3 c{offset(rng), offset(rng), offset(rng)};
    Manifold expected;
    const bool hit = collide_sphere_box(Sphere{Real(0.3)}, at(c), b, tb, k_margin, expected);
    const Manifold m = sphere_poly(Real(0.3), c, pb.view(), tb);
    ASSERT_EQ(m.count, expected.count) << "trial " << trial;
    if (!hit) continue;
    ++contacts;
    expect_vec_near(m.normal, expected.normal);
    EXPECT_NEAR(m.points[0].depth, expected.points[0].depth, k_tol);
    expect_vec_near(m.points[0].position, expected.points[0].position);
    EXPECT_EQ(m.points[0].id, expected.points[0].id) << "trial " << trial;
  }
  EXPECT_GT(contacts, 200);
}

TEST(SpherePolyhedron, OctahedronFaceEdgeAndCornerNameTheFeatureTouched) {
  const HullData oct = hull(octahedron(1));
  const Real r = Real(0.5), depth = Real(0.01);
  // Over the face (+,+,+): its centre is (1,1,1)/3, its plane 1/sqrt(3) from the origin.
  const Vec3 face_n = normalize(Vec3{1, 1, 1});
  Manifold m = sphere_poly(r, face_n * (1 / std::sqrt(Real(3)) + r - depth), oct.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, -face_n);
  EXPECT_NEAR(m.points[0].depth, depth, k_tol);
  expect_vec_near(m.points[0].position, Vec3{1, 1, 1} / 3);
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(k_face));
  // Beyond the edge from (1,0,0) to (0,1,0).
  const Vec3 edge_n = normalize(Vec3{1, 1, 0});
  m = sphere_poly(r, Vec3{Real(0.5), Real(0.5), 0} + edge_n * (r - depth), oct.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, -edge_n);
  EXPECT_NEAR(m.points[0].depth, depth, k_tol);
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(k_edge));
  const PolyEdge& e = oct.edges[m.points[0].id.index_b];
  EXPECT_EQ(std::min(e.vertices[0], e.vertices[1]), 0u);
  EXPECT_EQ(std::max(e.vertices[0], e.vertices[1]), 2u);
  // Over the corner (0,1,0), and within the margin only.
  m = sphere_poly(r, {0, 1 + r + Real(0.05), 0}, oct.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, -1, 0});
  EXPECT_NEAR(m.points[0].depth, Real(-0.05), k_tol);
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 2));
  bool hit = true;
  sphere_poly(r, {0, 1 + r + Real(0.15), 0}, oct.view(), at({}), k_margin, &hit);
  EXPECT_FALSE(hit);
}

TEST(SpherePolyhedron, CentreInsideLeavesThroughTheFaceOfLeastPenetration) {
  const HullData oct = hull(octahedron(1));
  const Vec3 c{Real(0.3), Real(0.2), Real(0.1)};
  const Vec3 face_n = normalize(Vec3{1, 1, 1});
  const Real below = 1 / std::sqrt(Real(3)) - dot(face_n, c);
  const Manifold inside = sphere_poly(Real(0.5), c, oct.view(), at({}));
  ASSERT_EQ(inside.count, 1);
  expect_vec_near(inside.normal, -face_n);
  EXPECT_NEAR(inside.points[0].depth, Real(0.5) + below, k_tol);
  EXPECT_EQ(inside.points[0].id.type_b, std::uint8_t(k_face));
}

TEST(SpherePolyhedron, TriangleAboveBelowBesideItsEdgeAndPastItsCorner) {
  // Corners (0,0,0), (0,0,1), (1,0,0), front +y; edge 2 runs from (1,0,0) to (0,0,0).
  const TrianglePolyhedron tri({0, 0, 0}, {0, 0, 1}, {1, 0, 0});
  const Real r = Real(0.5), d = Real(0.01);
  Manifold m = sphere_poly(r, {Real(0.25), r - d, Real(0.25)}, tri.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, -1, 0});
  EXPECT_NEAR(m.points[0].depth, d, k_tol);
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 0));
  m = sphere_poly(r, {Real(0.25), d - r, Real(0.25)}, tri.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 1, 0});
  EXPECT_NEAR(m.points[0].depth, d, k_tol);
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_face, 1));
  m = sphere_poly(r, {Real(0.5), 0, d - r}, tri.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 0, 1});
  expect_vec_near(m.points[0].position, {Real(0.5), 0, 0});
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_edge, 2));
  m = sphere_poly(r, Vec3{-1, Real(0.5), -1} * ((r - d) / std::sqrt(Real(2.25))), tri.view(),
                  at({}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].depth, d, k_tol);
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 0));
  // Centre on the triangle: a finite normal across it and the full radius deep.
  m = sphere_poly(r, {Real(0.25), 0, Real(0.25)}, tri.view(), at({}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(std::abs(m.normal.y), 1, k_tol);
  EXPECT_NEAR(m.points[0].depth, r, k_tol);
}

// --- capsules --------------------------------------------------------------------------------

// Capsule along local y turned to lie along world x.
const Quat k_along_x = Quat::from_axis_angle(Vec3::unit_z(), k_pi / 2);

Manifold capsule_poly(const Capsule& c, const Transform& ta, const PolyhedronView& b,
                      const Transform& tb, Real margin = k_margin, bool* hit = nullptr) {
  Manifold m;
  const bool h = collide_capsule_polyhedron(c, ta, b, tb, margin, m);
  return checked(h, m, b, tb, hit);
}

TEST(CapsulePolyhedron, BoxGivesWhatCollideCapsuleBoxGivesOnRandomPoses) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<Real> offset(Real(-1.3), Real(1.3));
  const Box b = box(Real(0.7), Real(0.4), Real(0.5));
  const BoxPolyhedron pb(b);
  const Transform tb = at({Real(0.1), Real(-0.2), Real(0.3)}, about({1, 2, 3}, 40));
  const Capsule c{Real(0.2), Real(0.4)};
  int contacts = 0, crossing = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const Transform ta = at({offset(rng), offset(rng), offset(rng)}, random_rotation(rng));
    Manifold expected;
    const bool hit = collide_capsule_box(c, ta, b, tb, k_margin, expected);
    const Manifold m = capsule_poly(c, ta, pb.view(), tb);
    ASSERT_EQ(m.count, expected.count) << "trial " << trial;
    if (!hit) continue;
    ++contacts;
    const std::vector<Real> want = sorted_depths(expected);
    const std::vector<Real> have = sorted_depths(m);
    if (have.back() >= c.radius) {
      // The segment crosses the box: the depth is the overlap along the normal, no more than
      // along capsule-box's normal (whose search may also stop where the segment enters, a hair
      // outside, and report a graze).
      ++crossing;
      const BoxPolyhedron segment(box(0, c.half_height, 0));
      const Real along = separation_along(segment.view(), ta, pb.view(), tb, m.normal);
      // (Two points are the ends of the part of the segment over the face, maybe not its deepest.)
      if (m.count == 1) {
        EXPECT_NEAR(have.back(), c.radius - along, k_tol) << "trial " << trial;
      }
      EXPECT_LE(have.back(), c.radius - along + k_tol) << "trial " << trial;
      const Real theirs = separation_along(segment.view(), ta, pb.view(), tb, expected.normal);
      EXPECT_LE(have.back(), c.radius - theirs + Real(1e-3) + k_tol) << "trial " << trial;
      continue;
    }
    // Both find the closest point exactly (capsule-box minimises the squared distance piece by
    // piece along the segment): the normals agree to rounding (a ternary search's was good to a
    // few 1e-3 and failed this in 72 of the 1000 trials).
    expect_vec_near(m.normal, expected.normal, Real(1e-4));
    for (std::size_t k = 0; k < want.size(); ++k) {
      EXPECT_NEAR(have[k], want[k], k_tol) << "trial " << trial;
    }
    EXPECT_EQ(sorted_keys(m), sorted_keys(expected)) << "trial " << trial;
  }
  EXPECT_GT(crossing, 20);
  EXPECT_GT(contacts, 200);
}

TEST(CapsulePolyhedron, LyingOnAHullFaceGivesTwoPointsClippedToIt) {
  // Shorter than the face: its two end vertices over the face; longer: clipped at the face edges.
  for (const Real half : {Real(0.3), Real(2)}) {
    const Manifold m =
        capsule_poly({Real(0.2), half}, at({0, Real(0.69), 0}, k_along_x), k_cube.view(), at({}));
    ASSERT_EQ(m.count, 2) << half;
    expect_vec_near(m.normal, {0, -1, 0});
    expect_depths(m, Real(0.01));
    const Real x = std::min(half, Real(0.5));
    EXPECT_TRUE(has_point(m, {-x, Real(0.5), 0}));
    EXPECT_TRUE(has_point(m, {x, Real(0.5), 0}));
    for (int k = 0; k < 2; ++k) {
      const FeatureId& i = m.points[std::size_t(k)].id;
      EXPECT_EQ(i.type_a, std::uint8_t(half < Real(0.5) ? k_vertex : k_edge));
      EXPECT_EQ(i.type_b, std::uint8_t(half < Real(0.5) ? k_face : k_edge));
    }
  }
}

// As capsule-box: tilted 13 degrees from lying on the cube's top face, its lower end touching,
// the upper end 0.09 m up is a second, speculative point within the margin (0.1).
TEST(CapsulePolyhedron, TiltedCapsulesUpperEndWithinTheMarginGivesASpeculativePoint) {
  const Real tilt = 13 * k_pi / 180, half = Real(0.2), radius = Real(0.2);
  const Real x = half * std::cos(tilt), rise = 2 * half * std::sin(tilt);
  const Manifold m = capsule_poly({radius, half},
                                  at({0, Real(0.5) + radius + half * std::sin(tilt), 0},
                                     Quat::from_axis_angle(Vec3::unit_z(), k_pi / 2 - tilt)),
                                  k_cube.view(), at({}));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, -1, 0});
  EXPECT_TRUE(has_point(m, {x, Real(0.5), 0}));
  EXPECT_TRUE(has_point(m, {-x, Real(0.5), 0}));
  const Real low = std::min(m.points[0].depth, m.points[1].depth);
  const Real high = std::max(m.points[0].depth, m.points[1].depth);
  EXPECT_NEAR(high, 0, k_tol);
  EXPECT_NEAR(low, -rise, k_tol);
}

TEST(CapsulePolyhedron, StandingOnAHullTouchesWithItsLowerEnd) {
  const HullData oct = hull(octahedron(1));
  const Manifold m =
      capsule_poly({Real(0.2), Real(0.5)}, at({0, Real(1.69), 0}), oct.view(), at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, -1, 0});
  EXPECT_NEAR(m.points[0].depth, Real(0.01), k_tol);
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 2));
  bool hit = true;
  capsule_poly({Real(0.2), Real(0.5)}, at({0, Real(1.85), 0}), oct.view(), at({}), k_margin, &hit);
  EXPECT_FALSE(hit);
}

TEST(CapsulePolyhedron, SegmentThroughAHullLeavesAlongTheLeastOverlap) {
  // Along x through the cube, 0.1 below its top face: pushed up, two points on the top face.
  const Manifold m =
      capsule_poly({Real(0.2), Real(0.3)}, at({0, Real(0.4), 0}, k_along_x), k_cube.view(), at({}));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_depths(m, Real(0.3));
  // Diagonally through, past an edge: a finite normal and a positive depth.
  const Manifold diagonal =
      capsule_poly({Real(0.1), Real(0.4)}, at({Real(0.45), Real(0.45), 0}, about({0, 0, 1}, 45)),
                   k_cube.view(), at({}));
  ASSERT_GE(diagonal.count, 1);
  EXPECT_GT(diagonal.points[0].depth, Real(0.1));
}

TEST(CapsulePolyhedron, TriangleAboveAcrossItsEdgePastItsCornerBelowAndThrough) {
  const Real r = Real(0.2), d = Real(0.01);
  // Lying over the triangle along x: two points, clipped by the triangle's sides.
  Manifold m = capsule_poly({r, 1}, at({0, r - d, 0}, k_along_x), k_floor.view(), at({}));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, -1, 0});
  expect_depths(m, d);
  // Beneath it: the back face.
  m = capsule_poly({r, 1}, at({0, d - r, 0}, k_along_x), k_floor.view(), at({}));
  ASSERT_EQ(m.count, 2);
  expect_vec_near(m.normal, {0, 1, 0});
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(m.points[std::size_t(k)].id.index_b, 1u);
  }
  // Along z beyond edge 2 (z = -3), in the triangle's plane: the segment's end meets the edge.
  m = capsule_poly({r, 1}, at({0, 0, -3 - 1 - r + d}, about({1, 0, 0}, 90)), k_floor.view(),
                   at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, 0, 1});
  EXPECT_NEAR(m.points[0].depth, d, k_tol);
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(k_edge));
  EXPECT_EQ(m.points[0].id.index_b, 2u);
  // Across edge 2 at right angles, rising 30 degrees over the triangle: one point, the segment's
  // inside against the edge, (r - d) / cos 30 above it.
  const Real c30 = std::cos(k_pi / 6);
  m = capsule_poly({r, 1}, at({0, (r - d) / c30, -3}, about({1, 0, 0}, 60)), k_floor.view(),
                   at({}));
  ASSERT_EQ(m.count, 1);
  expect_vec_near(m.normal, {0, -c30, Real(0.5)});
  EXPECT_NEAR(m.points[0].depth, d, k_tol);
  EXPECT_EQ(m.points[0].id, id(k_edge, 0, k_edge, 2));
  // Standing beyond corner 1 (0,0,4): the lower end meets the corner.
  m = capsule_poly({r, 1}, at(Vec3{0, 0, 4} + (r - d) * normalize(Vec3{0, 1, 1}) + Vec3{0, 1, 0}),
                   k_floor.view(), at({}));
  ASSERT_EQ(m.count, 1);
  EXPECT_EQ(m.points[0].id, id(k_vertex, 0, k_vertex, 1));
  // Through the triangle, upright: a finite normal across it.
  m = capsule_poly({r, 1}, at({0, Real(0.3), 0}), k_floor.view(), at({}));
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(std::abs(m.normal.y), 1, k_tol);
  EXPECT_NEAR(m.points[0].depth, r + Real(0.7), k_tol);
}

TEST(CapsulePolyhedron, LyingCapsuleKeepsItsIdsUnderJitter) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<Real> jitter(-1, 1);
  const Capsule c{Real(0.2), Real(0.3)};
  const Vec3 rest{Real(0.1), Real(0.69), 0};
  for (const PolyhedronView& ground : {k_cube.view(), k_floor.view()}) {
    const Vec3 lift = ground.faces.size() == 2 ? Vec3{0, Real(-0.5), 0} : Vec3::zero();
    const Manifold first = capsule_poly(c, at(rest + lift, k_along_x), ground, at({}));
    ASSERT_EQ(first.count, 2);
    for (int call = 0; call < 100; ++call) {
      const Vec3 dp = Real(1e-4) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
      const Vec3 dr = Real(1e-3) * Vec3{jitter(rng), jitter(rng), jitter(rng)};
      const Manifold m = capsule_poly(
          c, at(rest + lift + dp, Quat::from_rotation_vector(dr) * k_along_x), ground, at({}));
      ASSERT_EQ(m.count, 2);
      EXPECT_EQ(sorted_keys(m), sorted_keys(first)) << "call " << call;
    }
  }
}

}  // namespace
}  // namespace impulse
