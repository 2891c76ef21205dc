// Geometric stiffness of joint loads: the inertia a load adds (against its closed form), its fade
// on light loads, the stiffened inverse inertia, and in a world: a chain of light links under a
// heavy weight stays joined, and a pendulum keeps its period.

#include "dynamics/geometric_stiffness.h"

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "scene/builtin/builtin_scenes.h"
#include "support/bodies.h"
#include "support/optimised.h"

namespace impulse {
namespace {

using testing::body_of;

constexpr Real k_dt = Real(1.0 / 60);

void expect_mat_near(const Mat33& actual, const Mat33& expected, Real tolerance) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(actual(r, c), expected(r, c), tolerance) << "entry (" << r << ", " << c << ")";
}

TEST(GeometricStiffness, ATensionAlongTheLeverAddsDtSquaredFRAcrossIt) {
  // 1000 N on a 1 kg link's 0.25 m lever: the load's share dt^2 |f| / (m r) = 1.1, full.
  const Mat33 added = geometric_stiffness_inertia({1000, 0, 0}, {Real(0.25), 0, 0}, 1, k_dt);
  const Real expected = k_dt * k_dt * 1000 * Real(0.25);
  expect_mat_near(added, Mat33::diagonal({0, expected, expected}), expected * Real(1e-6));
}

TEST(GeometricStiffness, ACompressionAlongAnyLeverAddsTheSameInertiaAcrossIt) {
  const Vec3 lever = normalize(Vec3{1, 2, -2}) * Real(0.3);
  const Vec3 force = normalize(lever) * -500;
  const Mat33 added = geometric_stiffness_inertia(force, lever, Real(0.5), k_dt);
  const Real size = k_dt * k_dt * 500 * Real(0.3);
  EXPECT_NEAR(length(added * lever), 0, size * Real(1e-5));  // nothing about the lever itself
  const Vec3 across = normalize(cross(lever, Vec3{0, 0, 1}));
  EXPECT_NEAR(dot(across, added * across), size, size * Real(1e-5));
}

TEST(GeometricStiffness, OnlyTheLoadAlongTheLeverCounts) {
  // A load across the lever (a cantilever's shear): r f^T, both eigenvalues zero, nothing added.
  EXPECT_EQ(geometric_stiffness_inertia({0, 1000, 0}, {Real(0.25), 0, 0}, 1, k_dt), Mat33::zero());
  // 1000 N at 60 degrees to the lever: its 500 N along the lever, full (share 0.56).
  const Real c = std::cos(Real(std::numbers::pi / 3)), s = std::sin(Real(std::numbers::pi / 3));
  const Mat33 added =
      geometric_stiffness_inertia(Vec3{c, s, 0} * 1000, {Real(0.25), 0, 0}, 1, k_dt);
  const Real expected = k_dt * k_dt * 500 * Real(0.25);
  expect_mat_near(added, Mat33::diagonal({0, expected, expected}), expected * Real(1e-5));
}

TEST(GeometricStiffness, ALightLoadsInertiaFadesWithItsShareOfTheBodysOwn) {
  // A 1 kg bob hanging 1 m under its nail: share dt^2 g / L = 0.0027, a tenth of full at 0.1.
  const Real g = Real(9.81);
  const Mat33 added = geometric_stiffness_inertia({0, g, 0}, {0, 1, 0}, 1, k_dt);
  const Real share = k_dt * k_dt * g;
  const Real expected = k_dt * k_dt * g * (share / Real(0.1));
  expect_mat_near(added, Mat33::diagonal({expected, 0, expected}), expected * Real(1e-5));
  // No load, no lever, or a load or an inertia past float's range: nothing.
  EXPECT_EQ(geometric_stiffness_inertia({}, {0, 1, 0}, 1, k_dt), Mat33::zero());
  EXPECT_EQ(geometric_stiffness_inertia({0, 10, 0}, {}, 1, k_dt), Mat33::zero());
  EXPECT_EQ(geometric_stiffness_inertia({0, INFINITY, 0}, {0, 1, 0}, 1, k_dt), Mat33::zero());
  EXPECT_EQ(geometric_stiffness_inertia({0, Real(3e38), 0}, {0, Real(1e6), 0}, 1, k_dt),
            Mat33::zero());  // an inertia past float's range
}

TEST(GeometricStiffness, TheStiffenedInverseIsTheInverseOfTheSummedInertia) {
  const Quat turn = Quat::from_axis_angle(normalize(Vec3{1, 1, 0}), Real(0.7));
  const Mat33 r = to_matrix(turn);
  const Mat33 inertia = r * Mat33::diagonal({Real(0.2), Real(0.5), Real(0.9)}) * transpose(r);
  const Mat33 added = geometric_stiffness_inertia({0, 0, 300}, {0, Real(0.1), Real(0.4)}, 1, k_dt);
  const Mat33 stiffened = stiffened_inverse_inertia(inverse(inertia), added);
  expect_mat_near(stiffened, inverse(inertia + added), Real(1e-5));
  EXPECT_EQ(stiffened, transpose(stiffened));
}

TEST(GeometricStiffness, ABodyTurningOnlyAboutAPlanesNormalKeepsDoingSo) {
  // A plane body's inverse inertia n n^T / I_n: stiffened, n n^T / (I_n + n^T A n).
  const Vec3 n = normalize(Vec3{0, 1, 1});
  const Mat33 inv_inertia = Mat33::outer(n, n) * (1 / Real(0.4));
  const Mat33 added = geometric_stiffness_inertia({400, 0, 0}, {Real(0.25), 0, 0}, 1, k_dt);
  const Mat33 stiffened = stiffened_inverse_inertia(inv_inertia, added);
  expect_mat_near(stiffened, Mat33::outer(n, n) * (1 / (Real(0.4) + dot(n, added * n))),
                  Real(1e-6));
}

// Ten 1 kg links under a 100 kg weight (builtin::heavy_chain) released at `degrees` above the
// horizontal, 600 steps: the worst and the mean over the steps of the largest joint error, and the
// largest change of the mechanical energy against the largest kinetic energy reached.
struct ChainRun {
  Real worst = 0, mean = 0;
  double energy_change = 0;
};

ChainRun run_heavy_chain(Real degrees, SolverType solver, bool geometric_stiffness) {
  Scene scene = builtin::heavy_chain(10, 100, degrees);
  scene.settings.solver.type = solver;
  scene.settings.solver.geometric_stiffness = geometric_stiffness;
  World world = build_world(scene);
  std::vector<std::pair<BodyId, Real>> masses;
  for (const BodyId id : world.bodies())
    masses.emplace_back(id, world.mass_properties(id).mass);
  const auto energy = [&] {
    double e = world.kinetic_energy();
    for (const auto& [id, mass] : masses)
      e -= double(mass) * dot(world.settings().gravity, world.position(id));
    return e;
  };
  const double start = energy();
  double largest_kinetic = 0, largest_change = 0;
  ChainRun run;
  constexpr int k_steps = 600;
  for (int step = 0; step < k_steps; ++step) {
    world.step(scene.settings.timestep);
    Real largest = 0;
    for (const JointId j : world.joints())
      largest = std::max(largest, world.joint_state(j).error);
    run.worst = std::max(run.worst, largest);
    run.mean += largest / k_steps;
    largest_kinetic = std::max(largest_kinetic, world.kinetic_energy());
    largest_change = std::max(largest_change, std::abs(energy() - start));
  }
  run.energy_change = largest_change / largest_kinetic;
  return run;
}

TEST(GeometricStiffness, AChainOfLightLinksHoldsAHundredTimesHeavierWeightSwingingDown) {
  // Measured worst / mean: 8.6 / 2.6, 4.0 / 1.2, 60 / 8.7 mm; without the stiffness the links spin
  // up to tens of rad/s and the joints part by metres: 2.6 / 0.63, 2.4 / 0.62, 8.2 / 1.9 m.
  for (const Real degrees : {Real(0), Real(-10), Real(15)}) {
    SCOPED_TRACE("released at " + std::to_string(degrees) + " degrees");
    const ChainRun with = run_heavy_chain(degrees, SolverType::pgs, true);
    EXPECT_LT(with.worst, Real(0.15));
    EXPECT_LT(with.mean, Real(0.02));
    EXPECT_GT(run_heavy_chain(degrees, SolverType::pgs, false).mean, Real(0.3));
  }
}

TEST(GeometricStiffness, TheHeavyChainSwingsWithoutLosingEnergy) {
  // Only the response to impulses sees the added inertia, so the swing keeps its energy: measured
  // within 1.5% of the largest kinetic energy over 10 s. Damping the links' turning velocities as
  // well (the implicit step proper) lost 41%; without the stiffness the parting joints changed it
  // by as much as 130%.
  const ChainRun with = run_heavy_chain(-10, SolverType::pgs, true);
  EXPECT_LT(with.energy_change, 0.04);
  EXPECT_GT(run_heavy_chain(-10, SolverType::pgs, false).energy_change, 0.3);
}

TEST(GeometricStiffness, TheBlockSolverNoLongerThrowsTheHeavyChainApart) {
  SKIP_UNLESS_OPTIMISED();  // the chain without the stiffness takes a minute to fly apart there
  // Measured worst / mean 0.095 / 0.039 m (the joints' softness yields under the weight); without
  // the stiffness the chain flew apart, 1.3 km of joint error (9.1 m built without fused
  // multiply-adds).
  const ChainRun with = run_heavy_chain(0, SolverType::block, true);
  EXPECT_LT(with.worst, Real(0.3));
  EXPECT_LT(with.mean, Real(0.1));
  EXPECT_GT(run_heavy_chain(0, SolverType::block, false).worst, Real(1));
}

// The period of a 1 kg ball of radius 0.1 m nailed 1 m above its centre, released at 5 degrees, at
// 60 Hz: zero crossings of x over four swings.
Real pendulum_period(bool geometric_stiffness) {
  WorldSettings settings;
  settings.sleeping = false;
  settings.solver.geometric_stiffness = geometric_stiffness;
  World world(settings);
  const Real a = 5 * std::numbers::pi_v<Real> / 180;
  BodySettings bob = body_of(Sphere{Real(0.1)}, {std::sin(a), -std::cos(a), 0});
  bob.mass = 1;
  const BodyId id = world.create_body(bob);
  JointSettings nail;
  nail.type = JointType::nail;
  nail.body_a = id;
  world.create_joint(nail);
  std::vector<double> crossings;
  Real last_x = world.position(id).x;
  for (int i = 1; crossings.size() < 5 && i < 2000; ++i) {
    world.step(settings.timestep);
    const Real x = world.position(id).x;
    if (last_x < 0 && x >= 0)
      crossings.push_back((i - 1 - last_x / (x - last_x)) * double(settings.timestep));
    last_x = x;
  }
  return Real((crossings.back() - crossings.front()) / double(crossings.size() - 1));
}

TEST(GeometricStiffness, ALightlyLoadedPendulumKeepsItsPeriod) {
  // Measured: the periods differ by 4e-5 of themselves; the stiffness added unfaded would lengthen
  // it by 1.3e-3 (dt^2 g L against the bob's m L^2).
  const Real with = pendulum_period(true), without = pendulum_period(false);
  EXPECT_LT(std::abs(with - without), Real(2e-4) * without);
}

}  // namespace
}  // namespace impulse
