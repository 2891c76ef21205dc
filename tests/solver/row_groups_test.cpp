// Which rows pgs visits together as a group (RowGroup): a manifold's normal rows, not the two ends
// of a joint's range.

#include <gtest/gtest.h>

#include "solver/pgs_solver.h"
#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::RowProblem;

// A one-sided angular row of body a against the world: J v = axis . w_a >= bias.
RowSpec angular_limit(std::uint32_t a, const Vec3& axis) {
  RowSpec row;
  row.body_a = a;
  row.body_b = 0;
  row.j_ang_a = axis;
  row.lo = 0;
  return row;
}

// A body turning about x against the low end of a twist range [lo, hi] (both ends' rows, as a
// joint writes them: the high end's Jacobian is the low end's negated), beside a swing limit and a
// ball joint holding its centre; and a box resting on the world on four points, its normal rows
// one-sided between the same two bodies as well.
TEST(RowGroups, TheTwoEndsOfARangeAreVisitedAloneAndAManifoldsNormalsTogether) {
  RowProblem p;
  p.add_body(0);
  const std::uint32_t turning = p.add_body(2), box = p.add_body(1, {0, -1, 0});
  p.velocities[turning].angular = {-3, 0, 0};
  testing::add_ball_rows(p, turning, 0, Vec3::zero(), Vec3::zero());
  p.rows.begin_block();
  p.rows.add(angular_limit(turning, Vec3::unit_z()));  // the swing limit, far: idle
  const std::uint32_t low_end = p.rows.add(angular_limit(turning, Vec3::unit_x()));
  const std::uint32_t high_end = p.rows.add(angular_limit(turning, -Vec3::unit_x()));
  p.rows.end_block();
  p.rows.begin_block();
  const auto first_normal = std::uint32_t(p.rows.size());
  for (const Real x : {Real(-0.5), Real(0.5)}) {
    for (const Real z : {Real(-0.5), Real(0.5)}) {
      RowSpec normal;
      normal.body_a = box;
      normal.body_b = 0;
      normal.j_lin_a = Vec3::unit_y();
      normal.j_ang_a = cross(Vec3{x, Real(-0.5), z}, Vec3::unit_y());
      normal.lo = 0;
      p.rows.add(normal);
    }
  }
  p.rows.end_block();
  p.rows.prepare(p.masses);

  PgsSolver solver;
  SolveStats stats;
  solver.solve(p.rows, p.bodies(), testing::iterations(10), stats);
  ASSERT_EQ(solver.groups().size(), 1u);
  EXPECT_EQ(solver.groups()[0].first, first_normal);
  EXPECT_EQ(solver.groups()[0].count, 4u);
  // The low end stops the turn: its impulse is the angular momentum, I w = 0.4 m w; the high end,
  // separating, carries none.
  EXPECT_NEAR(p.rows.lambda[low_end], Real(0.4) * 2 * 3, 1e-4);
  EXPECT_NEAR(p.rows.lambda[high_end], 0, 1e-6);
  EXPECT_NEAR(p.velocities[turning].angular.x, 0, 1e-5);
  // The box stops on its four corners, m v in all, with no moment about its centre, and evenly:
  // four coplanar corners share a load in a family of ways (the group's regularisation picks the
  // even one; a build fusing multiply-adds lands a few 1e-4 along the family from it).
  Real total = 0, moment_x = 0, moment_z = 0;
  std::uint32_t k = 0;
  for (const Real x : {Real(-0.5), Real(0.5)}) {
    for (const Real z : {Real(-0.5), Real(0.5)}) {
      const std::uint32_t corner = k++;
      const Real lambda = p.rows.lambda[first_normal + corner];
      EXPECT_NEAR(lambda, Real(0.25), 1e-3) << "corner " << corner;
      total += lambda;
      moment_x += lambda * z;
      moment_z += lambda * x;
    }
  }
  EXPECT_NEAR(total, 1, 1e-4);
  EXPECT_NEAR(moment_x, 0, 1e-4);
  EXPECT_NEAR(moment_z, 0, 1e-4);
}

}  // namespace
}  // namespace impulse
