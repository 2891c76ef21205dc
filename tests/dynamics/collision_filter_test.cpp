// Collision filters: the rule (categories and masks, groups that always or never touch), and in a
// world: a body falls freely through what its filter leaves out and rests on what it does not,
// a negative group's bodies pass through one another, a filter changed at rest takes effect, and
// filtered queries see only the bodies their filter would touch.

#include <impulse/collision_filter.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include "support/bodies.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr std::uint32_t k_all = ~std::uint32_t(0);

TEST(CollisionFilter, CategoriesMustBeInEachOthersMasks) {
  EXPECT_TRUE(filters_collide({}, {}));
  EXPECT_TRUE(filters_collide({2, 1}, {1, 2}));
  EXPECT_FALSE(filters_collide({2, 1}, {1, 1}));  // 2 is not in the second's mask
  EXPECT_FALSE(filters_collide({1, 1}, {2, 1}));  // symmetric
  EXPECT_FALSE(filters_collide({1, 0}, {}));      // a mask of nothing touches nothing
  EXPECT_FALSE(filters_collide({0, k_all}, {}));  // nor does a body of no category
}

TEST(CollisionFilter, ASharedGroupDecidesBeforeTheMasks) {
  EXPECT_TRUE(filters_collide({2, 1, 5}, {2, 1, 5}));             // masks exclude, the group admits
  EXPECT_FALSE(filters_collide({1, k_all, -5}, {1, k_all, -5}));  // masks admit, the group excludes
  EXPECT_TRUE(filters_collide({1, k_all, -5}, {1, k_all, -6}));   // other groups: the masks decide
  EXPECT_FALSE(filters_collide({1, 2, 5}, {1, 2, 7}));
}

WorldSettings test_settings(bool sleeping = false) {
  WorldSettings settings;
  settings.sleeping = sleeping;
  return settings;
}

BodySettings unit_box(const Vec3& position, const CollisionFilter& filter = {}) {
  BodySettings box = body_of(Box{}, position);
  box.collision_filter = filter;
  return box;
}

TEST(CollisionFilter, ABodyFallsFreelyThroughWhatItsMaskLeavesOut) {
  World world(test_settings());
  world.create_body(ground_box());
  const BodyId ghost = world.create_body(unit_box({0, 2, 0}, {2, ~std::uint32_t(1)}));
  const BodyId solid = world.create_body(unit_box({3, 2, 0}, {2, k_all}));
  const Real dt = world.settings().timestep, g = -world.settings().gravity.y;
  constexpr int k_steps = 90;
  for (int i = 0; i < k_steps; ++i)
    world.step(dt);
  // Semi-implicit Euler's free fall: y_n = y_0 - g dt^2 n (n + 1) / 2.
  EXPECT_NEAR(world.position(ghost).y, 2 - g * dt * dt * k_steps * (k_steps + 1) / 2, 1e-3);
  EXPECT_NEAR(world.position(solid).y, Real(0.5), Real(0.01));
  EXPECT_EQ(world.collision_filter(ghost), (CollisionFilter{2, ~std::uint32_t(1)}));
}

// A box resting on the ground and a second dropped onto it from 0.1 m above, both in `group`
// with masks that leave each other out when `exclusive`: the dropped box's height after 2 s.
Real dropped_box_height(std::int32_t group, bool exclusive) {
  World world(test_settings());
  world.create_body(ground_box());
  const CollisionFilter filter{2, exclusive ? ~std::uint32_t(2) : k_all, group};
  const BodyId below = world.create_body(unit_box({0, Real(0.5), 0}, filter));
  const BodyId dropped = world.create_body(unit_box({0, Real(1.6), 0}, filter));
  for (int i = 0; i < 120; ++i)
    world.step(world.settings().timestep);
  EXPECT_NEAR(world.position(below).y, Real(0.5), Real(0.01));
  EXPECT_NEAR(world.position(below).x, 0, Real(1e-4));  // not pushed aside by the other
  return world.position(dropped).y;
}

