#include "solver/block_solver.h"

#include "solver/pgs_solver.h"
#include "solver/residual.h"

#include <algorithm>
#include <numeric>

namespace impulse {

void BlockSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                        SolveStats& stats) {
  const Real b_norm = start_row_solve(rows, bodies.velocities, settings, stats);
  const std::size_t block_count = rows.block_begin.size() - 1;
  order_.reset(block_count, settings.shuffle);
  block_of_.resize(std::max(block_of_.size(), block_count));
  pool_.restart();
  for (std::size_t block = 0; block < block_count; ++block) {
    const std::uint32_t begin = rows.block_begin[block], end = rows.block_begin[block + 1];
    const std::uint32_t size = end - begin;
    if (size < 2) continue;
    block_of_[block] = pool_.take(size);
    block_rows_.resize(size);
    std::iota(block_rows_.begin(), block_rows_.end(), begin);
    pool_[block_of_[block]].assemble(rows, block_rows_, bodies.masses);
  }
  ratio_islands_.find(rows, bodies.masses, bodies.gravity_dv);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = 0;
    for (const std::uint32_t block : order_.next()) {
      const std::size_t begin = rows.block_begin[block], end = rows.block_begin[block + 1];
      before_.assign(rows.lambda.begin() + std::ptrdiff_t(begin),
                     rows.lambda.begin() + std::ptrdiff_t(end));
      if (end - begin == 1 ||
          !pool_[block_of_[block]].solve(rows, bodies.velocities, settings.sor)) {
        // A single row, or a block the exact solve could not take: Gauss-Seidel visits.
        for (std::size_t i = begin; i < end; ++i)
          pgs_visit_row(rows, i, bodies.velocities, settings.sor);
      }
      for (std::size_t i = begin; i < end; ++i)
        max_delta = std::max(max_delta, std::abs(rows.lambda[i] - before_[i - begin]));
    }
    const auto measure = [&] { return measure_residual(rows, bodies.velocities, b_norm); };
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
  // As pgs: block Gauss-Seidel passes a heavy body's load through a light one as slowly as
  // single rows do (its blocks are a manifold's rows, not the column's).
  ratio_islands_.solve(rows, bodies, settings, false, b_norm, stats);
}

}  // namespace impulse
