#include "collision/raycast.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::box_corners;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-5);

// A turned and shifted pose; rays below are written in the shape's frame and taken through it.
const Transform k_pose = at({Real(0.3), Real(-0.2), Real(0.5)}, about({1, 2, 3}, 37));

// A convex polyhedron written out as corners and face planes. The raycast reads only the planes,
// so face_vertices and edges stay empty.
struct TestPolyhedron {
  std::vector<Vec3> vertices;
  std::vector<PolyFace> faces;

  PolyhedronView view() const { return {vertices, faces, {}, {}, {}}; }
  bool contains(const Vec3& p, Real slack) const {
    for (const PolyFace& f : faces) {
      if (dot(f.normal, p) > f.offset + slack) return false;
    }
    return true;
  }
};

TestPolyhedron cuboid(const Vec3& h) {
  TestPolyhedron poly;
  poly.vertices = box_corners(h);
  for (int k = 0; k < 3; ++k) {
    Vec3 n;
    n[k] = 1;
    poly.faces.push_back({n, h[k]});
    poly.faces.push_back({-n, h[k]});
  }
  return poly;
}

// Corners +-e.x, +-e.y, +-e.z; one face per octant, through the three corners on its axes.
TestPolyhedron octahedron(const Vec3& e) {
  TestPolyhedron poly;
  for (int k = 0; k < 3; ++k) {
    Vec3 v;
    v[k] = e[k];
    poly.vertices.push_back(v);
    poly.vertices.push_back(-v);
  }
  for (int i = 0; i < 8; ++i) {
    const Vec3 s{i & 1 ? Real(1) : Real(-1), i & 2 ? Real(1) : Real(-1),
                 i & 4 ? Real(1) : Real(-1)};
    const Vec3 n = normalize({s.x / e.x, s.y / e.y, s.z / e.z});
    poly.faces.push_back({n, n.x * s.x * e.x});
  }
  return poly;
}

// The ray origin + t direction given in the shape's frame, cast in the world.
template <class Shape>
std::optional<RayHit> cast(const Shape& shape, const Transform& pose, const Vec3& local_origin,
                           const Vec3& local_direction, Real max_fraction = 1) {
  RayHit hit;
  if (!raycast(shape, pose, apply(pose, local_origin), rotate(pose.orientation, local_direction),
               max_fraction, hit)) {
    return std::nullopt;
  }
  return hit;
}

void expect_hit(const std::optional<RayHit>& hit, Real fraction, const Vec3& local_normal,
                const Transform& pose = k_pose) {
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->fraction, fraction, k_tol);
  expect_vec_near(hit->normal, rotate(pose.orientation, local_normal), k_tol);
  EXPECT_EQ(hit->sub_shape, 0u);
}

// --- analytic hits --------------------------------------------------------------------------

TEST(RaycastSphere, HitsAtTheNearIntersectionWithTheRadialNormal) {
  const Sphere sphere{Real(0.8)};
  expect_hit(cast(sphere, k_pose, {-4, 0, 0}, {8, 0, 0}), Real(3.2 / 8), {-1, 0, 0});
  // Off-centre by 0.6: enters at x = -sqrt(0.64 - 0.36).
  const Real x = -std::sqrt(Real(0.28));
  expect_hit(cast(sphere, k_pose, {-4, Real(0.6), 0}, {8, 0, 0}), (x + 4) / 8,
             Vec3{x, Real(0.6), 0} / Real(0.8));
}

TEST(RaycastSphere, MissesBesideBehindAndBeyondMaxFraction) {
  const Sphere sphere{1};
  EXPECT_FALSE(cast(sphere, k_pose, {-4, Real(1.001), 0}, {8, 0, 0}));
  EXPECT_FALSE(cast(sphere, k_pose, {-4, 0, 0}, {-8, 0, 0}));
  EXPECT_FALSE(cast(sphere, k_pose, {-4, 0, 0}, {8, 0, 0}, Real(0.37)));
  expect_hit(cast(sphere, k_pose, {-4, 0, 0}, {8, 0, 0}, Real(0.375)), Real(0.375), {-1, 0, 0});
}

TEST(RaycastSphere, GrazingRayTouchesAtTheTangentPoint) {
  const Sphere sphere{1};
  // Exact numbers at the identity pose: the line's distance from the centre is exactly r.
  expect_hit(cast(sphere, {}, {-4, 1, 0}, {8, 0, 0}), Real(0.5), {0, 1, 0}, {});
  // Turned, just inside the tangent: a short chord; just outside: a miss.
  const Real y = Real(0.9999);
  const Real x = -std::sqrt(1 - y * y);
  expect_hit(cast(sphere, k_pose, {-4, y, 0}, {8, 0, 0}), (x + 4) / 8, {x, y, 0});
  EXPECT_FALSE(cast(sphere, k_pose, {-4, Real(1.0001), 0}, {8, 0, 0}));
}

