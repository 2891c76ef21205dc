// The relax solve (Solver::solve_again) under pgs continues from the velocities the first solve
// left, whose impulses are in them already, instead of starting again from the free velocities
// and warm starting: the two starts are the same velocities up to rounding, so the relax solves
// must agree to rounding.

#include <gtest/gtest.h>

#include <cmath>

#include "row_problem.h"
#include "solver/pgs_solver.h"

namespace impulse {
namespace {

using testing::RowProblem;

// A chain of six links hanging from the world (ball joints: the equality block), and beside it a
// column of five resting bodies of 1 kg on the world, each contact pushing its body out at
// 0.5 m/s (a penetration's Baumgarte bias, which the relax solve drops).
RowProblem chain_and_column() {
  RowProblem p;
  p.add_body(0);
  testing::add_chain(p, 6);
  std::uint32_t below = 0;
  for (int k = 0; k < 5; ++k) {
    const std::uint32_t body = p.add_body(1);
    p.add_contact_y(body, below, Real(0.5));
    below = body;
  }
  p.rows.prepare(p.masses);
  return p;
}

// The first solve, then the push-out dropped as the world's relax drops it.
void solve_and_drop_push_out(PgsSolver& solver, RowProblem& p, const SolverSettings& settings) {
  SolveStats stats;
  solver.solve(p.rows, p.bodies(), settings, stats);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    if (p.rows.lo[i] == 0) p.rows.bias[i] = 0;
  }
}

TEST(RelaxSolve, ContinuingFromTheSolvedVelocitiesMatchesWarmStartingFromTheFreeOnes) {
  SolverSettings settings;   // no measures, stored order: pgs continues
  settings.iterations = 40;  // enough for the column to settle
  PgsSolver solver;
  ASSERT_TRUE(solver.continues_from_solved_velocities(settings));
  SolverSettings measuring = settings;  // a residual's right-hand side needs the free velocities
  measuring.measure_residuals = true;
  EXPECT_FALSE(solver.continues_from_solved_velocities(measuring));
  SolverSettings shuffled = settings;
  shuffled.shuffle = true;
  EXPECT_FALSE(solver.continues_from_solved_velocities(shuffled));

  RowProblem continued = chain_and_column(), restarted = chain_and_column();
  const std::vector<BodyVelocity> free = restarted.velocities;
  PgsSolver continuing, restarting;
  solve_and_drop_push_out(continuing, continued, settings);
  solve_and_drop_push_out(restarting, restarted, settings);
  restarted.velocities = free;  // and warm started from the first solve's impulses
  SolveStats stats;
  continuing.solve_again(continued.rows, continued.bodies(), settings, stats, true);
  restarting.solve_again(restarted.rows, restarted.bodies(), settings, stats, false);

  for (std::size_t i = 0; i < continued.rows.size(); ++i) {
    const Real scale = std::max(Real(1), std::abs(restarted.rows.lambda[i]));
    EXPECT_NEAR(continued.rows.lambda[i], restarted.rows.lambda[i], Real(1e-4) * scale)
        << "row " << i;
  }
  for (std::size_t k = 0; k < continued.velocities.size(); ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      EXPECT_NEAR(continued.velocities[k].linear[axis], restarted.velocities[k].linear[axis],
                  Real(1e-4))
          << "body " << k;
      EXPECT_NEAR(continued.velocities[k].angular[axis], restarted.velocities[k].angular[axis],
                  Real(1e-4))
          << "body " << k;
    }
  }
  // The first solve sent the column up at 0.5 m/s a contact (the top at 2.5); without the
  // push-out it comes to rest to within 2% of that in 40 sweeps (a second warm start would have
  // sent it up at twice that).
  for (std::uint32_t body = 7; body < 12; ++body)
    EXPECT_NEAR(continued.velocities[body].linear.y, 0, Real(0.05)) << "body " << body;
}

}  // namespace
}  // namespace impulse
