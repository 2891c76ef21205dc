// World bounds of shapes (shape_bounds.h) and the support mappings they are checked with
// (support.h).

#include "collision/shape_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "collision/aabb_tree.h"
#include "collision/support.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;
using testing::expect_vec_near;

constexpr Real k_tol = Real(1e-5);

using Sampler = std::function<Vec3(std::mt19937&)>;

Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<Real> n;
  return normalize({n(rng), n(rng), n(rng)});
}

Transform random_pose(std::mt19937& rng) {
  std::uniform_real_distribution<Real> u(-1, 1);
  return at(3 * Vec3{u(rng), u(rng), u(rng)}, about(random_unit(rng), 180 * u(rng)));
}

// Uniform-ish points on each surface, in the shape frame.
Vec3 on_sphere(const Sphere& s, std::mt19937& rng) {
  return s.radius * random_unit(rng);
}

Vec3 on_box(const Box& b, std::mt19937& rng) {
  std::uniform_real_distribution<Real> u(-1, 1);
  Vec3 p = hadamard(b.half_extents, {u(rng), u(rng), u(rng)});
  const int axis = std::uniform_int_distribution<int>(0, 2)(rng);
  p[axis] = p[axis] < 0 ? -b.half_extents[axis] : b.half_extents[axis];
  return p;
}

Vec3 on_capsule(const Capsule& c, std::mt19937& rng) {
  std::uniform_real_distribution<Real> u(-1, 1);
  const Vec3 n = random_unit(rng);
  if (u(rng) < 0) {  // the side
    const Vec3 radial = normalize(Vec3{n.x, 0, n.z});
    return Vec3{0, c.half_height * u(rng), 0} + c.radius * radial;
  }
  return Vec3{0, n.y < 0 ? -c.half_height : c.half_height, 0} + c.radius * n;
}

// Every sampled surface point lies in the bounds, and each face of the bounds touches the
// shape: the support point along that world axis reaches it.
void expect_tight_bounds(const AABB& box, const Transform& pose, const Sampler& on_surface,
                         const std::function<Vec3(const Vec3&)>& local_support, std::mt19937& rng) {
  for (int i = 0; i < 200; ++i) {
    const Vec3 p = apply(pose, on_surface(rng));
    EXPECT_TRUE(box.expanded(k_tol).contains(p));
  }
  for (int k = 0; k < 3; ++k) {
    Vec3 axis;
    axis[k] = 1;
    const Vec3 up = apply(pose, local_support(inverse_rotate(pose.orientation, axis)));
    const Vec3 down = apply(pose, local_support(inverse_rotate(pose.orientation, -axis)));
    EXPECT_NEAR(box.upper[k], up[k], k_tol);
    EXPECT_NEAR(box.lower[k], down[k], k_tol);
  }
}

TEST(ShapeBounds, SphereBoxAndCapsuleAreTightAtRandomPoses) {
  std::mt19937 rng(11);
  const Sphere sphere{Real(0.7)};
  const Box box{{Real(0.3), Real(1.2), Real(0.6)}};
  const Capsule capsule{Real(0.35), Real(0.9)};
  for (int i = 0; i < 20; ++i) {
    const Transform pose = random_pose(rng);
    expect_tight_bounds(
        bounds(sphere, pose), pose, [&](std::mt19937& g) { return on_sphere(sphere, g); },
        [&](const Vec3& d) { return support(sphere, d); }, rng);
    expect_tight_bounds(
        bounds(box, pose), pose, [&](std::mt19937& g) { return on_box(box, g); },
        [&](const Vec3& d) { return support(box, d); }, rng);
    expect_tight_bounds(
        bounds(capsule, pose), pose, [&](std::mt19937& g) { return on_capsule(capsule, g); },
        [&](const Vec3& d) { return support(capsule, d); }, rng);
  }
}

TEST(ShapeBounds, PolyhedronBoundsAreExactOverItsVertices) {
  // The bounds read only the vertices, so a view over a point cloud will do.
  std::mt19937 rng(12);
  std::uniform_real_distribution<Real> u(-1, 1);
  std::vector<Vec3> vertices;
  for (int i = 0; i < 40; ++i)
    vertices.push_back({u(rng), 2 * u(rng), u(rng) / 2});
  const PolyhedronView view{vertices, {}, {}, {}, {}};
  for (int i = 0; i < 20; ++i) {
    const Transform pose = random_pose(rng);
    const auto farthest = [&](const Vec3& local_direction) {
      Vec3 best = vertices[0];
      for (const Vec3& v : vertices) {
        if (dot(v, local_direction) > dot(best, local_direction)) best = v;
      }
      return best;
    };
    std::uniform_int_distribution<std::size_t> pick(0, vertices.size() - 1);
    expect_tight_bounds(
        bounds(view, pose), pose, [&](std::mt19937& g) { return vertices[pick(g)]; }, farthest,
        rng);
  }
}

