// Bodies under gravity, forces and torque-free rotation against closed forms.

#include <impulse/world.h>

#include <gtest/gtest.h>

namespace impulse {
namespace {

constexpr Real k_dt = Real(1.0 / 60.0);

WorldSettings weightless() {
  WorldSettings settings;
  settings.gravity = Vec3::zero();
  return settings;
}

BodySettings box_body(const Vec3& half_extents, const Vec3& position = {}) {
  BodySettings body;
  body.shapes = {ShapeSettings{Box{half_extents}, {}}};
  body.position = position;
  return body;
}

// Semi-implicit Euler under constant g: v_n = n g dt, x_n = x_0 + g dt^2 n (n + 1) / 2.
TEST(FreeFall, MatchesTheSemiImplicitEulerClosedFormAndTheParabola) {
  World world;
  const Real y0 = 100;
  const BodyId id = world.create_body(box_body({Real(0.5), Real(0.5), Real(0.5)}, {0, y0, 0}));
  const int n = 60;
  for (int i = 0; i < n; ++i)
    world.step(k_dt);

  const double g = 9.81;
  const double closed_form = -g * double(k_dt) * double(k_dt) * n * (n + 1) / 2;
  const double fallen = double(world.position(id).y) - y0;
  EXPECT_NEAR(fallen, closed_form, 1e-5 * y0);  // float rounding of a position near 100 m
  EXPECT_NEAR(world.linear_velocity(id).y, -g * n * double(k_dt), 1e-4);
  EXPECT_NEAR(fallen / (-g / 2), 1.0, 0.02);  // within 2% of g t^2 / 2 at t = 1 s
  EXPECT_EQ(world.position(id).x, 0);
  EXPECT_EQ(world.orientation(id), Quat::identity());
}

// Sub-steps are steps of dt / n: the same closed form with n times the steps, so the error against
// the parabola, g dt t / 2, shrinks n-fold; the world's clock still advances by whole steps.
TEST(FreeFall, SubstepsFollowTheClosedFormOfTheShorterStep) {
  WorldSettings settings;
  settings.solver.substeps = 4;
  World world(settings);
  const Real y0 = 100;
  const BodyId id = world.create_body(box_body({Real(0.5), Real(0.5), Real(0.5)}, {0, y0, 0}));
  const int steps = 60;
  for (int i = 0; i < steps; ++i)
    world.step(k_dt);

  const double g = 9.81;
  const double h = double(k_dt) / 4;
  const int n = 4 * steps;
  const double fallen = double(world.position(id).y) - y0;
  EXPECT_NEAR(fallen, -g * h * h * n * (n + 1) / 2, 1e-5 * y0);
  EXPECT_NEAR(world.linear_velocity(id).y, -g * n * h, 1e-4);
  const double t = steps * double(k_dt);
  EXPECT_NEAR(fallen + g * t * t / 2, -g * h * t / 2, 1e-5 * y0);
  EXPECT_DOUBLE_EQ(world.time(), steps * double(k_dt));
}

TEST(FreeFall, GravityScaleAndStaticBodiesAreRespected) {
  World world;
  BodySettings floating = box_body({Real(0.5), Real(0.5), Real(0.5)});
  floating.gravity_scale = 0;
  BodySettings fixed = box_body({1, 1, 1}, {5, 0, 0});
  fixed.type = BodyType::static_body;
  fixed.linear_velocity = {1, 0, 0};  // ignored: static bodies never move
  const BodyId a = world.create_body(floating);
  const BodyId b = world.create_body(fixed);
  for (int i = 0; i < 30; ++i)
    world.step(k_dt);
  EXPECT_EQ(world.position(a), Vec3::zero());
  EXPECT_EQ(world.position(b), (Vec3{5, 0, 0}));
  EXPECT_EQ(world.linear_velocity(b), Vec3::zero());
}

TEST(Kinematic, MovesWithItsVelocityAndIgnoresGravityAndForces) {
  World world;
  BodySettings platform = box_body({1, Real(0.1), 1});
  platform.type = BodyType::kinematic_body;
  platform.linear_velocity = {2, 0, 0};
  platform.angular_velocity = {0, 1, 0};
  const BodyId id = world.create_body(platform);
  world.apply_force(id, {0, 1000, 0});
  for (int i = 0; i < 60; ++i)
    world.step(k_dt);
  EXPECT_NEAR(world.position(id).x, 2, 1e-4);
  EXPECT_NEAR(world.position(id).y, 0, 1e-6);
  Vec3 axis;
  Real angle;
  to_axis_angle(world.orientation(id), axis, angle);
  EXPECT_NEAR(angle, 1, 1e-3);
}

// Newton's second law with a constant force F for time T: x = F T^2 / (2 m) in the limit.
TEST(Forces, ConstantForceAcceleratesByFOverM) {
  World world(weightless());
  const BodyId id = world.create_body(box_body({Real(0.5), Real(0.5), Real(0.5)}));  // 1000 kg
  for (int i = 0; i < 60; ++i) {
    world.apply_force(id, {500, 0, 0});
    world.step(k_dt);
  }
  EXPECT_NEAR(world.linear_velocity(id).x, Real(0.5), 1e-5);  // F t / m
  EXPECT_NEAR(world.angular_velocity(id).x, 0, 1e-7);
}

TEST(Forces, ImpulseAtAPointChangesLinearAndAngularMomentum) {
  World world(weightless());
  const BodyId id = world.create_body(box_body({1, Real(0.5), Real(0.25)}));
  const Real mass = world.mass_properties(id).mass;
  const Vec3 impulse{0, 10, 0};
  const Vec3 point{1, 0, 0};
  world.apply_impulse_at(id, impulse, point);
  EXPECT_NEAR(world.linear_velocity(id).y, 10 / mass, 1e-6);
  // dL = r x J = (0, 0, 10) about z: dw = I^-1 dL.
  const Real izz = world.mass_properties(id).inertia(2, 2);
  EXPECT_NEAR(world.angular_velocity(id).z, 10 / izz, 1e-6);
  const Vec3 l = world.angular_momentum();
  EXPECT_NEAR(l.z, 10, 1e-4);  // r x J about the origin, where the centre is
}

TEST(Forces, ForceAtAPointGivesItsTorque) {
  World world(weightless());
  const BodyId id = world.create_body(box_body({Real(0.5), Real(0.5), Real(0.5)}));
  world.apply_force_at(id, {0, 0, 60}, {0, 1, 0});  // torque (60, 0, 0)
  world.step(k_dt);
  const Real ixx = world.mass_properties(id).inertia(0, 0);
  EXPECT_NEAR(world.angular_velocity(id).x, 60 * k_dt / ixx, 1e-5);
}

TEST(Damping, DecaysVelocityAsOneOverOnePlusCdtPerStep) {
  World world(weightless());
  BodySettings body = box_body({Real(0.5), Real(0.5), Real(0.5)});
  body.linear_velocity = {1, 0, 0};
  body.angular_velocity = {0, 2, 0};
  body.linear_damping = Real(0.5);
  body.angular_damping = 1;
  const BodyId id = world.create_body(body);
  for (int i = 0; i < 60; ++i)
    world.step(k_dt);
  EXPECT_NEAR(world.linear_velocity(id).x, std::pow(1 / (1 + 0.5 / 60), 60), 1e-5);
  EXPECT_NEAR(world.angular_velocity(id).y, 2 * std::pow(1 / (1 + 1.0 / 60), 60), 1e-5);
}

TEST(Spin, TorqueFreeBoxAboutAPrincipalAxisKeepsItsAngularVelocity) {
  for (bool gyroscopic : {false, true}) {
    WorldSettings settings = weightless();
    settings.gyroscopic = gyroscopic;
    World world(settings);
    const Vec3 axes[] = {Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z()};
    for (const Vec3& axis : axes) {
      BodySettings box = box_body({Real(0.2), Real(0.5), Real(0.8)});
      box.angular_velocity = axis * 6;
      const BodyId id = world.create_body(box);
      for (int i = 0; i < 600; ++i)
        world.step(k_dt);
      const Vec3 w = world.angular_velocity(id);
      EXPECT_NEAR(w.x, axis.x * 6, 1e-4) << "gyroscopic " << gyroscopic;
      EXPECT_NEAR(w.y, axis.y * 6, 1e-4) << "gyroscopic " << gyroscopic;
      EXPECT_NEAR(w.z, axis.z * 6, 1e-4) << "gyroscopic " << gyroscopic;
      world.remove_body(id);
    }
  }
}

// A box of moments I1 < I2 < I3 spun about the middle axis with a small disturbance tumbles: its
// body-frame spin about that axis reverses sign, and angular momentum is conserved throughout.
struct TumbleResult {
  Real lowest_spin = 0;             // rad/s, body-frame spin about the middle axis
  double worst_momentum_error = 0;  // |L(t) - L(0)| / |L(0)|
  double energy_ratio = 0;          // E(end) / E(0)
  bool energy_ever_grew = false;
};

TumbleResult tumble(Real dt, int steps) {
  WorldSettings settings = weightless();
  settings.gyroscopic = true;
  World world(settings);
  BodySettings box = box_body({Real(0.1), Real(0.4), Real(0.8)});  // Ixx > Iyy > Izz
  box.angular_velocity = {Real(0.01), 4, Real(0.01)};              // about y, the middle axis
  const BodyId id = world.create_body(box);
  const Vec3 l0 = world.angular_momentum();
  const double e0 = world.kinetic_energy();
  TumbleResult result;
  result.lowest_spin = 4;
  double previous_energy = e0;
  for (int i = 0; i < steps; ++i) {
    world.step(dt);
    const Vec3 w_body = inverse_rotate(world.orientation(id), world.angular_velocity(id));
    result.lowest_spin = std::min(result.lowest_spin, w_body.y);
    result.worst_momentum_error = std::max(
        result.worst_momentum_error, double(length(world.angular_momentum() - l0) / length(l0)));
    const double energy = world.kinetic_energy();
    result.energy_ever_grew |= energy > previous_energy * (1 + 1e-6);
    previous_energy = energy;
  }
  result.energy_ratio = world.kinetic_energy() / e0;
  return result;
}

TEST(Spin, IntermediateAxisTumblesAndConservesAngularMomentumWithGyroscopicTerm) {
  const TumbleResult r = tumble(k_dt, 600);  // 10 s
  EXPECT_LT(r.lowest_spin, Real(-3)) << "the body never flipped over";
  EXPECT_LT(r.worst_momentum_error, 0.01);
  // The implicit rule is dissipative, never energy-creating (docs/integration.md).
  EXPECT_FALSE(r.energy_ever_grew);
  EXPECT_LE(r.energy_ratio, 1.0);
}

// The energy lost in the first flip (by t = 3 s) falls with dt, about linearly
// (docs/integration.md).
TEST(Spin, TumblingEnergyLossShrinksWithTheTimeStep) {
  const TumbleResult coarse = tumble(k_dt, 180);
  const TumbleResult fine = tumble(k_dt / 4, 720);
  EXPECT_LT(fine.lowest_spin, Real(-3));
  EXPECT_LT(fine.worst_momentum_error, 0.01);
  EXPECT_LT(1 - fine.energy_ratio, (1 - coarse.energy_ratio) / 2.5);
}

TEST(Spin, WithoutGyroscopicTermAngularVelocityIsConservedInstead) {
  World world(weightless());
  BodySettings box = box_body({Real(0.1), Real(0.4), Real(0.8)});
  box.angular_velocity = {Real(0.01), 4, Real(0.01)};
  const BodyId id = world.create_body(box);
  for (int i = 0; i < 600; ++i)
    world.step(k_dt);
  EXPECT_EQ(world.angular_velocity(id), box.angular_velocity);  // seed 001 section 5
}

TEST(FixedStepper, RunsWholeStepsAndKeepsTheRemainder) {
  World world;
  world.create_body(box_body({Real(0.5), Real(0.5), Real(0.5)}));
  FixedStepper stepper;
  EXPECT_EQ(stepper.advance(world, 0.010), 0);
  EXPECT_EQ(stepper.advance(world, 0.010), 1);  // 20 ms: one 16.7 ms step, 3.3 ms left
  EXPECT_NEAR(stepper.alpha(world), (0.020 - 1.0 / 60) * 60, 1e-4);
  EXPECT_EQ(stepper.advance(world, 1.0), 8);  // bounded catch-up
  EXPECT_LT(stepper.alpha(world), 1.0);
  EXPECT_NEAR(world.time(), 9.0 / 60, 1e-5);
}

}  // namespace
}  // namespace impulse
