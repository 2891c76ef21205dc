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

bool EqualityBlock::prepare(const RowStore& rows, bool same_layout) {
  if (!same_layout) {
    rows_.clear();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (bilateral(rows, i)) rows_.push_back(std::uint32_t(i));
    }
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
  const bool same_pattern = sides_ == pattern_sides_ && pattern_rows_ == rows_.size();
  if (!same_pattern) analyse(rows);
  const std::span<double> values = ldlt_.values();
  std::fill(values.begin(), values.end(), 0.0);
  for (const Term& t : terms_) {
    const std::size_t i = rows_[t.p_row];
    values[t.slot] += t.p_is_b == k_diagonal_term
                          ? double(rows.softness[i]) + k_regularisation * rows.diagonal[i]
                          : coupling_through(rows, i, t.p_is_b != 0, rows_[t.q_row], t.q_is_b != 0);
  }
  return ldlt_.factorize();
}

// The pattern's terms (for each body, the products of its sides' rows; then each row's
// softness), its nodes (a joint's consecutive rows between the same two bodies) and the factor's
// structure, and where each term's value goes in it.
void EqualityBlock::analyse(const RowStore& rows) {
  pattern_sides_ = sides_;
  pattern_rows_ = rows_.size();
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
        terms_.push_back({sp.row, sq.row, 0, std::uint8_t(sp.is_b), std::uint8_t(sq.is_b)});
      }
    }
    first = end;
  }
  for (std::uint32_t k = 0; k < rows_.size(); ++k)
    terms_.push_back({k, k, 0, k_diagonal_term, k_diagonal_term});
  std::vector<std::uint32_t> node_begin{0}, node_of(rows_.size());
  for (std::uint32_t k = 0; k < rows_.size(); ++k) {
    const std::size_t i = rows_[k], first = rows_[node_begin.back()];
    const bool same_bodies =
        rows.body_a[i] == rows.body_a[first] && rows.body_b[i] == rows.body_b[first];
    if (k > node_begin.back() && (!same_bodies || k - node_begin.back() == BlockLdlt::k_max_node))
      node_begin.push_back(k);
    node_of[k] = std::uint32_t(node_begin.size() - 1);
  }
  node_begin.push_back(std::uint32_t(rows_.size()));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> coupled;
  coupled.reserve(terms_.size());
  for (const Term& t : terms_)
    coupled.emplace_back(node_of[t.p_row], node_of[t.q_row]);
  ldlt_.analyse(node_begin, coupled);
  for (Term& t : terms_)
    t.slot = ldlt_.slot(t.p_row, t.q_row);
  x_.resize(rows_.size());
}

void EqualityBlock::solve(std::span<const double> error, std::span<double> delta) {
  for (std::size_t k = 0; k < error.size(); ++k)
    x_[k] = -error[k];
  ldlt_.solve(x_);
  std::copy(x_.begin(), x_.end(), delta.begin());
}

}  // namespace impulse
