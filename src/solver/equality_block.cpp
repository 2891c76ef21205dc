#include "solver/equality_block.h"

#include <algorithm>

namespace impulse {
namespace {

// A relative regularisation of the diagonal: redundant rows (two joints holding the same freedom)
// make A singular, and this keeps the factorisation from failing on them at a cost of a relative
// yield of 1e-6.
constexpr double k_regularisation = 1e-6;

bool bilateral(const RowStore& rows, std::size_t i) {
  return rows.inv_eff_mass[i] > 0 && rows.normal_row[i] < 0 && rows.cone[i] == 0 &&
         !rows.disc_second(i) && rows.lo[i] == -k_infinity && rows.hi[i] == k_infinity;
}

// J_i's part on one body times B_j's part on it: row j's impulse seen by row i through that body.
double coupling_through(const RowStore& rows, std::size_t i, bool i_b, std::size_t j, bool j_b) {
  const Vec3& jl = i_b ? rows.j_lin_b[i] : rows.j_lin_a[i];
  const Vec3& ja = i_b ? rows.j_ang_b[i] : rows.j_ang_a[i];
  const Vec3& bl = j_b ? rows.b_lin_b[j] : rows.b_lin_a[j];
  const Vec3& ba = j_b ? rows.b_ang_b[j] : rows.b_ang_a[j];
  return double(dot(jl, bl)) + double(dot(ja, ba));
}

}  // namespace

bool EqualityBlock::prepare(const RowStore& rows) {
  rows_.clear();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (bilateral(rows, i)) rows_.push_back(std::uint32_t(i));
  }
  if (rows_.size() < 2) return false;
  std::vector<Side>& sides = sides_;
  sides.clear();
  for (std::uint32_t k = 0; k < rows_.size(); ++k) {
    const std::size_t i = rows_[k];
    if (rows.b_lin_a[i] != Vec3::zero() || rows.b_ang_a[i] != Vec3::zero())
      sides.push_back({rows.body_a[i], k, false});
    if (rows.b_lin_b[i] != Vec3::zero() || rows.b_ang_b[i] != Vec3::zero())
      sides.push_back({rows.body_b[i], k, true});
  }
  // The same sides in the same order as last time: the same sorted order, the same triplets in
  // the same order, so the same pattern (a scene's joints from step to step).
  const bool same_pattern = sides == pattern_sides_ && a_.rows() == Eigen::Index(rows_.size());
  if (!same_pattern) {
    pattern_sides_ = sides;
    std::sort(sides.begin(), sides.end(),
              [](const Side& x, const Side& y) { return x.body < y.body; });
    sorted_sides_ = sides;
  }
  triplets_.clear();
  for (std::size_t first = 0; first < sorted_sides_.size();) {
    std::size_t end = first;
    while (end < sorted_sides_.size() && sorted_sides_[end].body == sorted_sides_[first].body)
      ++end;
    for (std::size_t p = first; p < end; ++p) {
      for (std::size_t q = first; q < end; ++q) {
        const Side &sp = sorted_sides_[p], &sq = sorted_sides_[q];
        if (sp.row < sq.row) continue;  // the factorisation reads the lower triangle only
        triplets_.emplace_back(
            sp.row, sq.row, coupling_through(rows, rows_[sp.row], sp.is_b, rows_[sq.row], sq.is_b));
      }
    }
    first = end;
  }
  for (std::uint32_t k = 0; k < rows_.size(); ++k) {
    const std::size_t i = rows_[k];
    triplets_.emplace_back(k, k, double(rows.softness[i]) + k_regularisation * rows.diagonal[i]);
  }
  const auto n = Eigen::Index(rows_.size());
  if (!same_pattern) {
    // The ordering SimplicialLDLT's default (AMDOrdering) would find, on the same pattern.
    a_.resize(n, n);
    a_.setFromTriplets(triplets_.begin(), triplets_.end());
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse;
    Eigen::AMDOrdering<int>()(a_.selfadjointView<Eigen::Lower>(), inverse);
    const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> order = inverse.inverse();
    order_.assign(order.indices().data(), order.indices().data() + n);
  }
  for (Eigen::Triplet<double>& t : triplets_) {  // into the reordered upper triangle
    const int r = order_[std::size_t(t.row())], c = order_[std::size_t(t.col())];
    t = {std::min(r, c), std::max(r, c), t.value()};
  }
  if (same_pattern) {
    refill();
  } else {
    a_.setFromTriplets(triplets_.begin(), triplets_.end());
    map_triplets();
    ldlt_.analyzePattern(a_);
  }
  ldlt_.factorize(a_);
  rhs_.resize(n);
  x_.resize(n);
  return ldlt_.info() == Eigen::Success;
}

// Where each triplet's value went in a_ (setFromTriplets sums a slot's triplets in their order).
void EqualityBlock::map_triplets() {
  slot_of_.resize(triplets_.size());
  first_in_slot_.assign(triplets_.size(), 0);
  std::vector<bool> seen(std::size_t(a_.nonZeros()), false);
  const int* outer = a_.outerIndexPtr();
  const int* inner = a_.innerIndexPtr();
  for (std::size_t t = 0; t < triplets_.size(); ++t) {
    const int column = int(triplets_[t].col()), row = int(triplets_[t].row());
    const int* at = std::lower_bound(inner + outer[column], inner + outer[column + 1], row);
    const auto slot = std::size_t(at - inner);
    slot_of_[t] = std::uint32_t(slot);
    first_in_slot_[t] = seen[slot] ? 0 : 1;
    seen[slot] = true;
  }
}

// a_'s values from this step's triplets, summed in setFromTriplets' order: the same bits.
void EqualityBlock::refill() {
  double* values = a_.valuePtr();
  for (std::size_t t = 0; t < triplets_.size(); ++t) {
    double& value = values[slot_of_[t]];
    value = first_in_slot_[t] != 0 ? triplets_[t].value() : value + triplets_[t].value();
  }
}

void EqualityBlock::solve(std::span<const double> error, std::span<double> delta) {
  for (std::size_t k = 0; k < error.size(); ++k)
    rhs_[order_[k]] = -error[k];
  x_ = ldlt_.solve(rhs_);
  for (std::size_t k = 0; k < delta.size(); ++k)
    delta[k] = x_[order_[k]];
}

}  // namespace impulse
