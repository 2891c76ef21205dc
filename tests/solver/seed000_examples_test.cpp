// Seed 000's 1D numerical examples, for every solver: the impulses can be computed by hand.

#include <gtest/gtest.h>

#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::k_all_solvers;
using testing::RowProblem;

class Seed000Example : public ::testing::TestWithParam<SolverType> {};

// A body of mass m resting on a fixed surface with velocity -1: the contact impulse that stops it
// is exactly m * 1, and the body ends at rest.
TEST_P(Seed000Example, BodyRestingOnFixedSurfaceGetsTheImpulseThatStopsIt) {
  for (Real mass : {Real(1), Real(2.5)}) {
    RowProblem p;
    const auto ground = p.add_body(0);
    const auto body = p.add_body(mass, {0, -1, 0});
    p.add_contact_y(body, ground);
    const SolveStats stats =
        p.solve(GetParam(), testing::iterations(GetParam() == SolverType::jacobi ? 50 : 10));
    EXPECT_NEAR(p.rows.lambda[0], mass, 1e-6 * mass);
    EXPECT_NEAR(p.velocities[body].linear.y, 0, 1e-6);
    EXPECT_EQ(p.velocities[ground].linear, Vec3::zero());
    EXPECT_LT(stats.final_residual, 1e-5);
  }
}

// Three unit masses stacked on the ground; the second moves down at 1 m/s. Rows (bottom up):
// ground-1: v1 >= 0, 1-2: v2 - v1 >= 0, 2-3: v3 - v2 >= 0, so A = [[1,-1,0],[-1,2,-1],[0,-1,2]]
// and b = -J v = [0, 1, -1]. With all three active, A lambda = b gives lambda = (1, 1, 0), all
// >= 0 with w_3 = 0: the second body pushes the first into the ground (impulse 1 through both
// contacts), the top contact carries nothing, and every body ends at rest.
TEST_P(Seed000Example, ThreeBodyStackWithSecondBodyMovingDownGetsHandComputedImpulses) {
  RowProblem p;
  const auto ground = p.add_body(0);
  const auto b1 = p.add_body(1);
  const auto b2 = p.add_body(1, {0, -1, 0});
  const auto b3 = p.add_body(1);
  p.add_contact_y(b1, ground);
  p.add_contact_y(b2, b1);
  p.add_contact_y(b3, b2);
  const int budget = GetParam() == SolverType::jacobi ? 400 : 60;
  p.solve(GetParam(), testing::iterations(budget));
  EXPECT_NEAR(p.rows.lambda[0], 1, 1e-4);
  EXPECT_NEAR(p.rows.lambda[1], 1, 1e-4);
  EXPECT_NEAR(p.rows.lambda[2], 0, 1e-4);
  for (const auto body : {b1, b2, b3})
    EXPECT_NEAR(p.velocities[body].linear.y, 0, 1e-4);
}

std::string solver_name(const ::testing::TestParamInfo<SolverType>& param) {
  return solver_type_name(param.param);
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, Seed000Example, ::testing::ValuesIn(k_all_solvers),
                         solver_name);

}  // namespace
}  // namespace impulse
