// Units visited four at a time (solver/unit_batches.h): a pgs solve whose layout held from the
// last one visits its contact manifolds in batches and gives, to the bit, the impulses and
// velocities of the same solve visiting them one at a time in stored order.

#include "solver/unit_batches.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/task_pool.h"
#include "row_problem.h"
#include "solver/pgs_solver.h"

namespace impulse {
namespace {

using testing::RowProblem;

// Columns of unit boxes on the ground (body 0), numbered row by row, each resting on the one
// below through a four-point manifold written as the contact writer writes it: a block of the
// points' two friction rows each (bounded by the point's normal row), then the four normal rows.
// The boxes fall and slide at different speeds, so every row has work to do.
RowProblem columns(int width, int height) {
  RowProblem p;
  p.add_body(0);
  for (int k = 0; k < width * height; ++k) {
    p.add_body(1 + Real(k % 5) * Real(0.3),
               {Real(k % 3) * Real(0.2) - Real(0.2), Real(-1) - Real(k % 4) * Real(0.1),
                Real(k % 7) * Real(0.05)});
    p.velocities.back().angular = {Real(k % 2) * Real(0.3), 0, Real(k % 3) * Real(-0.2)};
  }
  const auto box = [&](int x, int y) { return std::uint32_t(1 + y * width + x); };
  const Vec3 n = Vec3::unit_y();
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::uint32_t a = box(x, y), b = y == 0 ? 0 : box(x, y - 1);
      const auto first = std::int32_t(p.rows.size());
      p.rows.begin_block();
      const auto corner = [&](int k, Real side) {
        return Vec3{k % 2 == 0 ? Real(-0.5) : Real(0.5), side, k < 2 ? Real(-0.5) : Real(0.5)};
      };
      for (int k = 0; k < 4; ++k) {
        for (const Vec3& t : {Vec3::unit_x(), Vec3::unit_z()}) {
          RowSpec f;
          f.body_a = a;
          f.body_b = b;
          f.j_lin_a = t;
          f.j_ang_a = cross(corner(k, Real(-0.5)), t);
          f.j_lin_b = -t;
          f.j_ang_b = -cross(corner(k, Real(0.5)), t);
          f.normal_row = first + 8 + k;
          f.mu = Real(0.5);
          p.rows.add(f);
        }
      }
      for (int k = 0; k < 4; ++k) {
        RowSpec normal;
        normal.body_a = a;
        normal.body_b = b;
        normal.j_lin_a = n;
        normal.j_ang_a = cross(corner(k, Real(-0.5)), n);
        normal.j_lin_b = -n;
        normal.j_ang_b = -cross(corner(k, Real(0.5)), n);
        normal.lo = 0;
        normal.bias = Real(0.01) * Real(1 + k);
        p.rows.add(normal);
      }
      p.rows.end_block();
    }
  }
  p.rows.prepare(p.masses);
  return p;
}

bool same_bits(Real x, Real y) {
  return std::memcmp(&x, &y, sizeof(Real)) == 0;
}

void expect_same_bits(const RowProblem& one, const RowProblem& other) {
  for (std::size_t i = 0; i < one.rows.size(); ++i)
    ASSERT_TRUE(same_bits(one.rows.lambda[i], other.rows.lambda[i])) << "row " << i;
  for (std::size_t k = 0; k < one.velocities.size(); ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      ASSERT_TRUE(same_bits(one.velocities[k].linear[axis], other.velocities[k].linear[axis]));
      ASSERT_TRUE(same_bits(one.velocities[k].angular[axis], other.velocities[k].angular[axis]));
    }
  }
}

std::size_t full_batches(const UnitBatches& batches) {
  std::size_t full = 0;
  for (std::size_t k = 0; k < batches.batch_count(); ++k)
    full += batches.batch(k).units == UnitBatch::k_units ? 1 : 0;
  return full;
}

// The first solve of a layout visits unit by unit in stored order; the second, of the same rows
// from the same start, visits most units four at a time, on one thread or three: the same bits.
TEST(UnitBatches, ASolveInBatchesGivesTheBitsOfTheSolveUnitByUnit) {
  for (const int threads : {1, 3}) {
    RowProblem reference = columns(24, 6);
    TaskPool pool(threads);
    PgsSolver solver;
    SolveStats stats;
    const SolverSettings settings = testing::iterations(40);
    solver.solve(reference.rows, {reference.velocities, reference.masses, &pool}, settings, stats);
    EXPECT_FALSE(solver.batches().built());  // a new layout

    RowProblem again = columns(24, 6);
    solver.solve(again.rows, {again.velocities, again.masses, &pool}, settings, stats);
    ASSERT_TRUE(solver.batches().built());
    // The 24 ground contacts share no body, nor do the contacts of one row of boxes.
    EXPECT_GE(full_batches(solver.batches()), 24u) << threads << " threads";
    expect_same_bits(reference, again);
    // And the solve did its work: the boxes on the ground no longer fall into it.
    EXPECT_LT(stats.final_residual, Real(0.1));  // relative
    for (std::size_t k = 1; k <= 24; ++k)
      EXPECT_GT(again.velocities[k].linear.y, Real(-0.05)) << "box " << k;
  }
}

}  // namespace
}  // namespace impulse
