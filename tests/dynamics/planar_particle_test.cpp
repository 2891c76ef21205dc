// Particles (bodies that never rotate) and plane worlds (bodies held to a plane, seed 000's 2D
// demos): the motion they allow, against closed forms, alone and in contact.

#include <impulse/error.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <cmath>

#include "support/bodies.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_dt = Real(1) / 60;

WorldSettings weightless() {
  WorldSettings s;
  s.gravity = Vec3::zero();
  return s;
}

BodySettings particle_box(const Vec3& position) {
  BodySettings s = body_of(Box{}, position);
  s.mass = 2;
  s.particle = true;
  return s;
}

TEST(Particle, HitOffCentreTakesTheWholeImpulseAsLinearVelocity) {
  World world(weightless());
  const BodyId p = world.create_body(particle_box({0, 0, 0}));
  world.apply_impulse_at(p, {4, 0, 2}, world.center_of_mass(p) + Vec3(0, Real(0.5), Real(0.5)));
  world.apply_angular_impulse(p, {1, 2, 3});
  world.apply_torque(p, {5, 5, 5});
  // v = J / m, whatever the lever arm; no turn at all.
  EXPECT_EQ(world.linear_velocity(p), Vec3(2, 0, 1));
  EXPECT_EQ(world.angular_velocity(p), Vec3::zero());
  for (int i = 0; i < 30; ++i)
    world.step(k_dt);
  EXPECT_EQ(world.angular_velocity(p), Vec3::zero());
  EXPECT_EQ(world.orientation(p), Quat{});
  EXPECT_NEAR(world.position(p).x, Real(2 * 30 * k_dt), 1e-5);
}

TEST(Particle, RefusesAnAngularVelocity) {
  World world;
  BodySettings spinning = particle_box({0, 0, 0});
  spinning.angular_velocity = {0, 1, 0};
  EXPECT_THROW(world.create_body(spinning), InvalidArgument);
  const BodyId p = world.create_body(particle_box({0, 0, 0}));
  EXPECT_THROW(world.set_angular_velocity(p, {0, 0, 1}), InvalidArgument);
  world.set_angular_velocity(p, Vec3::zero());
  EXPECT_EQ(world.inverse_inertia_world(p), Mat33::zero());
}

TEST(Particle, SlidingOnTheGroundWithFrictionNeverTips) {
  // Friction at the base of a sliding box would tip it forward; a particle only slows down.
  World world;
  world.create_body(ground_box());
  BodySettings s = particle_box({0, Real(0.5), 0});
  s.linear_velocity = {3, 0, Real(1)};
  const BodyId p = world.create_body(s);
  bool touched = false;
  for (int i = 0; i < 60; ++i) {
    world.step(k_dt);
    touched = touched || world.last_step_stats().contact_points > 0;
    EXPECT_EQ(world.angular_velocity(p), Vec3::zero());
  }
  EXPECT_TRUE(touched);
  EXPECT_EQ(world.orientation(p), Quat{});
  EXPECT_NEAR(world.position(p).y, Real(0.5), Real(0.02));
  EXPECT_LT(length(world.linear_velocity(p)), length(s.linear_velocity) - 1);
}

WorldSettings plane_world(const Vec3& normal, const Vec3& gravity) {
  WorldSettings s;
  s.gravity = gravity;
  s.plane_normal = normal;
  return s;
}

TEST(PlaneWorld, SettingsNormaliseTheNormalAndRefuseOthers) {
  World world(plane_world({0, 0, Real(1.0005)}, Vec3::zero()));
  EXPECT_NEAR(length(world.settings().plane_normal), 1, 1e-6);
  EXPECT_THROW(world.set_settings(plane_world({0, 0, 2}, Vec3::zero())), InvalidArgument);
  EXPECT_THROW(world.set_settings(plane_world({0, k_infinity, 0}, Vec3::zero())), InvalidArgument);
}

// The world's own settings given back (as the command does to measure its last step) change
// nothing: the stored normal is not normalised again, which may move its last bit and every body.
TEST(PlaneWorld, SettingTheWorldsOwnSettingsBackChangesNothing) {
  for (const Vec3& normal : {Vec3{Real(0.3), Real(0.4), Real(0.7)}, Vec3{1, 1, 1},
                             Vec3{Real(-0.2), Real(0.9), Real(0.1)}, Vec3{2, -1, 3}}) {
    World world(plane_world(normal / length(normal), {0, Real(-9.81), 0}));
    BodySettings body;
    body.linear_velocity = {1, 2, 3};
    body.angular_velocity = {Real(0.5), Real(-1), Real(2)};
    world.create_body(body);
    for (int i = 0; i < 10; ++i)
      world.step(Real(1.0 / 60));
    const std::uint64_t before = world.state_hash();
    world.set_settings(world.settings());
    EXPECT_EQ(world.state_hash(), before) << normal.x << " " << normal.y << " " << normal.z;
  }
}

