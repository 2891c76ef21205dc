// Soft rows (constraint force mixing): J v + gamma lambda = bias. Every solver must reach the
// closed form, and soft_row must turn a row into the damped spring it names.

#include "solver/row_problem.h"
#include "solver/solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace impulse {
namespace {

using testing::k_all_solvers;
using testing::RowProblem;

RowSpec soft_equality(std::uint32_t body, std::uint32_t world, const Vec3& axis, Real bias,
                      Real softness) {
  RowSpec row;
  row.body_a = body;
  row.body_b = world;
  row.j_lin_a = axis;
  row.bias = bias;
  row.softness = softness;
  return row;
}

class SoftRowsEverySolver : public ::testing::TestWithParam<SolverType> {};

// One body of mass m on two soft equality rows along x and y, as one block so the block solver
// takes its assembled path: the rows do not couple (J_x M^-1 J_y^T = 0), so each converges to
// lambda = (b - J v0) / (J M^-1 J^T + gamma) = (b - J v0) / (1 / m + gamma).
TEST_P(SoftRowsEverySolver, SingleBodyReachesTheClosedFormImpulse) {
  constexpr Real mass = 2, v0x = Real(-0.5), v0y = 1;
  constexpr Real bias_x = 3, gamma_x = Real(0.25), bias_y = -1, gamma_y = Real(0.1);
  RowProblem p;
  const std::uint32_t body = p.add_body(mass, {v0x, v0y, 0});
  const std::uint32_t world = p.add_body(0);
  p.rows.begin_block();
  p.rows.add(soft_equality(body, world, Vec3::unit_x(), bias_x, gamma_x));
  p.rows.add(soft_equality(body, world, Vec3::unit_y(), bias_y, gamma_y));
  p.rows.end_block();
  const SolveStats stats = p.solve(GetParam(), testing::iterations(200));

  const Real lambda_x = (bias_x - v0x) / (1 / mass + gamma_x);
  const Real lambda_y = (bias_y - v0y) / (1 / mass + gamma_y);
  EXPECT_NEAR(p.rows.lambda[0], lambda_x, 1e-4);
  EXPECT_NEAR(p.rows.lambda[1], lambda_y, 1e-4);
  EXPECT_NEAR(p.velocities[body].linear.x, v0x + lambda_x / mass, 1e-4);
  EXPECT_NEAR(p.velocities[body].linear.y, v0y + lambda_y / mass, 1e-4);
  // The residual counts the softness: a converged soft row reads zero.
  EXPECT_LT(stats.final_residual, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, SoftRowsEverySolver, ::testing::ValuesIn(k_all_solvers),
                         [](const auto& param_info) { return solver_type_name(param_info.param); });

// A 1 kg body hung from the world by a soft row along y (C = y - y0), stepped by our own loop:
// the rows, one PGS solve, semi-implicit Euler. Returns C at every step.
std::vector<Real> spring_trajectory(Real frequency, Real damping_ratio, Real c0, Real duration) {
  constexpr Real dt = Real(1) / 240;
  const SoftRow soft = soft_row(1, frequency, damping_ratio, dt);
  RowProblem p;
  const std::uint32_t body = p.add_body(1);
  const std::uint32_t world = p.add_body(0);
  Real c = c0;
  std::vector<Real> trajectory{c};
  for (int step = 0; step < int(std::lround(duration / dt)); ++step) {
    p.rows.clear();
    p.rows.add(
        soft_equality(body, world, Vec3::unit_y(), -soft.bias_factor / dt * c, soft.softness));
    p.solve(SolverType::pgs, testing::iterations(1));
    c += dt * p.velocities[body].linear.y;
    trajectory.push_back(c);
  }
  return trajectory;
}

TEST(SoftRow, UndampedSpringOscillatesAtItsFrequency) {
  constexpr Real dt = Real(1) / 240;
  const std::vector<Real> c = spring_trajectory(1, 0, Real(0.1), 6);
  // Times of the upward zero crossings, linearly interpolated between steps.
  std::vector<double> crossings;
  for (std::size_t k = 1; k < c.size(); ++k) {
    if (c[k - 1] < 0 && c[k] >= 0)
      crossings.push_back(dt * (double(k - 1) + double(c[k - 1]) / double(c[k - 1] - c[k])));
  }
  ASSERT_GE(crossings.size(), 5u);
  const double period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  EXPECT_NEAR(period, 1.0, 0.02);
}

TEST(SoftRow, CriticallyDampedSpringDoesNotOvershoot) {
  const std::vector<Real> c = spring_trajectory(1, 1, Real(0.1), 3);
  for (const Real value : c)
    EXPECT_GE(value, 0);
  // (1 + omega t) e^(-omega t) at t = 3 s, omega = 2 pi: about 1e-7 of the start.
  EXPECT_LT(c.back(), Real(1e-4));
}

TEST(SoftRow, CoefficientsAreTheImplicitEulerSpring) {
  constexpr Real m = 3, f = 2, zeta = Real(0.5), dt = Real(0.01);
  const Real omega = 2 * k_pi * f, k = m * omega * omega, c = 2 * m * zeta * omega;
  const SoftRow soft = soft_row(1 / m, f, zeta, dt);
  EXPECT_NEAR(soft.softness, 1 / (dt * (c + dt * k)), 1e-6 * soft.softness);
  EXPECT_NEAR(soft.bias_factor, dt * k / (c + dt * k), 1e-6);
}

// A row that moves (almost) nothing: its mass 1 / w overflows, its coefficients must not (a
// fuzzer's finding: a six_dof spring between bodies of enormous inertia).
TEST(SoftRow, RowThatMovesNothingStaysFinite) {
  for (const Real w : {Real(0), std::numeric_limits<Real>::denorm_min()}) {
    const SoftRow soft = soft_row(w, 2, Real(0.5), Real(0.01));
    EXPECT_TRUE(std::isfinite(soft.softness));
    EXPECT_TRUE(std::isfinite(soft.bias_factor));
    EXPECT_GT(soft.bias_factor, 0);
  }
}

TEST(SoftRow, RejectsWhatIsNoSpring) {
  EXPECT_THROW(soft_row(1, 0, 0, Real(0.01)), std::invalid_argument);
  EXPECT_THROW(soft_row(1, 1, -1, Real(0.01)), std::invalid_argument);
  EXPECT_THROW(soft_row(-1, 1, 0, Real(0.01)), std::invalid_argument);
  EXPECT_THROW(soft_row(1, 1, 0, 0), std::invalid_argument);
}

TEST(SoftRow, StoreRejectsSoftFrictionAndBadSoftness) {
  RowStore rows;
  RowSpec normal = soft_equality(0, 1, Vec3::unit_y(), 0, 0);
  normal.lo = 0;
  rows.add(normal);
  RowSpec friction = soft_equality(0, 1, Vec3::unit_x(), 0, Real(0.1));
  friction.normal_row = 0;
  friction.mu = Real(0.5);
  EXPECT_THROW(rows.add(friction), std::invalid_argument);
  EXPECT_THROW(rows.add(soft_equality(0, 1, Vec3::unit_x(), 0, -1)), std::invalid_argument);
}

// Bodies whose state went non-finite give joint rows a non-finite softness: that is no misuse to
// throw for (the step must not throw), but a row the solvers must leave alone. Found by the world
// fuzzer (tests/fuzz): a prismatic joint on a body spun at 1.3e19 rad/s threw from World::step.
TEST(SoftRow, StoreLeavesRowsOfNonFiniteSoftnessInert) {
  RowStore rows;
  rows.add(soft_equality(0, 1, Vec3::unit_x(), 1, k_infinity));
  rows.add(soft_equality(0, 1, Vec3::unit_y(), 1, std::numeric_limits<Real>::quiet_NaN()));
  rows.add(soft_equality(0, 1, Vec3::unit_z(), 1, Real(0.5)));
  SolverBodyMass body;
  body.inv_mass = 1;
  rows.prepare({body, SolverBodyMass{}});
  EXPECT_EQ(rows.inv_eff_mass[0], 0);
  EXPECT_EQ(rows.inv_eff_mass[1], 0);
  EXPECT_FLOAT_EQ(rows.inv_eff_mass[2], Real(1) / Real(1.5));
  EXPECT_EQ(rows.degenerate_rows(), 2u);
}

}  // namespace
}  // namespace impulse