TEST(ShapeBounds, GroundPlaneIsBoundedByItsSurfaceAndFiniteElsewhere) {
  constexpr Real l = k_plane_bounds_extent;
  // Normal 3 y (not unit), offset 1.5: the half-space y <= 0.5 in its frame, raised by 2.
  const AABB ground = bounds(Plane{{0, 3, 0}, Real(1.5)}, at({1, 2, 3}));
  expect_vec_near(ground.lower, Vec3::splat(-l), 0);
  expect_vec_near(ground.upper, {l, Real(2.5), l}, 0);
  // Turned so the normal points along -x: a wall bounded below in x.
  // The turned normal is along -x only to rounding (a tilt of about k_epsilon), and the bound
  // honours that tilt out to the cube's edge: 0.1 m at most.
  const AABB wall = bounds(Plane{{0, 1, 0}, 1}, at({0, 0, 0}, about({0, 0, 1}, 90)));
  EXPECT_NEAR(wall.lower.x, -1, l * k_epsilon);
  EXPECT_EQ(wall.upper.x, l);
  EXPECT_EQ(wall.lower.y, -l);
}

TEST(ShapeBounds, TiltedPlaneIsBoundedWhereTheWorldCubeAllows) {
  constexpr Real l = k_plane_bounds_extent;
  // A 1 in 1000 slope: at the cube's edge x = -1e6 the surface is 1000 m up.
  const Plane plane{{Real(0.001), 1, 0}, 0};
  const AABB box = bounds(plane, {});
  EXPECT_NEAR(box.upper.y, 1000, 1000 * k_tol);
  EXPECT_EQ(box.lower.y, -l);
  EXPECT_EQ(box.upper.x, l);
  EXPECT_TRUE(std::isfinite(box.half_area()));
  // Points of the half-space inside the cube lie in the box.
  std::mt19937 rng(13);
  std::uniform_real_distribution<Real> u(-l, l);
  for (int i = 0; i < 1000; ++i) {
    const Vec3 p{u(rng), u(rng), u(rng)};
    if (dot(plane.normal, p) <= plane.offset) {
      EXPECT_TRUE(box.contains(p));
    }
  }
}

TEST(ShapeBounds, PlaneInTheTreeOverlapsOnlyWhatIsNearItsSurface) {
  AabbTree tree;
  const std::int32_t ground = tree.create_proxy(bounds(Plane{}, {}), 0);
  std::mt19937 rng(14);
  std::uniform_real_distribution<Real> u(-50, 50);
  for (std::uint64_t i = 1; i <= 200; ++i) {
    tree.create_proxy(bounds(Box{}, at({u(rng), u(rng) + 50, u(rng)})), i);
  }
  tree.validate();
  EXPECT_TRUE(std::isfinite(tree.area_ratio()));
  const auto touches_ground = [&](const AABB& box) {
    bool found = false;
    tree.query(box, [&](std::int32_t id) {
      found = found || id == ground;
      return true;
    });
    return found;
  };
  EXPECT_TRUE(touches_ground(bounds(Sphere{}, at({1000, Real(0.4), -1000}))));
  EXPECT_FALSE(touches_ground(bounds(Sphere{}, at({0, 1, 0}))));
}

// --- support mappings -----------------------------------------------------------------------

// support(d) is on the surface and no sampled surface point lies farther along d.
void expect_support_maximises(const std::function<Vec3(const Vec3&)>& support_of,
                              const Sampler& on_surface,
                              const std::function<bool(const Vec3&)>& on_surface_test,
                              std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Vec3> samples;
  for (int i = 0; i < 2000; ++i)
    samples.push_back(on_surface(rng));
  for (int i = 0; i < 50; ++i) {
    const Vec3 d = Real(0.1 + i) * random_unit(rng);  // any length
    const Vec3 s = support_of(d);
    EXPECT_TRUE(on_surface_test(s));
    for (const Vec3& x : samples)
      ASSERT_LE(dot(d, x), dot(d, s) + k_tol * length(d));
  }
}

TEST(Support, SphereBoxAndCapsuleMaximiseTheDirectionOverTheirSurface) {
  const Sphere sphere{Real(0.7)};
  const Box box{{Real(0.3), Real(1.2), Real(0.6)}};
  const Capsule capsule{Real(0.35), Real(0.9)};
  expect_support_maximises(
      [&](const Vec3& d) { return support(sphere, d); },
      [&](std::mt19937& g) { return on_sphere(sphere, g); },
      [&](const Vec3& p) { return std::abs(length(p) - sphere.radius) < k_tol; }, 1);
  expect_support_maximises([&](const Vec3& d) { return support(box, d); },
                           [&](std::mt19937& g) { return on_box(box, g); },
                           [&](const Vec3& p) { return abs(p) == box.half_extents; },
                           2);  // a corner
  expect_support_maximises([&](const Vec3& d) { return support(capsule, d); },
                           [&](std::mt19937& g) { return on_capsule(capsule, g); },
                           [&](const Vec3& p) {
                             const Real y =
                                 std::clamp(p.y, -capsule.half_height, capsule.half_height);
                             return std::abs(distance(p, {0, y, 0}) - capsule.radius) < k_tol;
                           },
                           3);
}

TEST(Support, TiesAndZeroDirectionsGiveAPointOfTheShape) {
  const Box box{{1, 2, 3}};
  expect_vec_near(support(box, {0, 0, 1}), {1, 2, 3}, 0);  // a face: its + corner
  expect_vec_near(support(box, Vec3::zero()), {1, 2, 3}, 0);
  expect_vec_near(support(Sphere{2}, Vec3::zero()), Vec3::zero(), 0);
  const Capsule capsule{Real(0.5), 1};
  expect_vec_near(support(capsule, {1, 0, 0}), {Real(0.5), 1, 0}, 0);  // the side: its + end
  expect_vec_near(support(capsule, Vec3::zero()), {0, 1, 0}, 0);
}

}  // namespace
}  // namespace impulse
