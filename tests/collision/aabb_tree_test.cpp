#include "collision/aabb_tree.h"
#include "collision/broadphase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace impulse {
namespace {

AABB random_box(std::mt19937& rng, Real world_half_size) {
  std::uniform_real_distribution<Real> position(-world_half_size, world_half_size);
  std::uniform_real_distribution<Real> size(Real(0.1), Real(0.6));
  return AABB::from_center_half_extents({position(rng), position(rng), position(rng)},
                                        {size(rng), size(rng), size(rng)});
}

AABB translated(const AABB& box, const Vec3& d) {
  return {box.lower + d, box.upper + d};
}

std::vector<std::int32_t> brute_force_query(const AabbTree& tree,
                                            const std::vector<std::int32_t>& ids, const AABB& box) {
  std::vector<std::int32_t> hits;
  for (const std::int32_t id : ids) {
    if (tree.fat_aabb(id).overlaps(box)) hits.push_back(id);
  }
  return hits;
}

TEST(Broadphase, TreePairsEqualBruteForceEveryStepOfRandomMotion) {
  std::mt19937 rng(7);
  Broadphase broadphase;
  std::vector<AABB> boxes;
  std::vector<std::int32_t> ids;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    boxes.push_back(random_box(rng, 15));
    ids.push_back(broadphase.create_proxy(boxes.back(), i));
  }
  std::uniform_real_distribution<Real> unit(-1, 1);
  std::uniform_int_distribution<int> kind(0, 99);
  // Persistent pairs as a caller keeps them: new pairs from update_pairs, minus the pairs whose
  // fat boxes stopped overlapping. This must equal brute force too.
  std::set<ProxyPair> persistent;
  std::vector<ProxyPair> reported, tree_pairs, brute_pairs;
  int reinserted = 0;
  for (int step = 0; step < 100; ++step) {
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const int k = kind(rng);
      if (k < 20) continue;                        // stationary
      const Real scale = k < 95 ? Real(0.05) : 8;  // small drift or a large jump
      const Vec3 d{scale * unit(rng), scale * unit(rng), scale * unit(rng)};
      boxes[i] = translated(boxes[i], d);
      const AABB before = broadphase.tree().fat_aabb(ids[i]);
      broadphase.move_proxy(ids[i], boxes[i], d);
      if (!(broadphase.tree().fat_aabb(ids[i]) == before)) ++reinserted;
    }
    broadphase.update_pairs(reported);
    ASSERT_TRUE(std::is_sorted(reported.begin(), reported.end()));
    std::erase_if(persistent, [&](const ProxyPair& p) {
      return !broadphase.tree()
                  .fat_aabb(ids[p.first])
                  .overlaps(broadphase.tree().fat_aabb(ids[p.second]));
    });
    persistent.insert(reported.begin(), reported.end());

    broadphase.all_pairs(tree_pairs);
    broadphase.brute_force_pairs(brute_pairs);
    ASSERT_NO_THROW(broadphase.tree().validate()) << "step " << step;
    ASSERT_EQ(tree_pairs, brute_pairs) << "step " << step;
    ASSERT_EQ(std::vector<ProxyPair>(persistent.begin(), persistent.end()), brute_pairs)
        << "step " << step;
  }
  EXPECT_GT(brute_pairs.size(), 100u);  // the scene is dense enough to test something
  EXPECT_GT(reinserted, 1000);
}

TEST(Broadphase, UpdatePairsReportsOnlyPairsWithAMovedProxyOnce) {
  Broadphase broadphase;
  const AABB unit = AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(Real(0.5)));
  const std::int32_t a = broadphase.create_proxy(unit, 10);
  broadphase.create_proxy(translated(unit, {Real(0.5), 0, 0}), 20);
  const std::int32_t c = broadphase.create_proxy(translated(unit, {5, 0, 0}), 30);
  std::vector<ProxyPair> pairs;
  broadphase.update_pairs(pairs);
  EXPECT_EQ(pairs, (std::vector<ProxyPair>{{10, 20}}));
  broadphase.update_pairs(pairs);
  EXPECT_TRUE(pairs.empty());  // nothing moved
  broadphase.move_proxy(c, translated(unit, {Real(0.8), 0, 0}), {Real(-4.2), 0, 0});
  broadphase.update_pairs(pairs);
  EXPECT_EQ(pairs, (std::vector<ProxyPair>{{10, 30}, {20, 30}}));  // not the unmoved (10, 20)
  broadphase.touch_proxy(a);
  broadphase.update_pairs(pairs);
  EXPECT_EQ(pairs, (std::vector<ProxyPair>{{10, 20}, {10, 30}}));
}

