// The joint scenes against the joints issue's acceptance (issue 6): every scene stays finite,
// the pendulum's period, the cradle's momentum transfer, the resting chain's joint error, the
// bridge under load, the ragdolls' limits, and the impossible constraints staying bounded. The
// figures these tests measure are tabled in docs/results.md ("Joint scenes").

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/scenes.h"

namespace impulse {
namespace {

using testing::world_of;

constexpr Real k_g = Real(9.81);

bool all_finite(const World& world) {
  for (const BodyId id : world.bodies()) {
    if (!is_finite(world.position(id)) || !is_finite(world.linear_velocity(id))) return false;
  }
  return std::isfinite(world.kinetic_energy());
}

Real largest_joint_error(const World& world) {
  Real worst = 0;
  for (const JointId id : world.joints())
    worst = std::max(worst, world.joint_state(id).error);
  return worst;
}

// Steps a joint scene for two seconds with the given solver: finite throughout, and no more
// energy gained than motors can put in plus 1% of the potential energy's scale (and 1 J) for what
// constraint drift correction adds.
void expect_two_seconds_without_energy_gain(const std::string& name, SolverType solver) {
  Scene scene = *builtin_scene(name);
  scene.settings.solver.type = solver;
  World world = build_world(scene, name);
  const Real dt = world.settings().timestep;
  const double start = world.kinetic_energy() + world.potential_energy();
  // Energy may only come in through motors: at most max torque times the angle they can turn
  // before their limit.
  double motor_work = 0;
  for (const JointId id : world.joints()) {
    const JointSettings& s = world.joint_settings(id);
    if (s.motor && s.limits)
      motor_work += double(s.motor->max_force * (s.limits->hi - s.limits->lo));
  }
  double worst = 0;
  for (int i = 0; i < int(std::lround(2 / dt)); ++i) {
    world.step(dt);
    ASSERT_TRUE(all_finite(world)) << "step " << i;
    worst = std::max(worst, world.kinetic_energy() + world.potential_energy() - start);
  }
  EXPECT_LE(worst, motor_work + 0.01 * std::abs(world.potential_energy()) + 1)
      << "energy rose by " << worst << " J";
  ::testing::Test::RecordProperty("energy_gain_J", std::to_string(worst));
}

class JointSceneEnergy : public ::testing::TestWithParam<const char*> {};

TEST_P(JointSceneEnergy, StepsTwoSecondsFiniteWithoutGainingEnergy) {
  SKIP_UNLESS_OPTIMISED();
  expect_two_seconds_without_energy_gain(GetParam(), SolverType::pgs);
}

INSTANTIATE_TEST_SUITE_P(Scenes, JointSceneEnergy,
                         ::testing::Values("pendulum", "ragdolls", "catapult", "rope", "net",
                                           "cradle", "chain100", "bridge", "cloth2d",
                                           "heavy_chain"));
// `impossible` is left out on purpose: its constraints cannot hold, so the bias feeds it energy by
// construction; its own test below checks that the energy stays bounded. (Without the default
// joint softness the resting chain gained 3.9e5 J in 2 s and the loaded bridge 640 J.)

// The other iterative solvers, which solve a joint's rows only approximately each step and so
// need the joint softness against Baumgarte's warm-started bias, on the scenes whose joints
// they hold at the default ten iterations.
class JointSceneEnergyEverySolver
    : public ::testing::TestWithParam<std::tuple<const char*, SolverType>> {};

TEST_P(JointSceneEnergyEverySolver, StepsTwoSecondsFiniteWithoutGainingEnergy) {
  SKIP_UNLESS_OPTIMISED();
  expect_two_seconds_without_energy_gain(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Scenes, JointSceneEnergyEverySolver,
                         ::testing::Combine(::testing::Values("pendulum", "ragdolls", "catapult",
                                                              "rope", "net", "cradle", "chain100",
                                                              "bridge", "cloth2d", "heavy_chain"),
                                            ::testing::Values(SolverType::block)));
// global_sparse's ragdolls take 11 s (it assembles the whole scene's matrix every solve).
INSTANTIATE_TEST_SUITE_P(SparseScenes, JointSceneEnergyEverySolver,
                         ::testing::Combine(::testing::Values("pendulum", "catapult", "rope", "net",
                                                              "cradle", "chain100", "bridge",
                                                              "cloth2d", "heavy_chain"),
                                            ::testing::Values(SolverType::global_sparse)));
// Jacobi's chains (rope, chain100, bridge, cloth2d, heavy_chain) still gain energy at ten
// iterations: a load moves about a link per iteration along a chain, and Baumgarte's
// warm-started bias grows the slow modes (docs/solvers.md, "Jacobi and joints").
INSTANTIATE_TEST_SUITE_P(JacobiScenes, JointSceneEnergyEverySolver,
                         ::testing::Combine(::testing::Values("pendulum", "ragdolls", "catapult",
                                                              "net", "cradle"),
                                            ::testing::Values(SolverType::jacobi)));

// The period from upward zero crossings of the bob's x about the pivot, interpolated in time.
double pendulum_period(Real dt, int periods) {
  World world = world_of("pendulum");
  const BodyId bob = *world.find_body("bob");
  std::vector<double> crossings;
  Real last = world.position(bob).x;
  for (int i = 0; crossings.size() < std::size_t(periods + 1) && i < int(60 / dt); ++i) {
    world.step(dt);
    const Real x = world.position(bob).x;
    if (last < 0 && x >= 0) crossings.push_back((i + double(-last / (x - last))) * double(dt));
    last = x;
  }
  if (crossings.size() < std::size_t(periods + 1)) return 0;
  return (crossings.back() - crossings.front()) / periods;
}

TEST(JointScenes, PendulumPeriodIsTheSmallAngleFormulaWithinOnePercentAt240Hz) {
  // 2 pi sqrt(L / g); the 5 degree amplitude lengthens it by theta^2 / 16 = 0.05%.
  const double expected = 2 * k_pi * std::sqrt(1 / double(k_g));
  const double at_240 = pendulum_period(Real(1.0 / 240), 5);
  EXPECT_NEAR(at_240, expected, 0.01 * expected);
  const double at_60 = pendulum_period(Real(1.0 / 60), 5);
  RecordProperty("period_240Hz_error_percent", std::to_string(100 * (at_240 / expected - 1)));
  RecordProperty("period_60Hz_error_percent", std::to_string(100 * (at_60 / expected - 1)));
  EXPECT_GT(at_60, 0) << "no full swings at 1/60 s";
}

// The impact runs down the row within one step (the restitution pass, constraints/impact_pass.h).
TEST(JointScenes, CradlePassesMoreThanNinetyPercentOfTheSpeedToTheLastBall) {
  World world = world_of("cradle");
  const Real dt = world.settings().timestep;
  const BodyId first = *world.find_body("ball0");
  const BodyId last = *world.find_body("ball4");
  // The first ball's speed on the step before the last one moves: just before impact. (The
  // hanging balls settle on their joints at first, well under 5 cm/s.)
  Real before = 0;
  int i = 0;
  for (; i < int(2 / dt) && length(world.linear_velocity(last)) < Real(0.05); ++i) {
    before = length(world.linear_velocity(first));
    world.step(dt);
  }
  // Released from 30 degrees on 1 m strings: sqrt(2 g L (1 - cos 30)); within one step's gain.
  const Real free_fall = std::sqrt(2 * k_g * (1 - std::cos(k_pi / 6)));
  EXPECT_NEAR(before, free_fall, k_g * dt);
  Real after = length(world.linear_velocity(last));
  for (int k = 0; k < int(0.5 / dt); ++k) {
    world.step(dt);
    after = std::max(after, length(world.linear_velocity(last)));
  }
  RecordProperty("first_ball_before_impact_m_s", std::to_string(before));
  RecordProperty("last_ball_after_m_s", std::to_string(after));
  EXPECT_GT(after, Real(0.9) * before) << "first " << before << " m/s, last " << after << " m/s";
}

// Seed 000's 2D point-mass demo: a plane world keeps every mass in z = 0 exactly while the sheet
// swings and folds, and its rods hold to a tenth of their length.
TEST(JointScenes, Cloth2dStaysInItsPlane) {
  World world = world_of("cloth2d");
  Real lowest = 1e9;
  for (int i = 0; i < 120; ++i) {
    world.step(world.settings().timestep);
    for (const BodyId id : world.bodies()) {
      ASSERT_EQ(world.position(id).z, 0) << world.name(id);
      lowest = std::min(lowest, world.position(id).y);
    }
  }
  EXPECT_LT(lowest, Real(1.5));  // it swung down from y >= 2.25 (measured: 0.79)
  // Rods of 0.25 m, whipped at 10 iterations: measured 0.4 mm at the end, 2.3 mm at worst (pgs
  // solves the rods together, exactly).
  EXPECT_LT(world.last_step_stats().max_joint_error, Real(0.005));
  RecordProperty("max_joint_error_m", std::to_string(world.last_step_stats().max_joint_error));
}

// The rope whips as it swings down and its joints stretch, but they pull back: after 10 s the
// largest joint error is 0.32 m measured (0.19 and 0.27 on the trajectories before the
// broadphase's fat boxes covered each step's motion and the top joint's point rows went along the
// world's axes; the joint softness once grew with the stretch's lever and the rope came apart:
// 11.4 m).
TEST(JointScenes, RopeHoldsTogetherAfterItsWhip) {
  SKIP_UNLESS_OPTIMISED();
  World world = world_of("rope");
  for (int i = 0; i < 600; ++i)
    world.step(world.settings().timestep);
  RecordProperty("max_joint_error_m", std::to_string(world.last_step_stats().max_joint_error));
  EXPECT_LT(world.last_step_stats().max_joint_error, Real(0.5));
}

// The resting chain's largest joint error after 10 s at 60 Hz.
Real chain_error(SolverType solver, int iterations) {
  Scene scene = *builtin_scene("chain100");
  scene.settings.solver.type = solver;
  scene.settings.solver.iterations = iterations;
  World world = build_world(scene);
  for (int i = 0; i < 600; ++i)
    world.step(scene.settings.timestep);
  return world.last_step_stats().max_joint_error;
}

// The default solver, pgs, solves the joints' rows together and exactly (equality_block.h); the
// iterative block and global_sparse yield by the joint softness they need (docs/joints.md table).
TEST(JointScenes, Chain100AtRestHoldsItsJointsWithinAMillimetreAtTenIterations) {
  EXPECT_LT(chain_error(SolverType::pgs, 10), Real(1e-3));
}

// The relax solve drops the contacts' push-out and solves again from the first solve's impulses.
// A world of joints alone has no push-out to drop, and pgs solves its rows exactly, so solving
// again could only repeat the solve: the swinging sheet of seed 000 steps to the same bits with
// relax iterations or without, while a column of boxes (contacts pushing out) does not.
TEST(JointScenes, AWorldOfJointsAloneHasNothingToRelax) {
  const auto state_after = [](const std::string& name, int relax_iterations) {
    Scene scene = *builtin_scene(name);
    scene.settings.solver.relax_iterations = relax_iterations;
    World world = build_world(scene);
    for (int i = 0; i < 120; ++i)
      world.step(scene.settings.timestep);
    return world.state_hash();
  };
  EXPECT_EQ(state_after("cloth2d", 2), state_after("cloth2d", 0));
  EXPECT_NE(state_after("seed001-stack10", 2), state_after("seed001-stack10", 0));
}

// The planks and loads hold, the hinges within 2 cm through the boxes' impact (measured: 2.7 mm
// since pgs solves the hinges' rows together, exactly; 0.19 m before).
TEST(JointScenes, BridgeHoldsItsLoad) {
  World world = world_of("bridge");
  const Real dt = world.settings().timestep;
  Real worst_error = 0;
  for (int i = 0; i < int(5 / dt); ++i) {
    world.step(dt);
    worst_error = std::max(worst_error, largest_joint_error(world));
  }
  for (const BodyId id : world.bodies()) {
    const std::string& name = world.name(id);
    // The arc's lowest hinge starts 2.1 m up; the posts stand on y = 0.
    if (name.rfind("plank", 0) == 0 || name.rfind("load", 0) == 0) {
      EXPECT_GT(world.position(id).y, 1) << name;
    }
  }
  RecordProperty("worst_hinge_error_m", std::to_string(worst_error));
  EXPECT_LT(worst_error, Real(0.02));
}

// The ragdolls' joints' rows and measures are shared among the threads once the contacts have
// woken them (World::Impl::k_parallel_joints): the same bits, and the same joint errors, as on one.
TEST(JointScenes, RagdollsStepToTheSameBitsAndJointErrorsOnOneThreadAndTwo) {
  World one = world_of("ragdolls"), two = world_of("ragdolls");
  two.set_threads(2);
  two.set_thread_use(ThreadUse::always);
  ASSERT_GE(one.joints().size(), 64u);
  const Real dt = one.settings().timestep;
  for (int i = 0; i < 60; ++i) {
    one.step(dt);
    two.step(dt);
    ASSERT_EQ(one.state_hash(), two.state_hash()) << "step " << i;
    ASSERT_EQ(one.last_step_stats().max_joint_error, two.last_step_stats().max_joint_error);
    ASSERT_EQ(one.last_step_stats().max_joint_angular_error,
              two.last_step_stats().max_joint_angular_error);
  }
  EXPECT_GT(one.last_step_stats().contact_manifolds, 64u);  // the contacts shared their rows
  for (const JointId id : one.joints())
    EXPECT_EQ(one.joint_state(id).error, two.joint_state(id).error);
}

// Not met today: the elbow and knee limits open by up to 0.38 rad; docs/results.md.
TEST(JointScenes, DISABLED_RagdollsLandOnThePileWithTheirLimitsHeld) {
  SKIP_UNLESS_OPTIMISED();
  World world = world_of("ragdolls");
  const Real dt = world.settings().timestep;
  std::vector<JointId> hinges;
  for (const JointId id : world.joints()) {
    if (world.joint_settings(id).type == JointType::hinge) hinges.push_back(id);
  }
  ASSERT_EQ(hinges.size(), 40u);
  Real worst_angle = 0, lowest = 1e9;
  for (int i = 0; i < int(10 / dt); ++i) {
    world.step(dt);
    ASSERT_TRUE(all_finite(world)) << "step " << i;
    for (const JointId id : hinges)
      worst_angle = std::max(worst_angle, world.joint_state(id).angular_error);
    for (const BodyId id : world.bodies()) {
      if (world.type(id) == BodyType::dynamic_body) lowest = std::min(lowest, world.position(id).y);
    }
  }
  RecordProperty("worst_hinge_angular_error_rad", std::to_string(worst_angle));
  RecordProperty("lowest_body_centre_m", std::to_string(lowest));
  EXPECT_GT(lowest, Real(-0.1));  // the ground's top is y = 0
  EXPECT_LT(worst_angle, Real(0.05));
}

TEST(JointScenes, ImpossibleConstraintsStayBoundedForTenThousandSteps) {
  SKIP_UNLESS_OPTIMISED();
  World world = world_of("impossible");
  const Real dt = world.settings().timestep;
  // Bounded: the kinetic energy saturates instead of growing. The tie's bias feeds energy in every
  // step (its constraints cannot hold), so a divergent solve would show as a later peak well above
  // the earlier one (the chain's blow-up grows by orders of magnitude); the second half's peak may
  // be at most twice the first half's.
  double first_half = 0, second_half = 0;
  for (int i = 0; i < 10000; ++i) {
    world.step(dt);
    ASSERT_TRUE(all_finite(world)) << "step " << i;
    double& peak = i < 5000 ? first_half : second_half;
    peak = std::max(peak, world.kinetic_energy());
  }
  EXPECT_LT(second_half, 2 * first_half) << first_half << " J, then " << second_half << " J";
  RecordProperty("peak_kinetic_energy_first_half_J", std::to_string(first_half));
  RecordProperty("peak_kinetic_energy_second_half_J", std::to_string(second_half));
  for (const JointId id : world.joints()) {
    RecordProperty(world.joint_settings(id).name + "_error_m",
                   std::to_string(world.joint_state(id).error));
  }
}

}  // namespace
}  // namespace impulse
