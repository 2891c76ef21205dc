#pragma once

#include "solver/solver.h"

namespace impulse {

/// Block Gauss-Seidel (seed 002): the rows of one block (a joint's axes, a contact's normal and
/// friction rows) are solved together at each visit as a small dense MLCP, exactly, with the other
/// rows held fixed; bounds and friction coupling inside the block are respected. Single rows are
/// ordinary projected Gauss-Seidel visits.
class BlockSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::block; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;

 private:
  std::vector<Real> before_;  // a block's impulses before its visit
};

/// J_i M^-1 J_j^T: how an impulse on row j changes the velocity error of row i.
Real row_coupling(const RowStore& rows, std::size_t i, std::size_t j);

}  // namespace impulse
