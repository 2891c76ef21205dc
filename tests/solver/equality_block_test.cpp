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

}  // namespace
}  // namespace impulse