TEST(AabbTree, OverlapQueriesMatchBruteForce) {
  std::mt19937 rng(11);
  AabbTree tree;
  std::vector<std::int32_t> ids;
  for (std::uint64_t i = 0; i < 1000; ++i)
    ids.push_back(tree.create_proxy(random_box(rng, 15), i));
  std::uniform_real_distribution<Real> position(-16, 16);
  std::uniform_real_distribution<Real> size(0, 3);
  int total_hits = 0;
  for (int q = 0; q < 300; ++q) {
    const AABB box = AABB::from_center_half_extents({position(rng), position(rng), position(rng)},
                                                    {size(rng), size(rng), size(rng)});
    std::vector<std::int32_t> hits;
    tree.query(box, [&](std::int32_t id) {
      hits.push_back(id);
      return true;
    });
    std::sort(hits.begin(), hits.end());
    const std::vector<std::int32_t> expected = brute_force_query(tree, ids, box);
    ASSERT_EQ(hits, expected);
    total_hits += static_cast<int>(hits.size());
  }
  EXPECT_GT(total_hits, 300);
}

TEST(AabbTree, QueryStopsWhenCallbackReturnsFalse) {
  AabbTree tree;
  for (std::uint64_t i = 0; i < 50; ++i) {
    tree.create_proxy(AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(1)), i);
  }
  int calls = 0;
  tree.query(AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(1)), [&](std::int32_t) {
    ++calls;
    return calls < 3;
  });
  EXPECT_EQ(calls, 3);
}

TEST(AabbTree, RaycastClosestAndAllHitsMatchBruteForce) {
  std::mt19937 rng(13);
  AabbTree tree;
  std::vector<std::int32_t> ids;
  for (std::uint64_t i = 0; i < 1000; ++i)
    ids.push_back(tree.create_proxy(random_box(rng, 15), i));
  std::uniform_real_distribution<Real> position(-20, 20);
  std::uniform_int_distribution<int> axis_aligned(0, 3);
  int closest_hits = 0;
  for (int q = 0; q < 300; ++q) {
    const Vec3 origin{position(rng), position(rng), position(rng)};
    Vec3 direction = Vec3{position(rng), position(rng), position(rng)} - origin;
    if (axis_aligned(rng) == 0) direction.y = direction.z = 0;  // exercises parallel slabs
    const Ray ray(origin, direction);
    const Real max_fraction = 1;

    std::vector<std::int32_t> expected_all;
    Real expected_closest = 2;
    for (const std::int32_t id : ids) {
      const Real t = ray.entry_fraction(tree.fat_aabb(id), max_fraction);
      if (t < 0) continue;
      expected_all.push_back(id);
      expected_closest = std::min(expected_closest, t);
    }

    std::vector<std::int32_t> all;
    tree.raycast(origin, direction, max_fraction, [&](std::int32_t id) {
      all.push_back(id);
      return max_fraction;
    });
    std::sort(all.begin(), all.end());
    ASSERT_EQ(all, expected_all);

    Real closest = 2;
    tree.raycast(origin, direction, max_fraction, [&](std::int32_t id) {
      const Real t = ray.entry_fraction(tree.fat_aabb(id), closest);
      if (t < 0) return Real(-1);  // the callback's own test may reject a proxy
      closest = std::min(closest, t);
      return closest;
    });
    ASSERT_EQ(closest, expected_closest);
    if (closest <= 1) ++closest_hits;
  }
  EXPECT_GT(closest_hits, 50);
}

TEST(AabbTree, RaycastStopsWhenCallbackReturnsZero) {
  AabbTree tree;
  for (int i = 0; i < 10; ++i) {
    tree.create_proxy(AABB::from_center_half_extents({Real(i), 0, 0}, Vec3::splat(Real(0.2))), i);
  }
  int calls = 0;
  tree.raycast({-1, 0, 0}, {20, 0, 0}, 1, [&](std::int32_t) {
    ++calls;
    return Real(0);
  });
  EXPECT_EQ(calls, 1);
}

TEST(AabbTree, DestroyCreateChurnStaysValidAndReusesNodeSlots) {
  std::mt19937 rng(17);
  AabbTree tree;
  std::vector<std::int32_t> live;
  for (std::uint64_t i = 0; i < 500; ++i)
    live.push_back(tree.create_proxy(random_box(rng, 10), i));
  const int capacity = tree.node_capacity();
  std::uniform_int_distribution<int> coin(0, 1);
  for (int round = 0; round < 2000; ++round) {
    // Keep the live count within [450, 500] so every create can take a freed slot.
    if ((coin(rng) == 0 && live.size() > 450) || live.size() == 500) {
      const std::size_t k = std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng);
      tree.destroy_proxy(live[k]);
      live[k] = live.back();
      live.pop_back();
    } else {
      live.push_back(tree.create_proxy(random_box(rng, 10), 1000 + round));
    }
    if (round % 50 == 0) {
      ASSERT_NO_THROW(tree.validate()) << "round " << round;
    }
  }
  EXPECT_NO_THROW(tree.validate());
  EXPECT_EQ(tree.proxy_count(), static_cast<int>(live.size()));
  EXPECT_EQ(tree.node_capacity(), capacity);  // every node came from the free list
  for (const std::int32_t id : live)
    tree.destroy_proxy(id);
  EXPECT_NO_THROW(tree.validate());
  EXPECT_EQ(tree.height(), -1);
}

