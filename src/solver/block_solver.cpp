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
  slot_.resize(std::max(slot_.size(), block_count));
  std::fill(used_.begin(), used_.end(), 0);
  const auto exact_block = [&](std::size_t block) -> ExactBlock& {
    return by_size_[rows.block_begin[block + 1] - rows.block_begin[block]][slot_[block]];
  };
  for (std::size_t block = 0; block < block_count; ++block) {
    const std::uint32_t begin = rows.block_begin[block], end = rows.block_begin[block + 1];
    const std::uint32_t size = end - begin;
    if (size < 2) continue;
    if (size >= by_size_.size()) {
      by_size_.resize(size + 1);
      used_.resize(size + 1, 0);
    }
    slot_[block] = used_[size]++;
    if (slot_[block] == by_size_[size].size()) by_size_[size].emplace_back();
    block_rows_.resize(size);
    std::iota(block_rows_.begin(), block_rows_.end(), begin);
    exact_block(block).assemble(rows, block_rows_, bodies.masses);
  }
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = 0;
    for (const std::uint32_t block : order_.next()) {
      const std::size_t begin = rows.block_begin[block], end = rows.block_begin[block + 1];
      before_.assign(rows.lambda.begin() + std::ptrdiff_t(begin),
                     rows.lambda.begin() + std::ptrdiff_t(end));
      if (end - begin == 1 || !exact_block(block).solve(rows, bodies.velocities, settings.sor)) {
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
}

}  // namespace impulse