TEST(PlaneWorld, CreationAndImpulsesKeepOnlyThePlanarMotion) {
  World world(plane_world({0, 0, 1}, Vec3::zero()));
  BodySettings s = body_of(Box{{Real(0.5), Real(0.25), Real(0.1)}}, {0, 0, 0});
  s.mass = 3;
  s.linear_velocity = {1, 2, 3};
  s.angular_velocity = {1, 1, 1};
  const BodyId b = world.create_body(s);
  EXPECT_EQ(world.linear_velocity(b), Vec3(1, 2, 0));
  EXPECT_EQ(world.angular_velocity(b), Vec3(0, 0, 1));
  // An off-plane impulse J at r from the centre: v += (J - n (n.J)) / m and, with z a principal
  // axis, w_z += (r x J)_z / I_zz, I_zz = m (a^2 + b^2) / 3.
  const Vec3 impulse{Real(0.6), Real(-0.3), 5}, r{Real(0.5), Real(0.25), Real(0.1)};
  world.apply_impulse_at(b, impulse, world.center_of_mass(b) + r);
  const Real izz = 3 * (Real(0.25) + Real(0.0625)) / 3;
  EXPECT_NEAR(world.linear_velocity(b).x, 1 + Real(0.2), 1e-6);
  EXPECT_NEAR(world.linear_velocity(b).y, 2 - Real(0.1), 1e-6);
  EXPECT_EQ(world.linear_velocity(b).z, 0);
  EXPECT_NEAR(world.angular_velocity(b).z, 1 + cross(r, impulse).z / izz, 1e-5);
  EXPECT_EQ(world.angular_velocity(b).x, 0);
  EXPECT_EQ(world.angular_velocity(b).y, 0);
  world.set_linear_velocity(b, {0, 0, 7});
  EXPECT_EQ(world.linear_velocity(b), Vec3::zero());
}

TEST(PlaneWorld, TurningAboutANonPrincipalAxisUsesTheInertiaAboutTheNormal) {
  // Tilted about x, the box's z is no principal axis: held to turn about z alone, it answers an
  // angular impulse L with w = n (n.L) / (n . I n), not n (n . I^-1 L).
  World world(plane_world({0, 0, 1}, Vec3::zero()));
  BodySettings s = body_of(Box{{Real(0.5), Real(0.25), Real(0.1)}}, {0, 0, 0});
  s.mass = 3;
  s.orientation = Quat::from_axis_angle({1, 0, 0}, Real(0.5));
  const BodyId b = world.create_body(s);
  world.apply_angular_impulse(b, {1, 2, 3});
  const Mat33 inertia = world.mass_properties(b).inertia;
  const Vec3 n_body = inverse_rotate(world.orientation(b), {0, 0, 1});
  EXPECT_NEAR(world.angular_velocity(b).z, 3 / dot(n_body, inertia * n_body), 1e-5);
  EXPECT_EQ(world.angular_velocity(b).x, 0);
  EXPECT_EQ(world.angular_velocity(b).y, 0);
}

TEST(PlaneWorld, BoxTumblingOnTheGroundStaysInItsPlane) {
  World world(plane_world({0, 0, 1}, {0, Real(-9.81), 0}));
  world.create_body(ground_box());
  BodySettings s = body_of(Box{{Real(0.5), Real(0.25), Real(0.3)}}, {0, 1, Real(0.2)});
  s.orientation = Quat::from_axis_angle({0, 0, 1}, Real(0.4));
  s.linear_velocity = {2, 0, 0};
  const BodyId b = world.create_body(s);
  // Off the plane in direction and lever arm: only its in-plane part may act.
  world.apply_impulse_at(b, {200, 100, 800},
                         world.center_of_mass(b) + Vec3(Real(0.3), Real(0.2), Real(0.3)));
  bool touched = false;
  for (int i = 0; i < 120; ++i) {
    world.step(k_dt);
    touched = touched || world.last_step_stats().contact_points > 0;
  }
  EXPECT_TRUE(touched);
  const Quat q = world.orientation(b);
  EXPECT_NEAR(world.center_of_mass(b).z, Real(0.2), 1e-6);
  EXPECT_NEAR(q.x, 0, 1e-6);
  EXPECT_NEAR(q.y, 0, 1e-6);
  // It did tumble and roll along x: turned well away from its start, and moved.
  EXPECT_GT(std::abs(q.z - s.orientation.z), Real(0.1));
  EXPECT_GT(world.center_of_mass(b).x, Real(0.5));
  EXPECT_LT(world.center_of_mass(b).y, Real(0.6));
}

}  // namespace
}  // namespace impulse
