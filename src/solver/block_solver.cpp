#include "solver/block_solver.h"

#include "solver/disc_mlcp.h"
#include "solver/pgs_solver.h"
#include "solver/residual.h"
#include "solver/row_order.h"

#include <algorithm>

namespace impulse {
namespace {

// Assembles block [begin, end)'s fixed part: A + diag(softness), the friction coupling, the disc
// pairs, A's spectrum. Costs O(k^3); done once per solve, as none of it changes between visits.
void assemble_block(const RowStore& rows, std::size_t begin, std::size_t end, MlcpProblem& problem,
                    std::vector<int>& disc_pairs, Eigen::VectorXd& guess) {
  const int k = int(end - begin);
  problem.a.resize(k, k);
  problem.b.resize(k);
  problem.lo.resize(k);
  problem.hi.resize(k);
  problem.normal_index.assign(std::size_t(k), -1);
  problem.normal_count.assign(std::size_t(k), 1);
  problem.mu.setZero(k);
  guess.resize(k);
  disc_pairs.clear();
  for (int r = 0; r < k; ++r) {
    const std::size_t i = begin + std::size_t(r);
    if (rows.disc_first(i)) disc_pairs.push_back(r);
    for (int c = 0; c < k; ++c)
      problem.a(r, c) = rows.coupling(i, begin + std::size_t(c));
    problem.a(r, r) += rows.softness[i];
    const std::int32_t n = rows.normal_row[i];
    if (n >= std::int32_t(begin) && n + rows.normal_count[i] <= std::int32_t(end)) {
      problem.normal_index[std::size_t(r)] = int(n - std::int32_t(begin));
      problem.normal_count[std::size_t(r)] = rows.normal_count[i];
      problem.mu[r] = rows.mu[i];
    }
  }
  problem.spectrum.reset();
  // A block the solver will reject (a zero diagonal, non-finite entries) gets no spectrum; the
  // solve reports why.
  if (problem.a.allFinite()) problem.spectrum = mlcp_spectrum(problem.a);
}

// Solves block [begin, end) exactly with the rest fixed; false when the small solve failed.
// `problem` holds the block's assembled A (assemble_block); b, the bounds and the guess are set
// here. Disc pairs in the block are solved with their discs (disc_mlcp.h).
bool solve_block(RowStore& rows, std::size_t begin, std::size_t end, std::span<BodyVelocity> v,
                 Real sor, MlcpProblem& problem, std::span<const int> disc_pairs,
                 Eigen::VectorXd& lambda) {
  const int k = int(end - begin);
  for (int r = 0; r < k; ++r) {
    const std::size_t i = begin + std::size_t(r);
    lambda[r] = rows.lambda[i];
    const double w = row_error<double>(rows, i, v);
    // With the other rows fixed, w' = w + A (lambda' - lambda): an MLCP in lambda' with b = A
    // lambda - w.
    problem.b[r] = -w;
    problem.lo[r] = rows.lower(i);
    problem.hi[r] = rows.upper(i);
  }
  problem.b.noalias() += problem.a * lambda;
  const MlcpResult result = solve_dense_mlcp_with_discs(problem, disc_pairs, &lambda);
  if (!result.solved) return false;
  const auto relaxed = [&](int r) {
    const std::size_t i = begin + std::size_t(r);
    return rows.lambda[i] + sor * (Real(result.lambda[r]) - rows.lambda[i]);
  };
  const auto set = [&](std::size_t i, Real new_lambda) {
    apply_row_impulse(rows, i, new_lambda - rows.lambda[i], v);
    rows.lambda[i] = new_lambda;
  };
  for (int r = 0; r < k; ++r) {
    const std::size_t i = begin + std::size_t(r);
    if (rows.disc_second(i)) continue;  // set with its first row
    if (rows.disc_first(i)) {
      const TangentPair t = project_to_disc({relaxed(r), relaxed(r + 1)}, rows.disc_radius(i));
      set(i, t.t1);
      set(i + 1, t.t2);
      continue;
    }
    set(i, std::clamp(relaxed(r), rows.lower(i), rows.upper(i)));
  }
  return true;
}

}  // namespace

void BlockSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                        SolveStats& stats) {
  const Real b_norm = start_row_solve(rows, bodies.velocities, settings, stats);
  const std::size_t block_count = rows.block_begin.size() - 1;
  RowOrder order(block_count, settings.shuffle);
  blocks_.resize(std::max(blocks_.size(), block_count));
  for (std::size_t block = 0; block < block_count; ++block) {
    const std::size_t begin = rows.block_begin[block], end = rows.block_begin[block + 1];
    Block& b = blocks_[block];
    if (end - begin > 1) assemble_block(rows, begin, end, b.problem, b.disc_pairs, b.guess);
  }
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = 0;
    for (const std::uint32_t block : order.next()) {
      const std::size_t begin = rows.block_begin[block], end = rows.block_begin[block + 1];
      before_.assign(rows.lambda.begin() + std::ptrdiff_t(begin),
                     rows.lambda.begin() + std::ptrdiff_t(end));
      Block& b = blocks_[block];
      if (end - begin == 1 || !solve_block(rows, begin, end, bodies.velocities, settings.sor,
                                           b.problem, b.disc_pairs, b.guess)) {
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
