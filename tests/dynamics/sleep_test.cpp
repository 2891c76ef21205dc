// Islands and sleeping: resting islands sleep, and wake on a touch, an impulse or a lost support.

#include <impulse/world.h>

#include <gtest/gtest.h>

#include "support/bodies.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_dt = Real(1) / 60;

void run(World& world, int steps) {
  for (int i = 0; i < steps; ++i)
    world.step(k_dt);
}

TEST(Sleep, RestingBoxFallsAsleepAndStaysPut) {
  World world;
  world.create_body(ground_box());
  const BodyId box = world.create_body(body_of(Box{}, {0, Real(0.5), 0}));
  run(world, 120);
  ASSERT_TRUE(world.is_asleep(box));
  const Vec3 p = world.position(box);
  EXPECT_EQ(world.linear_velocity(box), Vec3::zero());
  run(world, 60);
  EXPECT_EQ(world.position(box), p);
}

TEST(Sleep, NothingSleepsWhenSleepingIsOff) {
  WorldSettings settings;
  settings.sleeping = false;
  World world(settings);
  world.create_body(ground_box());
  const BodyId box = world.create_body(body_of(Box{}, {0, Real(0.5), 0}));
  run(world, 240);
  EXPECT_FALSE(world.is_asleep(box));
}

TEST(Sleep, FallingBodyStaysAwake) {
  World world;
  const BodyId ball = world.create_body(body_of(Sphere{}, {0, 100, 0}));
  run(world, 60);
  EXPECT_FALSE(world.is_asleep(ball));
}

TEST(Sleep, ImpulseWakesTheBody) {
  World world;
  world.create_body(ground_box());
  const BodyId box = world.create_body(body_of(Box{}, {0, Real(0.5), 0}));
  run(world, 120);
  ASSERT_TRUE(world.is_asleep(box));
  world.apply_impulse(box, {0, 5000, 0});
  EXPECT_FALSE(world.is_asleep(box));
  run(world, 10);
  EXPECT_GT(world.position(box).y, Real(0.6));
}

TEST(Sleep, DroppedBallWakesTheSleepingStackItHits) {
  World world;
  world.create_body(ground_box());
  const BodyId bottom = world.create_body(body_of(Box{}, {0, Real(0.5), 0}));
  const BodyId top = world.create_body(body_of(Box{}, {0, Real(1.5), 0}));
  run(world, 120);
  ASSERT_TRUE(world.is_asleep(bottom));
  ASSERT_TRUE(world.is_asleep(top));
  world.create_body(body_of(Sphere{Real(0.2)}, {Real(0.3), 4, 0}));
  bool woke_both = false;
  for (int i = 0; i < 90 && !woke_both; ++i) {
    world.step(k_dt);
    woke_both = !world.is_asleep(top) && !world.is_asleep(bottom);
  }
  EXPECT_TRUE(woke_both);  // the whole island wakes, not only the box that was hit
}

TEST(Sleep, RemovingTheSupportWakesWhatRestedOnIt) {
  World world;
  world.create_body(ground_box());
  const BodyId bottom = world.create_body(body_of(Box{}, {0, Real(0.5), 0}));
  const BodyId top = world.create_body(body_of(Box{}, {0, Real(1.5), 0}));
  run(world, 120);
  ASSERT_TRUE(world.is_asleep(top));
  world.remove_body(bottom);
  EXPECT_FALSE(world.is_asleep(top));
  run(world, 60);
  EXPECT_NEAR(world.position(top).y, Real(0.5), Real(0.02));  // fell onto the ground
}

}  // namespace
}  // namespace impulse
