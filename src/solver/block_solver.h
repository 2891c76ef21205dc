#pragma once

#include "solver/exact_block.h"
#include "solver/ratio_islands.h"
#include "solver/row_order.h"
#include "solver/solver.h"

namespace impulse {

/// Block Gauss-Seidel (seed 002): the rows of one block (a joint's axes, a contact's normal and
/// friction rows) are solved together at each visit as a small dense MLCP, exactly, with the other
/// rows held fixed; bounds and friction coupling inside the block are respected. A cone pair is a
/// block of its own (or part of a contact's block) and is solved exactly on its disc
/// (disc_mlcp.h). Single rows, and blocks whose exact solve fails, get projected Gauss-Seidel
/// visits (a disc pair: pgs_solver.cpp's pair step). Islands whose masses differ widely are solved
/// exactly after the iterations, as pgs's are (ratio_islands.h).
class BlockSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::block; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;

 private:
  // Per block of more than one row, assembled once per solve (a visit refills only b, the bounds
  // and the guess), taken from blocks kept by row count.
  ExactBlockPool pool_;
  std::vector<ExactBlockPool::Handle> block_of_;  // per block of the layout
  std::vector<std::uint32_t> block_rows_;         // a block's rows, as the assembly takes them
  std::vector<Real> before_;                      // a block's impulses before its visit
  RowOrder order_;                                // the blocks' visiting order
  RatioIslands ratio_islands_;                    // solved exactly after the iterations
};

}  // namespace impulse