TEST(RaycastSphere, FarOriginKeepsItsPrecision) {
  // The textbook quadratic loses the chord at 1e4 radii in float; the closest-point form does not.
  const Sphere sphere{Real(0.1)};
  const std::optional<RayHit> hit = cast(sphere, {}, {-1000, Real(0.06), 0}, {2000, 0, 0});
  expect_hit(hit, (1000 - Real(0.08)) / 2000, {Real(-0.8), Real(0.6), 0}, {});
}

TEST(RaycastBox, HitsEachFaceWithItsOutwardNormal) {
  const Box box{{Real(0.5), Real(1), Real(1.5)}};
  for (int k = 0; k < 3; ++k) {
    for (const Real side : {Real(-1), Real(1)}) {
      Vec3 n;
      n[k] = side;
      // From 4 m out along the face normal, 0.2 m off its centre, straight at it.
      const Vec3 offset = Vec3::splat(Real(0.2)) - Real(0.2) * hadamard(n, n);
      const std::optional<RayHit> hit = cast(box, k_pose, 4 * n + offset, -8 * n);
      expect_hit(hit, (4 - box.half_extents[k]) / 8, n);
    }
  }
}

TEST(RaycastBox, RayParallelToFacesHitsInsideTheSlabAndMissesOutside) {
  const Box box{{1, 1, 1}};
  // At the identity pose the direction's y and z are exactly 0 (the slab test's parallel branch);
  // at k_pose they are rounding noise.
  for (const Transform& pose : {Transform{}, k_pose}) {
    expect_hit(cast(box, pose, {-3, Real(0.999), 0}, {6, 0, 0}), Real(2.0 / 6), {-1, 0, 0}, pose);
    EXPECT_FALSE(cast(box, pose, {-3, Real(1.001), 0}, {6, 0, 0}));
    EXPECT_FALSE(cast(box, pose, {-3, 0, Real(-1.001)}, {6, 0, 0}));
  }
  // Sliding along a face at the identity pose touches the closed box from the start of contact.
  expect_hit(cast(box, {}, {-3, 1, 0}, {6, 0, 0}), Real(2.0 / 6), {-1, 0, 0}, {});
}

TEST(RaycastBox, RayThroughAnEdgeHitsAtTheEdge) {
  const Box box{{1, 1, 1}};
  const std::optional<RayHit> hit = cast(box, {}, {-3, -3, 0}, {6, 6, 0});
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->fraction, Real(2.0 / 6), k_tol);
  // Either face at the edge is a fair normal.
  EXPECT_TRUE(hit->normal == Vec3(-1, 0, 0) || hit->normal == Vec3(0, -1, 0));
}

TEST(RaycastBox, OriginOnAFaceEntersThroughItOrStartsInsideWhenLeaving) {
  const Box box{{1, 1, 1}};
  expect_hit(cast(box, {}, {1, Real(0.5), 0}, {-2, 0, 0}), 0, {1, 0, 0}, {});
  expect_hit(cast(box, {}, {1, Real(0.5), 0}, {2, 0, 0}), 0, {-1, 0, 0}, {});
}

TEST(RaycastCapsule, HitsTheSideWithARadialNormal) {
  const Capsule capsule{Real(0.4), Real(0.7)};
  expect_hit(cast(capsule, k_pose, {3, Real(0.5), 0}, {-6, 0, 0}), Real(2.6 / 6), {1, 0, 0});
  // Off the axis by 0.24 in z: enters at x = sqrt(0.16 - 0.0576) = 0.32.
  expect_hit(cast(capsule, k_pose, {3, Real(-0.6), Real(0.24)}, {-6, 0, 0}), Real(2.68 / 6),
             {Real(0.8), 0, Real(0.6)});
}

TEST(RaycastCapsule, RayAlongTheAxisHitsTheEndCap) {
  const Capsule capsule{Real(0.4), Real(0.7)};
  for (const Transform& pose : {Transform{}, k_pose}) {
    expect_hit(cast(capsule, pose, {0, 5, 0}, {0, -10, 0}), Real((5 - 1.1) / 10), {0, 1, 0}, pose);
    expect_hit(cast(capsule, pose, {0, -5, 0}, {0, 10, 0}), Real((5 - 1.1) / 10), {0, -1, 0}, pose);
    // Parallel to the axis, 0.24 off it: the cap at y = 0.7 + sqrt(0.16 - 0.0576) = 1.02.
    expect_hit(cast(capsule, pose, {Real(0.24), 5, 0}, {0, -10, 0}), Real((5 - 1.02) / 10),
               {Real(0.6), Real(0.8), 0}, pose);
    EXPECT_FALSE(cast(capsule, pose, {Real(0.401), 5, 0}, {0, -10, 0}));
  }
}

