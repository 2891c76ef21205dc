#include "solver/exact_block.h"

#include "solver/contradicting_rows.h"
#include "solver/disc_mlcp.h"
#include "solver/residual.h"

#include <algorithm>

namespace impulse {

void ExactBlock::assemble(const RowStore& store, std::span<const std::uint32_t> rows,
                          std::span<const SolverBodyMass> masses) {
  rows_.assign(rows.begin(), rows.end());
  bodies_.clear();
  for (const std::uint32_t i : rows_) {
    bodies_.push_back(store.body_a[i]);
    bodies_.push_back(store.body_b[i]);
  }
  std::sort(bodies_.begin(), bodies_.end());
  bodies_.erase(std::unique(bodies_.begin(), bodies_.end()), bodies_.end());
  mass_ = 0;
  for (const std::uint32_t body : bodies_) {
    if (masses[body].inv_mass > 0) mass_ += 1 / double(masses[body].inv_mass);
  }
  const int k = int(rows_.size());
  problem_.a.resize(k, k);
  problem_.b.resize(k);
  problem_.lo.resize(k);
  problem_.hi.resize(k);
  problem_.normal_index.assign(std::size_t(k), -1);
  problem_.normal_count.assign(std::size_t(k), 1);
  problem_.mu.setZero(k);
  guess_.resize(k);
  velocity_.resize(k);
  disc_pairs_.clear();
  // Row n of the store as a row of the block, or -1 (the rows ascend).
  const auto block_row = [&](std::int32_t n) {
    const auto at = std::lower_bound(rows_.begin(), rows_.end(), std::uint32_t(n));
    return at != rows_.end() && *at == std::uint32_t(n) ? int(at - rows_.begin()) : -1;
  };
  for (int r = 0; r < k; ++r) {
    const std::size_t i = rows_[std::size_t(r)];
    if (store.disc_first(i)) disc_pairs_.push_back(r);
    for (int c = 0; c < k; ++c)
      problem_.a(r, c) = store.coupling(i, rows_[std::size_t(c)]);
    problem_.a(r, r) += store.softness[i];
    const std::int32_t n = store.normal_row[i];
    if (n < 0) continue;
    // Coupled when its normal rows are the block's, consecutive in it as in the store.
    const int first = block_row(n), count = store.normal_count[i];
    if (first >= 0 && first + count <= k &&
        rows_[std::size_t(first + count - 1)] == std::uint32_t(n + count - 1)) {
      problem_.normal_index[std::size_t(r)] = first;
      problem_.normal_count[std::size_t(r)] = count;
      problem_.mu[r] = store.mu[i];
    }
  }
  // Checked and measured once for the solve's visits (J M^-1 J^T + diag(softness) is positive
  // semi-definite by construction); a block the solver will reject (a zero diagonal, non-finite
  // entries) gets no facts, and its visits report why.
  problem_.matrix_facts = mlcp_matrix_facts(problem_.a, semi_definite_spectrum(problem_.a));
}

bool ExactBlock::solve(RowStore& store, std::span<BodyVelocity> v, Real sor, Real gain_speed) {
  const int k = int(rows_.size());
  for (int r = 0; r < k; ++r) {
    const std::size_t i = rows_[std::size_t(r)];
    guess_[r] = store.lambda[i];
    // With the other rows fixed, w' = w + A (lambda' - lambda): an MLCP in lambda' with b = A
    // lambda - w.
    const double error = row_error<double>(store, i, v);
    problem_.b[r] = -error;
    velocity_[r] = error + double(store.bias[i]) - double(store.softness[i]) * guess_[r];
    problem_.lo[r] = store.lower(i);
    problem_.hi[r] = store.upper(i);
  }
  problem_.b.noalias() += problem_.a * guess_;
  solve_dense_mlcp_with_discs(problem_, disc_pairs_, &guess_, workspace_, result_);
  const MlcpResult& result = result_;
  if (!result.solved || rows_contradict(store, rows_, result.lambda, problem_.a, mass_) ||
      (is_finite(gain_speed) &&
       energy_gain(result.lambda) > 0.5 * mass_ * double(gain_speed) * double(gain_speed)))
    return false;
  const auto relaxed = [&](int r) {
    const std::size_t i = rows_[std::size_t(r)];
    return store.lambda[i] + sor * (Real(result.lambda[r]) - store.lambda[i]);
  };
  const auto set = [&](std::size_t i, Real lambda) {
    apply_row_impulse(store, i, lambda - store.lambda[i], v);
    store.lambda[i] = lambda;
  };
  // Friction rows last: their bounds follow their normal rows' new impulses (a manifold's friction
  // rows come before its normal rows in the store).
  for (const bool friction : {false, true}) {
    for (int r = 0; r < k; ++r) {
      const std::size_t i = rows_[std::size_t(r)];
      if ((store.normal_row[i] >= 0) != friction || store.disc_second(i)) continue;
      if (store.disc_first(i)) {  // the pair's second row is set with it
        const TangentPair t = project_to_disc({relaxed(r), relaxed(r + 1)}, store.disc_radius(i));
        set(i, t.t1);
        set(i + 1, t.t2);
        continue;
      }
      set(i, std::clamp(relaxed(r), store.lower(i), store.upper(i)));
    }
  }
  return true;
}

double ExactBlock::energy_gain(const Eigen::VectorXd& lambda) const {
  // With d the change of impulse: d^T J v + d^T A d / 2 (a soft row's softness in A counts too).
  const int k = int(rows_.size());
  double gain = 0;
  for (int r = 0; r < k; ++r) {
    const double d = lambda[r] - guess_[r];
    double ad = 0;
    for (int c = 0; c < k; ++c)
      ad += problem_.a(r, c) * (lambda[c] - guess_[c]);
    gain += d * (velocity_[r] + 0.5 * ad);
  }
  return gain;
}

void ExactBlockPool::restart() {
  std::fill(taken_.begin(), taken_.end(), 0);
}

ExactBlockPool::Handle ExactBlockPool::take(std::uint32_t rows) {
  if (rows >= by_size_.size()) {
    by_size_.resize(rows + 1);
    taken_.resize(rows + 1, 0);
  }
  const Handle block{rows, taken_[rows]++};
  if (block.slot == by_size_[rows].size()) by_size_[rows].emplace_back();
  return block;
}

}  // namespace impulse