TEST(CollisionFilter, ANegativeGroupsBodiesPassThroughOneAnother) {
  EXPECT_NEAR(dropped_box_height(0, false), Real(1.5), Real(0.01));   // stacked
  EXPECT_NEAR(dropped_box_height(-1, false), Real(0.5), Real(0.01));  // through, onto the ground
  EXPECT_NEAR(dropped_box_height(0, true), Real(0.5), Real(0.01));
  EXPECT_NEAR(dropped_box_height(1, true), Real(1.5), Real(0.01));  // the group admits them
}

TEST(CollisionFilter, AFilterChangedAtRestWakesTheBodyAndTakesEffect) {
  World world(test_settings(true));
  BodySettings ground = ground_box();
  ground.collision_filter.category = 4;
  world.create_body(ground);
  const BodyId below = world.create_body(unit_box({0, Real(0.5), 0}));
  const BodyId above = world.create_body(unit_box({0, Real(1.5), 0}));
  for (int i = 0; i < 120; ++i)
    world.step(world.settings().timestep);
  ASSERT_TRUE(world.is_asleep(above));
  EXPECT_NEAR(world.position(above).y, Real(1.5), Real(0.01));

  world.set_collision_filter(above, {1, 4});  // the ground only
  EXPECT_FALSE(world.is_asleep(above));
  EXPECT_EQ(world.body_settings(above).collision_filter, (CollisionFilter{1, 4}));
  for (int i = 0; i < 120; ++i)
    world.step(world.settings().timestep);
  EXPECT_NEAR(world.position(above).y, Real(0.5), Real(0.01));
  EXPECT_NEAR(world.position(below).y, Real(0.5), Real(0.01));
}

// Three static unit boxes of categories 1, 2 and 4 in a row along x, 2 m apart, the third in
// group -7.
struct Row {
  World world;
  std::vector<BodyId> boxes;
};

Row row_of_boxes() {
  Row row;
  for (std::uint32_t k = 0; k < 3; ++k) {
    BodySettings box = body_of(Box{}, {Real(2 * k), 0, 0}, BodyType::static_body);
    box.collision_filter = {1u << k, k_all, k == 2 ? -7 : 0};
    row.boxes.push_back(row.world.create_body(box));
  }
  return row;
}

TEST(CollisionFilter, ARaySeesOnlyTheBodiesItsFilterWouldTouch) {
  const Row row = row_of_boxes();
  const Vec3 origin{-3, 0, 0}, along{10, 0, 0};
  EXPECT_EQ(row.world.raycast(origin, along)->body, row.boxes[0]);
  const auto second = row.world.raycast(origin, along, CollisionFilter{1, 6});
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, row.boxes[1]);
  EXPECT_NEAR(second->fraction, Real(0.45), Real(1e-5));  // x = 1.5, the second box's face
  EXPECT_FALSE(row.world.raycast(origin, along, CollisionFilter{1, 4, -7}));  // its own group
  const std::vector<RaycastHit> hits = row.world.raycast_all(origin, along, CollisionFilter{1, 5});
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].body, row.boxes[0]);
  EXPECT_EQ(hits[1].body, row.boxes[2]);
}

TEST(CollisionFilter, OverlapsSeeOnlyTheBodiesTheirFilterWouldTouch) {
  const Row row = row_of_boxes();
  const std::vector<BodyId> second{row.boxes[1]}, outer{row.boxes[0], row.boxes[2]};
  EXPECT_EQ(row.world.overlap_sphere({2, 0, 0}, 3).size(), 3u);
  EXPECT_EQ(row.world.overlap_sphere({2, 0, 0}, 3, CollisionFilter{1, 2}), second);
  EXPECT_EQ(row.world.overlap_aabb({{-1, -1, -1}, {5, 1, 1}}, CollisionFilter{1, 5}), outer);
  const std::vector<BodyId> first_two{row.boxes[0], row.boxes[1]};
  EXPECT_EQ(row.world.overlap_box(Box{{3, 1, 1}}, {{2, 0, 0}, Quat::identity()},
                                  CollisionFilter{1, k_all, -7}),
            first_two);  // the query's group leaves the third out
}

}  // namespace
}  // namespace impulse
