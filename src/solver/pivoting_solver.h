#pragma once

#include "solver/solver.h"

namespace impulse {

/// The direct reference: the whole system assembled densely and solved exactly by principal
/// pivoting (solve_dense_mlcp), up to k_max_direct_mlcp_rows rows. Iterative error is measured
/// against it. Its stats report one iteration, the residual of the exact solution. Disc pairs
/// (cone friction) are solved exactly too, by turning their tangent frames (disc_mlcp.h). Where
/// no solution is found (the friction bounds' fixed point or the disc frames do not settle) it
/// refuses, applying nothing: its last iterate, applied, threw a resting chain to 5e5 J.
class PivotingSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::pivoting; }
  bool solves_bilateral_rows_exactly() const override { return true; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;
};

}  // namespace impulse
