// A state that went non-finite (from finite but absurd input: no velocity clamp yet) must not make
// the step throw. Findings of the world fuzzer (tests/fuzz), reduced.

#include <impulse/world.h>

#include <gtest/gtest.h>

namespace impulse {
namespace {

// A sphere spun at 1.3e19 rad/s, held by a prismatic joint to a kinematic box: its state turns
// NaN in the first step, and the joint's rows got a NaN softness, which the row store refused by
// throwing std::invalid_argument out of World::step.
TEST(NonFiniteState, PrismaticJointOnASphereSpunAbsurdlyFastDoesNotThrowFromTheStep) {
  World world;
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
  const BodyId spinning = world.create_body(sphere);
  JointSettings joint;
  joint.type = JointType::prismatic;
  joint.body_a = spinning;
  joint.body_b = kinematic;
  joint.anchor = {Real(1.61), Real(1.32), Real(-0.19)};
  joint.axis = Vec3::unit_y();
  world.create_joint(joint);
  for (int i = 0; i < 5; ++i)
    EXPECT_NO_THROW(world.step(world.settings().timestep));
}

}  // namespace
}  // namespace impulse
