// The Jacobi solver's mass splitting (jacobi_solver.h): a unit's rows are solved together against
// its split bodies, and the units' changes are averaged into the bodies.

#include <gtest/gtest.h>

#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::RowProblem;

// A body spinning and falling on a ball joint to the world, and one hanging below it from a second
// ball joint: three rows a unit, each unit between one pair of bodies.
RowProblem two_links() {
  RowProblem p;
  const auto world = p.add_body(0);
  const auto upper = p.add_body(1, {Real(0.3), -1, 0});
  const auto lower = p.add_body(Real(2.5), {0, Real(-0.5), Real(0.2)});
  p.velocities[upper].angular = {Real(0.4), 0, Real(-0.7)};
  testing::add_ball_rows(p, upper, world, {Real(-0.5), Real(0.1), 0}, {});
  testing::add_ball_rows(p, lower, upper, {0, Real(0.5), Real(0.2)}, {Real(0.5), 0, 0});
  return p;
}

// Where each body carries one unit its copy has the body's whole mass, and an iteration is a
// Gauss-Seidel sweep of the unit's rows: the assembled matrix's sweep in the same order.
TEST(JacobiSolver, AUnitAloneOnItsBodyIsAGaussSeidelSweepOfItsRows) {
  for (int iterations : {1, 4}) {
    RowProblem jacobi;
    const auto world = jacobi.add_body(0);
    const auto body = jacobi.add_body(Real(1.5), {Real(0.3), -1, Real(0.2)});
    jacobi.velocities[body].angular = {Real(0.4), Real(-0.2), Real(-0.7)};
    testing::add_ball_rows(jacobi, body, world, {Real(-0.5), Real(0.1), Real(0.3)}, {});
    RowProblem sweep = jacobi;
    SolverSettings settings = testing::iterations(iterations);
    settings.sor = Real(1.2);
    jacobi.solve(SolverType::jacobi, settings);
    sweep.solve(SolverType::global_dense, settings);
    for (std::size_t i = 0; i < jacobi.rows.size(); ++i)
      EXPECT_NEAR(jacobi.rows.lambda[i], sweep.rows.lambda[i], 1e-5) << "row " << i;
    EXPECT_NEAR(length(jacobi.velocities[body].linear - sweep.velocities[body].linear), 0, 1e-5);
    EXPECT_NEAR(length(jacobi.velocities[body].angular - sweep.velocities[body].angular), 0, 1e-5);
  }
}

// The upper link carries two units, so each sees it at half its mass; after one iteration the
// bodies hold the average of the copies, which is the free velocity plus M^-1 J^T lambda of every
// unit's impulses. Checked against a hand-rolled split solve of each unit.
TEST(JacobiSolver, SharedBodiesTakeTheAverageOfTheirSplitCopies) {
  RowProblem p = two_links();
  const RowProblem start = p;
  p.solve(SolverType::jacobi, testing::iterations(1));
  // Each unit swept alone from the start, with the upper link's inverse mass and inertia doubled.
  std::vector<Real> expected(p.rows.size());
  for (std::uint32_t unit : {0u, 3u}) {
    RowProblem alone = start;
    alone.masses[1].inv_mass *= 2;
    alone.masses[1].inv_inertia = alone.masses[1].inv_inertia * Real(2);
    RowStore rows;
    for (std::uint32_t i = unit; i < unit + 3; ++i) {
      RowSpec row;
      row.body_a = start.rows.body_a[i];
      row.body_b = start.rows.body_b[i];
      row.j_lin_a = start.rows.j_lin_a(i);
      row.j_ang_a = start.rows.j_ang_a(i);
      row.j_lin_b = start.rows.j_lin_b(i);
      row.j_ang_b = start.rows.j_ang_b(i);
      rows.add(row);
    }
    alone.rows = rows;
    alone.solve(SolverType::global_dense, testing::iterations(1));
    for (std::uint32_t k = 0; k < 3; ++k)
      expected[unit + k] = alone.rows.lambda[k];
  }
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    EXPECT_NEAR(p.rows.lambda[i], expected[i], 1e-5) << "row " << i;
  // v = v_free + M^-1 J^T lambda with the bodies' own masses.
  RowProblem applied = start;
  applied.rows.prepare(applied.masses);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    for (const auto& [body, lin, ang] :
         {std::tuple{applied.rows.body_a[i], applied.rows.b_lin_a(i), applied.rows.b_ang_a(i)},
          std::tuple{applied.rows.body_b[i], applied.rows.b_lin_b(i), applied.rows.b_ang_b(i)}}) {
      applied.velocities[body].linear += lin * expected[i];
      applied.velocities[body].angular += ang * expected[i];
    }
  }
  for (std::size_t b = 0; b < p.velocities.size(); ++b) {
    EXPECT_NEAR(length(p.velocities[b].linear - applied.velocities[b].linear), 0, 1e-5);
    EXPECT_NEAR(length(p.velocities[b].angular - applied.velocities[b].angular), 0, 1e-5);
  }
}

}  // namespace
}  // namespace impulse