TEST(RaycastCapsule, ObliqueRayMissingTheSideEntersTheCapBall) {
  const Capsule capsule{Real(0.5), 1};
  // Aimed at the top ball's centre from the side and above: enters the ball before the cylinder.
  const Vec3 from{3, 4, 0};
  const Vec3 to{0, 1, 0};
  const std::optional<RayHit> hit = cast(capsule, k_pose, from, to - from);
  const Real travel = length(to - from);
  expect_hit(hit, (travel - Real(0.5)) / travel, normalize(from - to));
}

TEST(RaycastPolyhedron, CuboidViewAgreesWithTheBoxRaycast) {
  const Vec3 h{Real(0.5), 1, Real(1.5)};
  const TestPolyhedron poly = cuboid(h);
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> u(-3, 3);
  int hits = 0;
  for (int i = 0; i < 500; ++i) {
    const Vec3 origin{u(rng), u(rng), u(rng)};
    const Vec3 target{u(rng) / 2, u(rng) / 2, u(rng) / 2};
    const std::optional<RayHit> a = cast(poly.view(), k_pose, origin, target - origin);
    const std::optional<RayHit> b = cast(Box{h}, k_pose, origin, target - origin);
    ASSERT_EQ(a.has_value(), b.has_value());
    if (!a) continue;
    ++hits;
    EXPECT_NEAR(a->fraction, b->fraction, k_tol);
    expect_vec_near(a->normal, b->normal, k_tol);
  }
  EXPECT_GT(hits, 100);
}

TEST(RaycastPolyhedron, OctahedronFaceAndCornerHits) {
  const TestPolyhedron poly = octahedron({1, Real(1.5), 2});
  const PolyFace& face = poly.faces[7];  // the +x +y +z octant
  const Vec3 centroid = Vec3{1, Real(1.5), 2} / 3;
  expect_hit(cast(poly.view(), k_pose, centroid + 2 * face.normal, -4 * face.normal), Real(0.5),
             face.normal);
  // Straight at the +x corner: it enters there, through one of the four faces meeting at it.
  const std::optional<RayHit> corner = cast(poly.view(), k_pose, {5, 0, 0}, {-8, 0, 0});
  ASSERT_TRUE(corner);
  EXPECT_NEAR(corner->fraction, Real(0.5), k_tol);
  EXPECT_GT(dot(corner->normal, rotate(k_pose.orientation, Vec3::unit_x())), 0);
  EXPECT_FALSE(cast(poly.view(), k_pose, {5, Real(0.01), Real(0.01)}, {0, 8, 8}));
}

TEST(RaycastPlane, HitsTheSurfaceFromAboveWithTheUnitNormal) {
  const Plane plane{{0, 2, 0}, 1};  // not unit: the half-space y <= 0.5
  expect_hit(cast(plane, k_pose, {Real(0.3), 3, -1}, {1, -5, 2}), Real(0.5), {0, 1, 0});
  EXPECT_FALSE(cast(plane, k_pose, {0, 3, 0}, {0, -5, 0}, Real(0.49)));
}

TEST(RaycastPlane, ParallelOrRisingRaysMissAndRaysBelowStartInside) {
  const Plane plane{{0, 1, 0}, 0};
  EXPECT_FALSE(cast(plane, k_pose, {0, 1, 0}, {5, 0, 3}));
  EXPECT_FALSE(cast(plane, k_pose, {0, 1, 0}, {5, 1, 3}));
  const Vec3 d{5, 0, 3};
  expect_hit(cast(plane, k_pose, {0, -1, 0}, d), 0, -normalize(d));
}

// --- edge cases shared by every shape --------------------------------------------------------

template <class Shape>
void expect_common_edge_cases(const Shape& shape) {
  SCOPED_TRACE(::testing::UnitTest::GetInstance()->current_test_info()->name());
  const Vec3 d{Real(0.3), Real(-0.4), Real(1.2)};
  // From the centre: hits at 0, facing back along the ray.
  expect_hit(cast(shape, k_pose, Vec3::zero(), d), 0, -normalize(d));
  expect_hit(cast(shape, k_pose, Vec3::zero(), d, 0), 0, -normalize(d));
  // A zero direction is no ray, even from inside; an empty segment hits nothing.
  EXPECT_FALSE(cast(shape, k_pose, Vec3::zero(), Vec3::zero()));
  EXPECT_FALSE(cast(shape, k_pose, Vec3::zero(), d, -1));
  // Far away: misses, whichever way it points.
  EXPECT_FALSE(cast(shape, k_pose, {30, 30, 30}, d));
}

TEST(Raycast, StartsInsideZeroDirectionAndFarMissAlikeForEveryShape) {
  expect_common_edge_cases(Sphere{});
  expect_common_edge_cases(Box{});
  expect_common_edge_cases(Capsule{});
  const TestPolyhedron poly = octahedron({1, 2, 3});
  expect_common_edge_cases(poly.view());
  expect_common_edge_cases(Plane{{0, 0, 1}, 1});  // from below
}

