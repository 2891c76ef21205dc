#include "collision/convex_hull.h"
#include "collision/polyhedron_mass.h"

#include <impulse/error.h>
#include <impulse/shape.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/geometry.h"

namespace impulse {
namespace {

using testing::box_corners;

Vec3 random_in_unit_sphere(std::mt19937& rng) {
  std::uniform_real_distribution<Real> uniform(-1, 1);
  for (;;) {
    const Vec3 p{uniform(rng), uniform(rng), uniform(rng)};
    if (length_squared(p) <= 1) return p;
  }
}

// Evenly spread points on the unit sphere (a golden-angle spiral), so the hull's triangles are
// near-equilateral as on a subdivided icosahedron.
std::vector<Vec3> spiral_on_unit_sphere(int count) {
  const double golden_angle = 3.14159265358979323846 * (3 - std::sqrt(5.0));
  std::vector<Vec3> points;
  for (int i = 0; i < count; ++i) {
    const double z = 1 - (2 * i + 1) / double(count);
    const double r = std::sqrt(1 - z * z);
    const double phi = golden_angle * i;
    points.push_back({Real(r * std::cos(phi)), Real(r * std::sin(phi)), Real(z)});
  }
  return points;
}

Real extent_sum(const std::vector<Vec3>& points) {
  AABB box;
  for (const Vec3& p : points) {
    box.include(p);
  }
  const Vec3 size = box.upper - box.lower;
  return size.x + size.y + size.z;
}

std::uint32_t corner_index(const HullData& hull, const PolyFace& face, std::uint32_t i) {
  return hull.face_vertices[face.first + i];
}

int euler_characteristic(const HullData& hull) {
  return static_cast<int>(hull.vertices.size()) - static_cast<int>(hull.edges.size()) +
         static_cast<int>(hull.faces.size());
}

// Everything a hull of `points` must satisfy, up to a tolerance relative to the cloud's extent.
void expect_valid_hull(const HullData& hull, const std::vector<Vec3>& points) {
  const Real tol = Real(1e-5) * extent_sum(points);
  EXPECT_EQ(euler_characteristic(hull), 2);

  std::set<std::tuple<Real, Real, Real>> distinct;
  for (const Vec3& v : hull.vertices) {
    EXPECT_NE(std::find(points.begin(), points.end(), v), points.end())
        << "hull vertex is not an input point";
    distinct.insert({v.x, v.y, v.z});
  }
  EXPECT_EQ(distinct.size(), hull.vertices.size()) << "a hull vertex is repeated";

  // A closed two-manifold: each directed edge in one face, and its reverse in another.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> directed;
  for (std::uint32_t f = 0; f < hull.faces.size(); ++f) {
    const PolyFace& face = hull.faces[f];
    ASSERT_GE(face.count, 3u);
    for (std::uint32_t i = 0; i < face.count; ++i) {
      directed[{corner_index(hull, face, i), corner_index(hull, face, (i + 1) % face.count)}]
          .push_back(f);
    }
  }
  for (const auto& [edge, faces] : directed) {
    EXPECT_EQ(faces.size(), 1u);
    EXPECT_EQ(directed.count({edge.second, edge.first}), 1u) << "edge without a twin";
  }
  EXPECT_EQ(directed.size(), 2 * hull.edges.size());

  // Edges sorted by vertex pair, each running forwards around faces[0] and backwards around
  // faces[1] (PolyEdge's orientation).
  for (std::size_t e = 0; e < hull.edges.size(); ++e) {
    const PolyEdge& edge = hull.edges[e];
    const auto [v0, v1] = edge.vertices;
    EXPECT_LT(v0, v1);
    if (e > 0) {
      EXPECT_LT(hull.edges[e - 1].vertices, edge.vertices);
    }
    EXPECT_EQ(directed[std::pair(v0, v1)], std::vector<std::uint32_t>(1, edge.faces[0]));
    EXPECT_EQ(directed[std::pair(v1, v0)], std::vector<std::uint32_t>(1, edge.faces[1]));
  }

  for (const PolyFace& face : hull.faces) {
    EXPECT_NEAR(length(face.normal), 1, 1e-5);
    const std::uint32_t n = face.count;
    for (std::uint32_t i = 0; i < n; ++i) {
      const Vec3& a = hull.vertices[corner_index(hull, face, i)];
      const Vec3& b = hull.vertices[corner_index(hull, face, (i + 1) % n)];
      const Vec3& c = hull.vertices[corner_index(hull, face, (i + 2) % n)];
      EXPECT_NEAR(dot(face.normal, a), face.offset, tol) << "vertex off its face plane";
      // Convex and counter-clockwise seen from outside: every corner turns left about the normal.
      const Vec3 e0 = b - a;
      const Vec3 e1 = c - b;
      EXPECT_GE(dot(cross(e0, e1), face.normal), -Real(1e-5) * length(e0) * length(e1))
          << "reflex or clockwise corner";
    }
    Real farthest = -k_infinity;
    for (const Vec3& p : points) {
      farthest = std::max(farthest, dot(face.normal, p) - face.offset);
    }
    EXPECT_LE(farthest, tol) << "input point outside a face";
  }
}

void expect_relative_near(Real actual, Real expected, Real relative) {
  EXPECT_NEAR(actual, expected, relative * std::abs(expected));
}

TEST(ConvexHull, CubeCornersGiveSixQuadFaces) {
  std::vector<Vec3> points = box_corners({1, 1, 1});
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> inside(Real(-0.9), Real(0.9));
  for (int i = 0; i < 50; ++i) {
    points.push_back({inside(rng), inside(rng), inside(rng)});
  }
  points.push_back(points[0]);  // duplicates of corners and of an interior point
  points.push_back(points[5]);
  points.push_back(points[20]);
  points.push_back(points[0]);

  const HullData hull = build_convex_hull(points);
  EXPECT_EQ(hull.vertices.size(), 8u);
  EXPECT_EQ(hull.edges.size(), 12u);
  ASSERT_EQ(hull.faces.size(), 6u);
  std::set<std::pair<int, int>> axes;  // (axis, sign) of each face normal
  for (const PolyFace& face : hull.faces) {
    EXPECT_EQ(face.count, 4u);
    for (int axis = 0; axis < 3; ++axis) {
      if (std::abs(face.normal[axis]) > Real(0.999)) axes.insert({axis, face.normal[axis] > 0});
    }
    EXPECT_NEAR(face.offset, 1, 1e-6);
  }
  EXPECT_EQ(axes.size(), 6u) << "each of the six axis directions is one face normal";
  expect_valid_hull(hull, points);
}

TEST(ConvexHull, RandomPointsInSphereAreEnclosedByAConvexClosedHull) {
  std::mt19937 rng(12345);
  std::vector<Vec3> points;
  for (int i = 0; i < 1000; ++i) {
    points.push_back(random_in_unit_sphere(rng));
  }

  const HullData hull = build_convex_hull(points);
  EXPECT_GE(hull.vertices.size(), 4u);
  EXPECT_LT(hull.vertices.size(), points.size()) << "interior points must be dropped";
  expect_valid_hull(hull, points);
}

TEST(ConvexHull, PointsSampledOnCubeFacesMergeToSixFaces) {
  const Vec3 half{1, 2, 3};
  std::vector<Vec3> points = box_corners(half);
  std::mt19937 rng(99);
  std::uniform_real_distribution<Real> unit(-1, 1);
  for (int i = 0; i < 600; ++i) {
    Vec3 p{unit(rng) * half.x, unit(rng) * half.y, unit(rng) * half.z};
    const int axis = i % 3;
    p[axis] = (i / 3) % 2 ? half[axis] : -half[axis];  // pushed onto one face
    points.push_back(p);
  }
  // Points on the cube's edges too.
  for (int i = 0; i < 30; ++i) {
    points.push_back({unit(rng) * half.x, half.y, -half.z});
  }
  std::shuffle(points.begin(), points.end(), rng);

  const HullData hull = build_convex_hull(points);
  EXPECT_EQ(hull.faces.size(), 6u);
  EXPECT_EQ(hull.vertices.size(), 8u);
  EXPECT_EQ(hull.edges.size(), 12u);
  expect_valid_hull(hull, points);
}

TEST(ConvexHull, NoisyFaceSamplesOfARotatedBoxMergeToSixFaces) {
  // Rotated and moved off the origin, float rounding puts the face samples slightly off their
  // planes; the tolerance must still see one plane per side.
  const Vec3 half{Real(0.5), 1, Real(1.5)};
  const Quat q = Quat::from_axis_angle(normalize(Vec3{3, -1, 2}), Real(1.1));
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> unit(-1, 1);
  std::vector<Vec3> points = box_corners(half);
  for (int i = 0; i < 900; ++i) {
    Vec3 p{unit(rng) * half.x, unit(rng) * half.y, unit(rng) * half.z};
    const int axis = i % 3;
    p[axis] = (i / 3) % 2 ? half[axis] : -half[axis];
    points.push_back(p);
  }
  for (Vec3& p : points) {
    p = rotate(q, p) + Vec3{5, 2, -3};
  }

  const HullData hull = build_convex_hull(points);
  EXPECT_EQ(hull.faces.size(), 6u);
  EXPECT_EQ(hull.vertices.size(), 8u);
  EXPECT_EQ(hull.edges.size(), 12u);
  expect_valid_hull(hull, points);
}

TEST(ConvexHull, ThinSlabGivesClosedConvexHull) {
  // Faces meeting at a very sharp rim: where a tolerance in the hull loop itself goes wrong.
  std::mt19937 rng(17);
  std::uniform_real_distribution<Real> unit(-1, 1);
  std::vector<Vec3> points;
  for (int i = 0; i < 500; ++i) {
    points.push_back({unit(rng), unit(rng), unit(rng) * Real(1e-4)});
  }
  const HullData hull = build_convex_hull(points);
  expect_valid_hull(hull, points);
  EXPECT_GT(polyhedron_mass_properties(hull, 1).mass, 0);
}

TEST(ConvexHull, RotatedTranslatedCubeStillMergesToSixQuads) {
  const Quat q = Quat::from_axis_angle(normalize(Vec3{1, 2, 3}), Real(0.7));
  std::vector<Vec3> points;
  for (const Vec3& c : box_corners({Real(0.5), 1, Real(1.5)})) {
    points.push_back(rotate(q, c) + Vec3{10, -4, 2});
  }
  const HullData hull = build_convex_hull(points);
  ASSERT_EQ(hull.faces.size(), 6u);
  for (const PolyFace& face : hull.faces) {
    EXPECT_EQ(face.count, 4u);
  }
  expect_valid_hull(hull, points);
}

void expect_invalid(const std::vector<Vec3>& points, const std::string& message_part) {
  try {
    build_convex_hull(points);
    ADD_FAILURE() << "expected InvalidArgument containing \"" << message_part << "\"";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  }
}

TEST(ConvexHull, RejectsFewerThanFourPoints) {
  expect_invalid({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, "at least 4 points");
}

TEST(ConvexHull, RejectsCoincidentPoints) {
  expect_invalid(std::vector<Vec3>(10, Vec3{1, 2, 3}), "span no volume (they all coincide)");
}

TEST(ConvexHull, RejectsCollinearPoints) {
  std::vector<Vec3> points;
  for (int i = 0; i < 10; ++i) {
    points.push_back(Vec3{1, 2, 3} * Real(i) + Vec3{0, 1, 0});
  }
  expect_invalid(points, "span no volume (they are collinear)");
}

TEST(ConvexHull, RejectsCoplanarPoints) {
  std::vector<Vec3> points;  // a flat square grid, tilted
  const Quat q = Quat::from_axis_angle(Vec3::unit_x(), Real(0.5));
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) {
      points.push_back(rotate(q, {Real(i), Real(j), 0}));
    }
  }
  expect_invalid(points, "span no volume (they are coplanar)");
}

TEST(ConvexHull, RejectsNonFiniteCoordinate) {
  std::vector<Vec3> points = box_corners({1, 1, 1});
  points[3].y = std::numeric_limits<Real>::quiet_NaN();
  expect_invalid(points, "non-finite");
  points[3].y = std::numeric_limits<Real>::infinity();
  expect_invalid(points, "non-finite");
}

TEST(ConvexHull, RejectsTooManyPoints) {
  std::mt19937 rng(3);
  std::vector<Vec3> points;
  for (std::size_t i = 0; i <= k_max_hull_points; ++i) {
    points.push_back(random_in_unit_sphere(rng));
  }
  expect_invalid(points, "at most");
}

// A box's hull against the closed forms: m = 8 hx hy hz rho, I_xx = m / 3 (hy^2 + hz^2), ...
void expect_box_mass(const MassProperties& props, const Vec3& half, Real density,
                     const Vec3& center, const Mat33& rotation) {
  const Real mass = 8 * half.x * half.y * half.z * density;
  expect_relative_near(props.mass, mass, Real(1e-5));
  const Mat33 local = Mat33::diagonal({mass / 3 * (half.y * half.y + half.z * half.z),
                                       mass / 3 * (half.x * half.x + half.z * half.z),
                                       mass / 3 * (half.x * half.x + half.y * half.y)});
  const Mat33 expected = rotation * local * transpose(rotation);
  const Real scale = trace(local);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(props.inertia(r, c), expected(r, c), Real(1e-5) * scale) << r << "," << c;
    }
  }
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_NEAR(props.center[axis], center[axis], Real(1e-5) * (1 + std::abs(center[axis])));
  }
}

