#pragma once

#include "solver/solver.h"

namespace impulse {

/// Projected Jacobi with mass splitting (Tonge, Benevolenski and Voroshilov, "Mass Splitting for
/// Jitter-Free Parallel Rigid Body Simulation", 2012): the rows are cut into units, runs of a
/// block's rows between the same two bodies (a joint's axes, a manifold's normal and friction
/// rows). Each iteration every unit is solved from the same velocities, by one Gauss-Seidel pass
/// over its rows against its own copy of its two bodies, each copy carrying 1 / n of its body's
/// mass where n units act on the body; then every unit's impulse changes are applied together,
/// which averages the copies (order-independent, so parallel-friendly). A unit's rows see each
/// other's changes at once: a joint's axes, which relaxing each row by the rows on its bodies
/// would leave a sixth of their step, and which Baumgarte's warm-started bias then pumped.
class JacobiSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::jacobi; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;

 private:
  std::vector<std::uint32_t> unit_begin_;      // unit u: rows [unit_begin_[u], unit_begin_[u + 1])
  std::vector<std::uint32_t> units_per_body_;  // n above, for movable bodies
  std::vector<Real> step_;  // per row: sor / its diagonal against the split bodies
  std::vector<Real> next_;  // the units' impulses after this iteration
};

}  // namespace impulse