// A turn that moves the shape's points by less than the margin keeps its fat box while its box
// widened by the turn fits; one that moves them farther makes a fat box widened by the turn, not
// by the turn and the margin (a tumbling pile's fat boxes would meet more pairs).
TEST(AabbTree, ATurningProxysFatBoxHoldsWhereItsTurnMayTakeIt) {
  AabbTree tree(Real(0.1));
  const AABB box = AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(Real(0.5)));
  const std::int32_t id = tree.create_proxy(box, 1);
  EXPECT_FALSE(tree.move_proxy(id, box, {}, Real(0.05)));
  EXPECT_EQ(tree.fat_aabb(id), box.expanded(Real(0.1)));
  const AABB shifted = translated(box, {Real(0.06), 0, 0});
  EXPECT_TRUE(tree.move_proxy(id, shifted, {}, Real(0.05)));  // 0.06 + 0.05 > 0.1
  EXPECT_EQ(tree.fat_aabb(id), shifted.expanded(Real(0.1)));
  EXPECT_TRUE(tree.move_proxy(id, shifted, {}, Real(0.3)));
  EXPECT_EQ(tree.fat_aabb(id), shifted.expanded(Real(0.3)));
  EXPECT_NO_THROW(tree.validate());
}

TEST(AabbTree, SmallMoveStaysInFatBoxAndLargeMoveReinsertsStretchedAlongMotion) {
  AabbTree tree(Real(0.1));
  const AABB box = AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(Real(0.5)));
  const std::int32_t id = tree.create_proxy(box, 42);
  EXPECT_EQ(tree.fat_aabb(id), box.expanded(Real(0.1)));
  EXPECT_EQ(tree.user_data(id), 42u);

  const Vec3 small{Real(0.05), 0, 0};
  EXPECT_FALSE(tree.move_proxy(id, translated(box, small), small));
  EXPECT_EQ(tree.fat_aabb(id), box.expanded(Real(0.1)));

  const Vec3 large{Real(0.5), 0, Real(-0.25)};
  const AABB moved = translated(box, large);
  EXPECT_TRUE(tree.move_proxy(id, moved, large));
  const AABB fat = tree.fat_aabb(id);
  EXPECT_TRUE(fat.contains(moved));
  EXPECT_FLOAT_EQ(fat.upper.x, moved.upper.x + Real(0.1) + Real(0.5));  // ahead of the motion
  EXPECT_FLOAT_EQ(fat.lower.x, moved.lower.x - Real(0.1));
  EXPECT_FLOAT_EQ(fat.lower.z, moved.lower.z - Real(0.1) - Real(0.25));
  EXPECT_FLOAT_EQ(fat.upper.z, moved.upper.z + Real(0.1));
  EXPECT_NO_THROW(tree.validate());
}

TEST(AabbTree, HeightStaysLogarithmicForSortedInsertionAlongALine) {
  AabbTree tree;
  const int n = 10000;
  for (int i = 0; i < n; ++i) {
    tree.create_proxy(AABB::from_center_half_extents({Real(i), 0, 0}, Vec3::splat(Real(0.4))), i);
  }
  EXPECT_NO_THROW(tree.validate());
  EXPECT_LT(tree.height(), 3 * std::log2(n) + 4);
  EXPECT_GE(tree.area_ratio(), 1);
  EXPECT_TRUE(std::isfinite(tree.area_ratio()));
}

TEST(AabbTree, BodiesFlungPastTheFloatAreaStillBuildACheapTree) {
  // Boxes at +-1e20 m make the root wider than float's areas reach (1.8e19 m): its area is 1e40,
  // and costs that subtract such areas must not be inf - inf.
  AabbTree tree;
  std::mt19937 rng(5);
  std::vector<std::int32_t> ids;
  for (int i = 0; i < 2000; ++i) {
    const Real far = i % 100 == 0 ? Real(1e20) * Real(i % 200 == 0 ? 1 : -1) : 0;
    const AABB box = translated(random_box(rng, 20), {far, far, far});
    ids.push_back(tree.create_proxy(box, i));
  }
  EXPECT_NO_THROW(tree.validate());
  EXPECT_TRUE(std::isfinite(tree.area_ratio()));
  // The boxes near the origin stay in subtrees of their own: the sum of the internal nodes' areas
  // is the far boxes' few spanning nodes, not most of the tree's.
  EXPECT_LT(tree.area_ratio(), 4);
  const AABB probe = AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(3));
  std::vector<std::int32_t> hits;
  tree.query(probe, [&](std::int32_t id) {
    hits.push_back(id);
    return true;
  });
  std::sort(hits.begin(), hits.end());
  EXPECT_EQ(hits, brute_force_query(tree, ids, probe));
}

TEST(AabbTree, EmptyTreeHasNoHits) {
  const AabbTree tree;
  EXPECT_EQ(tree.height(), -1);
  EXPECT_EQ(tree.area_ratio(), 0);
  int calls = 0;
  tree.query(AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(1)), [&](std::int32_t) {
    ++calls;
    return true;
  });
  tree.raycast(Vec3::zero(), Vec3::unit_x(), 1, [&](std::int32_t) {
    ++calls;
    return Real(1);
  });
  EXPECT_EQ(calls, 0);
  EXPECT_NO_THROW(tree.validate());
}

}  // namespace
}  // namespace impulse
