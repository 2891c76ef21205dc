// The world's ray and overlap queries against brute force over every body.

#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "collision/cooked_shape.h"
#include "support/bodies.h"

namespace impulse {
namespace {

using testing::body_of;

struct Scatter {
  World world;
  std::vector<BodyId> bodies;
};

// 300 static spheres and boxes at random poses in a 20 m cube.
Scatter scatter(std::uint32_t seed) {
  Scatter s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-10, 10), size(0.2f, 1.0f), unit(-1, 1);
  for (int i = 0; i < 300; ++i) {
    const Vec3 p{pos(rng), pos(rng), pos(rng)};
    ShapeGeometry g = i % 2 ? ShapeGeometry(Sphere{size(rng)})
                            : ShapeGeometry(Box{{size(rng), size(rng), size(rng)}});
    BodySettings b = body_of(g, p, BodyType::static_body);
    b.orientation = normalize(Quat{unit(rng), unit(rng), unit(rng), unit(rng)});
    s.bodies.push_back(s.world.create_body(b));
  }
  return s;
}

CookedShape shape_of(const World& world, BodyId id) {
  return cook_shape(world.body_settings(id).shapes[0].geometry);
}

TEST(WorldQueries, RaycastsAgreeWithBruteForce) {
  Scatter s = scatter(7);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(-12, 12);
  int hits = 0;
  for (int r = 0; r < 500; ++r) {
    const Vec3 origin{pos(rng), pos(rng), pos(rng)};
    const Vec3 direction = Vec3{pos(rng), pos(rng), pos(rng)} - origin;
    std::vector<std::pair<Real, std::uint32_t>> expected;
    for (const BodyId id : s.bodies) {
      RayHit hit;
      if (raycast_shape(shape_of(s.world, id), s.world.transform(id), origin, direction, 1, hit))
        expected.emplace_back(hit.fraction, id.index);
    }
    std::sort(expected.begin(), expected.end());
    const std::vector<RaycastHit> all = s.world.raycast_all(origin, direction);
    ASSERT_EQ(all.size(), expected.size()) << "ray " << r;
    for (std::size_t k = 0; k < all.size(); ++k) {
      EXPECT_EQ(all[k].body.index, expected[k].second);
      EXPECT_EQ(all[k].fraction, expected[k].first);
    }
    const std::optional<RaycastHit> closest = s.world.raycast(origin, direction);
    ASSERT_EQ(closest.has_value(), !expected.empty());
    if (!closest) continue;
    ++hits;
    EXPECT_EQ(closest->fraction, expected.front().first);
    const Vec3 point = origin + direction * expected.front().first;
    EXPECT_LT(length(closest->point - point), Real(1e-4));
  }
  EXPECT_GT(hits, 100);  // the check must see hits, not only misses
}

TEST(WorldQueries, BoxOverlapsAgreeWithBruteForceOverBounds) {
  Scatter s = scatter(8);
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> pos(-10, 10), size(0.1f, 3.0f);
  for (int q = 0; q < 200; ++q) {
    const AABB box = AABB::from_center_half_extents({pos(rng), pos(rng), pos(rng)},
                                                    {size(rng), size(rng), size(rng)});
    std::vector<std::uint32_t> expected;
    for (const BodyId id : s.bodies) {
      if (shape_bounds(shape_of(s.world, id), s.world.transform(id)).overlaps(box))
        expected.push_back(id.index);
    }
    std::vector<std::uint32_t> found;
    for (const BodyId id : s.world.overlap_aabb(box))
      found.push_back(id.index);
    EXPECT_EQ(found, expected) << "query " << q;
  }
}

// Exact distance from a point to a body made of one sphere or box.
Real distance_to(const World& world, BodyId id, const Vec3& p) {
  const Transform t = world.transform(id);
  const ShapeGeometry g = world.body_settings(id).shapes[0].geometry;
  const Vec3 local = inverse_rotate(t.orientation, p - t.position);
  if (const auto* sphere = std::get_if<Sphere>(&g)) return length(local) - sphere->radius;
  const Vec3 h = std::get<Box>(g).half_extents;
  const Vec3 closest = min(max(local, -h), h);
  return length(local - closest);  // 0 inside: any overlap counts
}

TEST(WorldQueries, SphereOverlapsAgreeWithExactDistances) {
  Scatter s = scatter(9);
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> pos(-10, 10), size(0.1f, 2.0f);
  for (int q = 0; q < 200; ++q) {
    const Vec3 c{pos(rng), pos(rng), pos(rng)};
    const Real r = size(rng);
    std::vector<std::uint32_t> expected, unsure;
    for (const BodyId id : s.bodies) {
      const Real d = distance_to(s.world, id, c) - r;
      if (d <= -Real(1e-4)) expected.push_back(id.index);
      if (std::abs(d) < Real(1e-4)) unsure.push_back(id.index);  // touching: float decides
    }
    std::vector<std::uint32_t> found;
    for (const BodyId id : s.world.overlap_sphere(c, r)) {
      if (std::find(unsure.begin(), unsure.end(), id.index) == unsure.end())
        found.push_back(id.index);
    }
    EXPECT_EQ(found, expected) << "query " << q;
  }
}

TEST(WorldQueries, BoxOverlapFindsTheBodiesItTouchesAndNotThoseItMisses) {
  World world;
  const BodyId near = world.create_body(body_of(Sphere{Real(0.5)}, {2, 0, 0}));
  const BodyId far = world.create_body(body_of(Box{}, {0, 3, 0}));
  // A unit box turned 45 degrees about z reaches sqrt(2)/2 along x: it overlaps the sphere
  // (whose surface is at x = 1.5) only when centred beyond x = 0.79.
  const Transform turned{{Real(0.85), 0, 0}, Quat::from_axis_angle({0, 0, 1}, k_pi / 4)};
  std::vector<BodyId> found = world.overlap_box(Box{Vec3::splat(Real(0.5))}, turned);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], near);
  found = world.overlap_box(Box{Vec3::splat(Real(0.5))}, {{Real(0.7), 0, 0}, turned.orientation});
  EXPECT_TRUE(found.empty());
  found = world.overlap_box(Box{{Real(0.5), 2, Real(0.5)}}, {{0, Real(0.6), 0}, Quat::identity()});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], far);
}

TEST(WorldQueries, DebugTreeLeavesHoldEveryShape) {
  Scatter s = scatter(10);
  std::size_t leaves = 0;
  for (const DebugTreeBox& node : s.world.debug_tree())
    leaves += node.height == 0 ? 1 : 0;
  EXPECT_EQ(leaves, s.bodies.size());
  for (const BodyId id : s.bodies) {
    const AABB exact = shape_bounds(shape_of(s.world, id), s.world.transform(id));
    const std::vector<DebugTreeBox> tree = s.world.debug_tree();
    EXPECT_TRUE(std::any_of(tree.begin(), tree.end(), [&](const DebugTreeBox& node) {
      return node.height == 0 && node.box.contains(exact);
    }));
  }
}

}  // namespace
}  // namespace impulse