TEST(PolyhedronMass, BoxCornersMatchBoxFormulas) {
  const Vec3 half{Real(0.5), 1, Real(1.5)};
  const MassProperties props = polyhedron_mass_properties(build_convex_hull(box_corners(half)), 7);
  expect_box_mass(props, half, 7, Vec3::zero(), Mat33::identity());
  // The same numbers worked by hand: m = 42, I = 14 * (3.25, 2.5, 1.25).
  expect_relative_near(props.mass, 42, Real(1e-6));
  expect_relative_near(props.inertia(0, 0), Real(45.5), Real(1e-5));
  expect_relative_near(props.inertia(1, 1), 35, Real(1e-5));
  expect_relative_near(props.inertia(2, 2), Real(17.5), Real(1e-5));
}

TEST(PolyhedronMass, TranslatedBoxCentreFollowsThePoints) {
  const Vec3 half{Real(0.5), 1, Real(1.5)};
  const Vec3 shift{3, -7, Real(12.5)};
  std::vector<Vec3> points;
  for (const Vec3& c : box_corners(half)) {
    points.push_back(c + shift);
  }
  const MassProperties props = polyhedron_mass_properties(build_convex_hull(points), 7);
  expect_box_mass(props, half, 7, shift, Mat33::identity());
}

TEST(PolyhedronMass, RotatedBoxInertiaIsRotatedTensor) {
  const Vec3 half{Real(0.5), 1, Real(1.5)};
  const Vec3 shift{-2, 1, 4};
  const Quat q = Quat::from_axis_angle(normalize(Vec3{1, 1, 0}), Real(30) * k_pi / 180);
  std::vector<Vec3> points;
  for (const Vec3& c : box_corners(half)) {
    points.push_back(rotate(q, c) + shift);
  }
  const MassProperties props = polyhedron_mass_properties(build_convex_hull(points), 7);
  expect_box_mass(props, half, 7, shift, to_matrix(q));
}

