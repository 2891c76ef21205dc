// A state that went non-finite (from finite but absurd input, with the velocity clamps raised out
// of the way) must not make the step throw; with the clamps, the same input stays finite. Findings
// of the world fuzzer (tests/fuzz), reduced.

#include <impulse/world.h>

#include <gtest/gtest.h>

namespace impulse {
namespace {

// A sphere spun at 1.3e19 rad/s, held by a prismatic joint to a kinematic box.
struct SpunSphere {
  World world;
  BodyId spinning;
};

SpunSphere spun_sphere(const WorldSettings& settings) {
  SpunSphere s{World(settings), {}};
  World& world = s.world;
  BodySettings box;
  box.type = BodyType::kinematic_body;
  box.position = {Real(-4.46), Real(-1.03), Real(-2.95)};
  box.linear_velocity = {Real(-8.6), Real(16.2), Real(-1.6)};
  const BodyId kinematic = world.create_body(box);
  BodySettings sphere;
  sphere.shapes[0].geometry = Sphere{};
  sphere.position = {Real(2.91), Real(2.45), Real(1.9)};
  sphere.angular_velocity = {Real(1.1), Real(0.5), Real(1.3e19)};
  sphere.mass = Real(99);
  const BodyId spinning = s.spinning = world.create_body(sphere);
  JointSettings joint;
  joint.type = JointType::prismatic;
  joint.body_a = spinning;
  joint.body_b = kinematic;
  joint.anchor = {Real(1.61), Real(1.32), Real(-0.19)};
  joint.axis = Vec3::unit_y();
  world.create_joint(joint);
  return s;
}

// Without the clamps its state turned NaN in the first step, and the joint's rows got a NaN
// softness, which the row store refused by throwing std::invalid_argument out of World::step.
// (Since pgs solves the joint's rows exactly the spin is stopped in one step and the state stays
// finite; Guards.* inject faults that still reach a non-finite state.)
TEST(NonFiniteState, PrismaticJointOnASphereSpunAbsurdlyFastDoesNotThrowFromTheStep) {
  WorldSettings unclamped;
  unclamped.max_linear_speed = unclamped.max_angular_speed = Real(3e38);
  SpunSphere s = spun_sphere(unclamped);
  for (int i = 0; i < 5; ++i)
    EXPECT_NO_THROW(s.world.step(s.world.settings().timestep));
}

// With the default clamps the spin is held to 1e4 rad/s before anything integrates it, and the
// state stays finite.
TEST(VelocityClamps, AnAbsurdSpinIsHeldToTheMaximumAndStaysFinite) {
  SpunSphere s = spun_sphere(WorldSettings{});
  for (int i = 0; i < 60; ++i) {
    s.world.step(s.world.settings().timestep);
    ASSERT_TRUE(is_finite(s.world.position(s.spinning))) << "step " << i;
    ASSERT_TRUE(is_finite(s.world.angular_velocity(s.spinning))) << "step " << i;
    EXPECT_LE(length(s.world.angular_velocity(s.spinning)), Real(1e4) * Real(1.0001));
    EXPECT_LE(length(s.world.linear_velocity(s.spinning)), Real(1e4) * Real(1.0001));
  }
}

TEST(VelocityClamps, AFastBodyKeepsItsDirectionAtTheMaximumSpeed) {
  WorldSettings settings;
  settings.gravity = Vec3::zero();
  settings.max_linear_speed = 100;
  World world(settings);
  BodySettings ball;
  ball.shapes[0].geometry = Sphere{};
  ball.linear_velocity = {Real(3e20), Real(4e20), 0};
  const BodyId id = world.create_body(ball);
  world.step(Real(0.01));
  const Vec3 v = world.linear_velocity(id);
  EXPECT_NEAR(v.x, 60, 1e-3);
  EXPECT_NEAR(v.y, 80, 1e-3);
  EXPECT_NEAR(world.position(id).x, Real(0.6), 1e-5);
}

}  // namespace
}  // namespace impulse
