#pragma once

#include "solver/solver.h"

namespace impulse {

/// Projected Jacobi: every row's impulse change is computed from the same velocities, then all are
/// applied together (order-independent, so parallel-friendly). Convergence needs relaxation: row i
/// takes sor / n_i of its change, n_i the most rows that act on either of its bodies (the
/// mass-splitting argument: n rows pushing one body at once would otherwise overshoot n-fold).
class JacobiSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::jacobi; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;

 private:
  std::vector<Real> relaxation_;
  std::vector<Real> delta_;
  std::vector<std::uint32_t> rows_per_body_;
};

}  // namespace impulse