TEST(PolyhedronMass, RegularTetrahedronMatchesClosedForm) {
  const Vec3 shift{3, -2, 5};
  const std::vector<Vec3> points{Vec3{1, 1, 1} + shift, Vec3{1, -1, -1} + shift,
                                 Vec3{-1, 1, -1} + shift, Vec3{-1, -1, 1} + shift};
  const HullData hull = build_convex_hull(points);
  EXPECT_EQ(hull.faces.size(), 4u);
  EXPECT_EQ(hull.edges.size(), 6u);
  const Real density = 2;
  const MassProperties props = polyhedron_mass_properties(hull, density);
  // Edge a = 2 sqrt(2): V = a^3 / (6 sqrt(2)) = 8 / 3, centroid the mean of the corners, and
  // the inertia isotropic, m a^2 / 20.
  expect_relative_near(props.mass, density * Real(8) / 3, Real(1e-6));
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_NEAR(props.center[axis], shift[axis], 1e-5);
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(props.inertia(r, c), r == c ? props.mass * 8 / 20 : 0, 1e-5);
    }
  }
}

TEST(PolyhedronMass, DenseSphereHullApproachesSolidSphere) {
  const std::vector<Vec3> points = spiral_on_unit_sphere(2000);
  const HullData hull = build_convex_hull(points);
  EXPECT_EQ(hull.vertices.size(), points.size()) << "every point on a sphere is a corner";
  expect_valid_hull(hull, points);

  const Real density = 3;
  const MassProperties props = polyhedron_mass_properties(hull, density);
  const Real mass = density * 4 * k_pi / 3;
  expect_relative_near(props.mass, mass, Real(0.01));
  EXPECT_LT(props.mass, mass) << "an inscribed polyhedron is lighter than its sphere";
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(props.inertia(r, c), r == c ? Real(0.4) * mass : 0,
                  Real(0.01) * Real(0.4) * mass);
      EXPECT_NEAR(props.inertia(r, c), r == c ? Real(0.4) * props.mass : 0,
                  Real(0.01) * Real(0.4) * props.mass);
    }
    EXPECT_NEAR(props.center[r], 0, 1e-3);
  }
}

}  // namespace
}  // namespace impulse
