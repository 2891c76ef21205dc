// Joints in a world: each type's physics against closed forms (periods, off-axis motion, limits,
// motor speeds and torques, breaking loads), and the bookkeeping (handles, collisions, sleeping).

#include <impulse/error.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <numbers>

#include "support/bodies.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_pi = std::numbers::pi_v<Real>;
constexpr Real k_g = Real(9.81);

WorldSettings no_sleep(Real dt = Real(1.0 / 60)) {
  WorldSettings s;
  s.sleeping = false;
  s.timestep = dt;
  return s;
}

constexpr Real k_bob_radius = Real(0.1);

BodySettings ball(const Vec3& position, Real radius = k_bob_radius, Real mass = 1) {
  BodySettings s = body_of(Sphere{radius}, position);
  s.mass = mass;
  return s;
}

// The period of a pendulum of length 1 m nailed at the origin, released at amplitude degrees,
// measured over several swings between upward zero crossings of x.
Real pendulum_period(Real dt, Real amplitude_deg, int position_iterations = 0) {
  WorldSettings settings = no_sleep(dt);
  settings.solver.position_iterations = position_iterations;
  World world(settings);
  const Real a = amplitude_deg * k_pi / 180;
  const BodyId bob = world.create_body(ball({std::sin(a), -std::cos(a), 0}));
  JointSettings nail;
  nail.type = JointType::nail;
  nail.body_a = bob;
  nail.anchor = {0, 0, 0};
  world.create_joint(nail);
  std::vector<double> crossings;
  Real last_x = world.position(bob).x;
  for (int i = 1; i < int(20 / dt) && crossings.size() < 6; ++i) {
    world.step(dt);
    const Real x = world.position(bob).x;
    if (last_x < 0 && x >= 0) crossings.push_back((i - 1) * dt + dt * (-last_x) / (x - last_x));
    last_x = x;
  }
  return Real((crossings.back() - crossings.front()) / double(crossings.size() - 1));
}

TEST(Joints, PendulumPeriodMatchesTheSmallAngleFormula) {
  // A ball of radius r on a 1 m arm is a physical pendulum: 2 pi sqrt((L^2 + 2/5 r^2) / (g L)),
  // corrected for the amplitude of 5 degrees by (1 + a^2 / 16), 0.05%.
  const Real a = 5 * k_pi / 180;
  const Real arm = 1 + Real(0.4) * k_bob_radius * k_bob_radius;
  const Real expected = 2 * k_pi * std::sqrt(arm / k_g) * (1 + a * a / 16);
  EXPECT_NEAR(pendulum_period(Real(1.0 / 240), 5), expected, 0.01 * expected);
  EXPECT_NEAR(pendulum_period(Real(1.0 / 60), 5), expected, 0.02 * expected);
}

}  // namespace
}  // namespace impulse
