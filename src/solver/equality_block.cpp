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
  sides_.clear();
  for (std::uint32_t k = 0; k < rows_.size(); ++k) {
    const std::size_t i = rows_[k];
    if (rows.b_lin_a[i] != Vec3::zero() || rows.b_ang_a[i] != Vec3::zero())
      sides_.push_back({rows.body_a[i], k, false});
    if (rows.b_lin_b[i] != Vec3::zero() || rows.b_ang_b[i] != Vec3::zero())
      sides_.push_back({rows.body_b[i], k, true});
  }
  // The same sides in the same order as last time: the same terms in the same slots (a scene's
  // joints from step to step), so only their values are computed.
  const bool same_pattern = sides_ == pattern_sides_ && a_.rows() == Eigen::Index(rows_.size());
  if (!same_pattern) analyse();
  // The matrix's values from the terms, each added into its slot in the order setFromTriplets
  // summed them at the analysis: the same bits as building the matrix anew.
  double* values = a_.valuePtr();
  for (const Term& t : terms_) {
    const std::size_t i = rows_[t.p_row];
    const double value =
        t.p_is_b == k_diagonal_term
            ? double(rows.softness[i]) + k_regularisation * rows.diagonal[i]
            : coupling_through(rows, i, t.p_is_b != 0, rows_[t.q_row], t.q_is_b != 0);
    values[t.slot] = t.first_in_slot != 0 ? value : values[t.slot] + value;
  }
  ldlt_.factorize(a_);
  const auto n = Eigen::Index(rows_.size());
  rhs_.resize(n);
  x_.resize(n);
  return ldlt_.info() == Eigen::Success;
}

// The pattern's terms (for each body, the products of its sides' rows; then each row's
// softness), the fill-reducing ordering, the reordered matrix's structure, and where each term's
// value goes in it.
void EqualityBlock::analyse() {
  pattern_sides_ = sides_;
  std::vector<Side> sorted = sides_;
  std::sort(sorted.begin(), sorted.end(),
            [](const Side& x, const Side& y) { return x.body < y.body; });
  terms_.clear();
  for (std::size_t first = 0; first < sorted.size();) {
    std::size_t end = first;
    while (end < sorted.size() && sorted[end].body == sorted[first].body)
      ++end;
    for (std::size_t p = first; p < end; ++p) {
      for (std::size_t q = first; q < end; ++q) {
        const Side &sp = sorted[p], &sq = sorted[q];
        if (sp.row < sq.row) continue;  // one triangle
        terms_.push_back({sp.row, sq.row, 0, std::uint8_t(sp.is_b), std::uint8_t(sq.is_b), 0});
      }
    }
    first = end;
  }
  for (std::uint32_t k = 0; k < rows_.size(); ++k)
    terms_.push_back({k, k, 0, k_diagonal_term, k_diagonal_term, 0});
  const auto n = Eigen::Index(rows_.size());
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(terms_.size());
  for (const Term& t : terms_)
    triplets.emplace_back(t.p_row, t.q_row, 0.0);
  // The ordering SimplicialLDLT's default (AMDOrdering) would find, from the lower triangle.
  a_.resize(n, n);
  a_.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse;
  Eigen::AMDOrdering<int>()(a_.selfadjointView<Eigen::Lower>(), inverse);
  const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> order = inverse.inverse();
  order_.assign(order.indices().data(), order.indices().data() + n);
  for (Eigen::Triplet<double>& t : triplets) {  // into the reordered upper triangle
    const int r = order_[std::size_t(t.row())], c = order_[std::size_t(t.col())];
    t = {std::min(r, c), std::max(r, c), 0.0};
  }
  a_.setFromTriplets(triplets.begin(), triplets.end());
  std::vector<bool> seen(std::size_t(a_.nonZeros()), false);
  const int* outer = a_.outerIndexPtr();
  const int* inner = a_.innerIndexPtr();
  for (std::size_t k = 0; k < terms_.size(); ++k) {
    const int column = triplets[k].col(), row = triplets[k].row();
    const int* at = std::lower_bound(inner + outer[column], inner + outer[column + 1], row);
    const auto slot = std::size_t(at - inner);
    terms_[k].slot = std::uint32_t(slot);
    terms_[k].first_in_slot = seen[slot] ? 0 : 1;
    seen[slot] = true;
  }
  ldlt_.analyzePattern(a_);
}

void EqualityBlock::solve(std::span<const double> error, std::span<double> delta) {
  for (std::size_t k = 0; k < error.size(); ++k)
    rhs_[order_[k]] = -error[k];
  x_ = ldlt_.solve(rhs_);
  for (std::size_t k = 0; k < delta.size(); ++k)
    delta[k] = x_[order_[k]];
}

}  // namespace impulse
