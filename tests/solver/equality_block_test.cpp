// pgs's equality block (solver/equality_block.h): the bilateral rows solved exactly, once per
// sweep while other rows change the velocities, and not again once nothing else does.

#include <gtest/gtest.h>

#include "row_problem.h"
#include "solver/pgs_solver.h"

namespace impulse {
namespace {

using testing::RowProblem;
using testing::same_bits;

// A chain of `links` bodies hanging from the world (body 0) by ball joints, three bilateral rows
// each (a joint's rows), the links falling at 1 m/s and spinning: nothing but joints.
RowProblem hanging_chain(int links) {
  RowProblem p;
  p.add_body(0);
  for (int k = 1; k <= links; ++k) {
    p.add_body(1, {0, -1, 0});
    p.velocities.back().angular = {Real(0.1) * Real(k % 3), 0, Real(0.2)};
  }
  for (int k = 1; k <= links; ++k) {
    const auto a = std::uint32_t(k), b = std::uint32_t(k - 1);
    const Vec3 lever_a{Real(-0.5), 0, 0}, lever_b{b == 0 ? Real(0) : Real(0.5), 0, 0};
    p.rows.begin_block();
    for (const Vec3& axis : {Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z()}) {
      RowSpec row;
      row.body_a = a;
      row.body_b = b;
      row.j_lin_a = axis;
      row.j_ang_a = cross(lever_a, axis);
      row.j_lin_b = -axis;
      row.j_ang_b = -cross(lever_b, axis);
      p.rows.add(row);
    }
    p.rows.end_block();
  }
  p.rows.prepare(p.masses);
  return p;
}

TEST(EqualityBlock, JointsAloneAreSolvedInTheFirstSweepAndLeftAloneAfter) {
  RowProblem once = hanging_chain(30), ten = once;
  SolveStats stats;
  PgsSolver().solve(once.rows, once.bodies(), testing::iterations(1), stats);
  PgsSolver().solve(ten.rows, ten.bodies(), testing::iterations(10), stats);
  for (std::size_t i = 0; i < once.rows.size(); ++i) {
    ASSERT_TRUE(same_bits(once.rows.lambda[i], ten.rows.lambda[i])) << "row " << i;
    // Solved: every joint row's velocity error is gone, to rounding.
    const BodyVelocity &a = ten.velocities[ten.rows.body_a[i]],
                       &b = ten.velocities[ten.rows.body_b[i]];
    const Real jv = dot(ten.rows.j_lin_a(i), a.linear) + dot(ten.rows.j_ang_a(i), a.angular) +
                    dot(ten.rows.j_lin_b(i), b.linear) + dot(ten.rows.j_ang_b(i), b.angular);
    EXPECT_NEAR(jv, 0, 1e-4) << "row " << i;
  }
}

// A solve of joints alone is exact (last_solve_exact), which lets a step skip its relax solve:
// solving the same rows again from the free velocities and the first solve's impulses, as the
// relax solve does, gives the first solve's velocities again. Over-relaxed, or with a one-sided
// row among the joints, a solve is not exact.
TEST(EqualityBlock, ASolveOfJointsAloneIsExactAndSolvingItAgainChangesNothing) {
  RowProblem p = hanging_chain(30);
  const std::vector<BodyVelocity> free = p.velocities;
  PgsSolver solver;
  SolveStats stats;
  solver.solve(p.rows, p.bodies(), testing::iterations(10), stats);
  EXPECT_TRUE(solver.last_solve_exact());
  const std::vector<BodyVelocity> solved = p.velocities;
  p.velocities = free;
  solver.solve_again(p.rows, p.bodies(), testing::iterations(2), stats);
  for (std::size_t k = 0; k < solved.size(); ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      EXPECT_NEAR(p.velocities[k].linear[axis], solved[k].linear[axis], 1e-5) << "body " << k;
      EXPECT_NEAR(p.velocities[k].angular[axis], solved[k].angular[axis], 1e-5) << "body " << k;
    }
  }

  SolverSettings over_relaxed = testing::iterations(10);
  over_relaxed.sor = Real(1.2);
  RowProblem q = hanging_chain(30);
  solver.solve(q.rows, q.bodies(), over_relaxed, stats);
  EXPECT_FALSE(solver.last_solve_exact());

  RowProblem with_contact = hanging_chain(30);
  with_contact.add_contact_y(30, 0);
  with_contact.rows.prepare(with_contact.masses);
  solver.solve(with_contact.rows, with_contact.bodies(), testing::iterations(10), stats);
  EXPECT_FALSE(solver.last_solve_exact());
}

}  // namespace
}  // namespace impulse
