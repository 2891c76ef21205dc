// The soft mouse joint: it lifts a grabbed box toward the target, and its pull is bounded.

#include <gtest/gtest.h>

#include <impulse/world.h>

#include "mouse_drag.h"

namespace impulse::testbed {
namespace {

struct DragFixture {
  World world;
  BodyId box;
  DragFixture() {
    BodySettings ground;
    ground.type = BodyType::static_body;
    ground.shapes = {ShapeSettings{Plane{}, {}}};
    world.create_body(ground);
    BodySettings settings;
    settings.position = {0, Real(0.5), 0};
    box = world.create_body(settings);
  }
  void run(int steps) {
    for (int i = 0; i < steps; ++i)
      world.step(Real(1.0 / 60.0));
  }
};

// A ray straight down onto the box's top face, from 5 m above it.
const Ray k_down{{0, 6, 0}, {0, -1, 0}};

TEST(MouseDrag, LiftsTheGrabbedBodyTowardTheTarget) {
  DragFixture f;
  MouseDrag drag;
  ASSERT_TRUE(drag.grab(f.world, k_down, 100));
  drag.move(f.world, Ray{{0, 8, 0}, {0, -1, 0}});  // the target 2 m higher: y = 3
  f.run(180);
  const auto points = drag.anchor_and_target(f.world);
  ASSERT_TRUE(points.has_value());
  EXPECT_NEAR(points->second.y, 3, 1e-4);
  EXPECT_NEAR(points->first.y, 3, 0.05) << "the grabbed point hangs at the target";
  drag.release(f.world);
  EXPECT_FALSE(drag.active());
  f.run(120);
  EXPECT_LT(f.world.position(f.box).y, 0.6) << "released, the box falls back";
}

TEST(MouseDrag, AWeakPullCannotLiftTheBody) {
  DragFixture f;
  MouseDrag drag;
  drag.strength = Real(0.5);  // half the box's weight
  ASSERT_TRUE(drag.grab(f.world, k_down, 100));
  drag.move(f.world, Ray{{0, 8, 0}, {0, -1, 0}});
  f.run(120);
  EXPECT_LT(f.world.position(f.box).y, 0.6);
}

TEST(MouseDrag, GrabsNothingButDynamicBodies) {
  DragFixture f;
  MouseDrag drag;
  EXPECT_FALSE(drag.grab(f.world, Ray{{5, 6, 0}, {0, -1, 0}}, 100)) << "the ground plane";
  EXPECT_FALSE(drag.active());
}

}  // namespace
}  // namespace impulse::testbed