// --- brute force: the hit agrees with a march along the ray ----------------------------------

// For random poses and rays, the first of 1000-odd samples along the segment that lies inside
// (the shape's own test, written here) agrees with the cast within one step; a hit the march
// stepped over is on the surface.
template <class Shape, class Inside>
void expect_agrees_with_march(const Shape& shape, Inside inside, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-1, 1);
  std::uniform_int_distribution<int> kind(0, 7);
  constexpr Real k_step = Real(1e-3);
  constexpr Real k_surface = Real(1e-4);
  int hits = 0;
  int starts_inside = 0;
  for (int i = 0; i < 1000; ++i) {
    const int k = kind(rng);
    // One ray in eight at the identity pose, where axis-parallel rays are exactly parallel.
    const Transform pose =
        k == 0 ? Transform{}
               : at({u(rng), u(rng), u(rng)}, about({u(rng), u(rng), u(rng)}, 180 * u(rng)));
    const Vec3 origin = 3 * Vec3{u(rng), u(rng), u(rng)};
    Vec3 direction = Real(1.5) * Vec3{u(rng), u(rng), u(rng)} - origin;
    if (k < 3) {  // along a local axis, so parallel to faces and to the capsule's axis
      const int axis = (i / 8) % 3;
      const Real along = direction[axis];
      direction = Vec3::zero();
      direction[axis] = along;
    }
    const Real max_fraction = Real(0.2) + (u(rng) + 1) * Real(0.6);
    const auto inside_at = [&](Real t, Real slack) {
      return inside(origin + t * direction, slack);
    };

    const std::optional<RayHit> hit = cast(shape, pose, origin, direction, max_fraction);
    std::optional<Real> first;
    for (Real t = 0; t <= max_fraction && !first; t += k_step) {
      if (inside_at(t, 0)) first = t;
    }
    if (first) {
      ASSERT_TRUE(hit) << "ray " << i;
      EXPECT_GE(hit->fraction, *first - k_step - k_tol) << "ray " << i;
      EXPECT_LE(hit->fraction, *first + k_tol) << "ray " << i;
    }
    if (!hit) continue;
    ++hits;
    EXPECT_NEAR(length(hit->normal), 1, k_tol);
    EXPECT_LE(hit->fraction, max_fraction);
    EXPECT_TRUE(inside_at(hit->fraction, k_surface)) << "ray " << i;
    if (hit->fraction > 0) {
      EXPECT_FALSE(inside_at(hit->fraction, -k_surface)) << "ray " << i;
      EXPECT_LE(dot(hit->normal, rotate(pose.orientation, direction)), k_tol) << "ray " << i;
    } else {
      ++starts_inside;
    }
  }
  EXPECT_GT(hits, 100);
  EXPECT_GT(starts_inside, 0);
}

TEST(Raycast, SphereAgreesWithMarch) {
  const Sphere s{Real(0.9)};
  expect_agrees_with_march(
      s, [&](const Vec3& p, Real slack) { return length(p) <= s.radius + slack; }, 1);
}

TEST(Raycast, BoxAgreesWithMarch) {
  const Box b{{Real(0.4), Real(1.1), Real(0.7)}};
  expect_agrees_with_march(
      b,
      [&](const Vec3& p, Real slack) {
        const Vec3 q = abs(p) - b.half_extents;
        return q.x <= slack && q.y <= slack && q.z <= slack;
      },
      2);
}

TEST(Raycast, CapsuleAgreesWithMarch) {
  const Capsule c{Real(0.5), Real(0.8)};
  expect_agrees_with_march(
      c,
      [&](const Vec3& p, Real slack) {
        const Vec3 axis_point{0, std::clamp(p.y, -c.half_height, c.half_height), 0};
        return distance(p, axis_point) <= c.radius + slack;
      },
      3);
}

TEST(Raycast, PolyhedraAgreeWithMarch) {
  for (const TestPolyhedron& poly :
       {cuboid({Real(0.4), Real(1.1), Real(0.7)}), octahedron({Real(1.2), Real(0.6), Real(1.5)})}) {
    expect_agrees_with_march(
        poly.view(), [&](const Vec3& p, Real slack) { return poly.contains(p, slack); }, 4);
  }
}

TEST(Raycast, PlaneAgreesWithMarch) {
  const Plane plane{{Real(0.3), 1, Real(-0.2)}, Real(0.4)};
  expect_agrees_with_march(
      plane,
      [&](const Vec3& p, Real slack) {
        return dot(plane.normal, p) <= plane.offset + slack * length(plane.normal);
      },
      5);
}

}  // namespace
}  // namespace impulse
