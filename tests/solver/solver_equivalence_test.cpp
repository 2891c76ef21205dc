// The same algorithm on two representations: PGS on the sparse rows and projected Gauss-Seidel on
// the assembled matrix (seed 000 vs seed 001) give the same impulses for the same order.

#include <gtest/gtest.h>

#include <random>

#include "solver/global_solver.h"
#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::RowProblem;

RowProblem chain_with_friction(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-1, 1);
  RowProblem p;
  p.add_body(0);
  for (int k = 0; k < 8; ++k)
    p.add_body(1 + Real(k) * Real(0.3), {u(rng), u(rng), u(rng)});
  for (std::uint32_t k = 1; k <= 8; ++k) {
    const std::uint32_t below = k - 1;
    p.rows.begin_block();  // a contact's rows, as a manifold's: its friction rows form a run
    const auto n = p.add_contact_y(k, below, Real(0.1) * u(rng));
    // Two off-centre points' tangent pairs on the one normal row: a run of four friction rows
    // that couple through the rotation, as a manifold's do (pgs visits a run together).
    for (const Real side : {Real(1), Real(-1)}) {
      for (const Vec3& t : {Vec3::unit_x(), Vec3::unit_z()}) {
        RowSpec f;
        f.body_a = k;
        f.body_b = below;
        f.j_lin_a = t;
        f.j_lin_b = -t;
        f.j_ang_a = cross(Vec3{Real(0.3) * side, Real(-0.5), Real(0.2)}, t);
        f.j_ang_b = -cross(Vec3{Real(-0.2), Real(0.5), Real(0.3) * side}, t);
        f.normal_row = std::int32_t(n);
        f.mu = Real(0.4);
        p.rows.add(f);
      }
    }
    p.rows.end_block();
  }
  return p;
}

TEST(SolverEquivalence, PgsOnRowsEqualsGaussSeidelOnTheDenseMatrix) {
  for (bool shuffle : {false, true}) {
    for (int iterations : {1, 5, 20}) {
      RowProblem rows_problem = chain_with_friction(7);
      RowProblem matrix_problem = rows_problem;
      SolverSettings settings = testing::iterations(iterations);
      settings.shuffle = shuffle;
      settings.sor = Real(1.2);
      rows_problem.solve(SolverType::pgs, settings);
      matrix_problem.solve(SolverType::global_dense, settings);
      for (std::size_t i = 0; i < rows_problem.rows.size(); ++i) {
        EXPECT_NEAR(rows_problem.rows.lambda[i], matrix_problem.rows.lambda[i], 1e-5)
            << "row " << i << ", " << iterations << " iterations, shuffle " << shuffle;
      }
      for (std::size_t b = 0; b < rows_problem.velocities.size(); ++b) {
        EXPECT_NEAR(length(rows_problem.velocities[b].linear - matrix_problem.velocities[b].linear),
                    0, 1e-5);
        EXPECT_NEAR(
            length(rows_problem.velocities[b].angular - matrix_problem.velocities[b].angular), 0,
            1e-5);
      }
    }
  }
}

TEST(SolverEquivalence, DenseAndSparseGlobalSolversAgree) {
  RowProblem dense = chain_with_friction(11);
  RowProblem sparse = dense;
  dense.solve(SolverType::global_dense, testing::iterations(15));
  sparse.solve(SolverType::global_sparse, testing::iterations(15));
  for (std::size_t i = 0; i < dense.rows.size(); ++i)
    EXPECT_NEAR(dense.rows.lambda[i], sparse.rows.lambda[i], 1e-5);
}

TEST(SolverEquivalence, WarmStartImpulsesCountTowardTheSolution) {
  // Solving twice (the second solve warm-started by the first's impulses, from the same free
  // velocities) must not double the impulse: the warm start is part of lambda, not added to it.
  for (SolverType type : testing::k_all_solvers) {
    RowProblem p;
    const auto ground = p.add_body(0);
    const auto body = p.add_body(2, {0, -1, 0});
    p.add_contact_y(body, ground);
    p.solve(type, testing::iterations(50));
    p.velocities[body].linear = {0, -1, 0};
    p.solve(type, testing::iterations(50));
    EXPECT_NEAR(p.rows.lambda[0], 2, 1e-5) << solver_type_name(type);
    EXPECT_NEAR(p.velocities[body].linear.y, 0, 1e-5) << solver_type_name(type);
  }
}

// Seed 000, "Why do solvers break?": zero diagonals and non-finite data are reported, not fatal.
TEST(SolverFaults, RowBetweenImmovableBodiesIsSkippedAndReported) {
  for (SolverType type : testing::k_all_solvers) {
    RowProblem p;
    const auto ground = p.add_body(0);
    const auto wall = p.add_body(0);
    const auto body = p.add_body(1, {0, -1, 0});
    p.add_contact_y(wall, ground);  // J M^-1 J^T = 0
    p.add_contact_y(body, ground);
    const SolveStats stats = p.solve(type, testing::iterations(20));
    EXPECT_EQ(stats.degenerate_rows, 1u) << solver_type_name(type);
    EXPECT_EQ(p.rows.lambda[0], 0) << solver_type_name(type);
    EXPECT_NEAR(p.velocities[body].linear.y, 0, 1e-5) << solver_type_name(type);
  }
}

TEST(SolverFaults, GlobalSolversRefuseNonFiniteEntriesAndApplyNothing) {
  for (SolverType type :
       {SolverType::global_dense, SolverType::global_sparse, SolverType::pivoting}) {
    RowProblem p;
    const auto ground = p.add_body(0);
    const auto body = p.add_body(1, {0, -1, 0});
    p.add_contact_y(body, ground);
    p.rows.bias[0] = std::numeric_limits<Real>::quiet_NaN();
    const SolveStats stats = p.solve(type, testing::iterations(5));
    EXPECT_EQ(stats.status, SolveStatus::refused) << solver_type_name(type);
    EXPECT_FALSE(stats.diagnostic.empty());
    EXPECT_EQ(p.velocities[body].linear.y, -1) << solver_type_name(type);
  }
}

TEST(SolverFaults, DenseGlobalSolverRefusesSystemsBeyondItsLimit) {
  RowProblem p;
  const auto ground = p.add_body(0);
  const auto body = p.add_body(1, {0, -1, 0});
  for (std::size_t i = 0; i <= k_max_dense_global_rows; ++i)
    p.add_contact_y(body, ground);
  const SolveStats stats = p.solve(SolverType::global_dense, testing::iterations(1));
  EXPECT_EQ(stats.status, SolveStatus::refused);
  EXPECT_NE(stats.diagnostic.find("limit"), std::string::npos);
  EXPECT_EQ(p.velocities[body].linear.y, -1);
}

}  // namespace
}  // namespace impulse
