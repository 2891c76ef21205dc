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
  std::sort(sides.begin(), sides.end(),
            [](const Side& x, const Side& y) { return x.body < y.body; });
  triplets_.clear();
  for (std::size_t first = 0; first < sides.size();) {
    std::size_t end = first;
    while (end < sides.size() && sides[end].body == sides[first].body)
      ++end;
    for (std::size_t p = first; p < end; ++p) {
      for (std::size_t q = first; q < end; ++q) {
        const Side &sp = sides[p], &sq = sides[q];
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
  a_.resize(n, n);
  a_.setFromTriplets(triplets_.begin(), triplets_.end());
  if (sides_ != analysed_sides_) {
    ldlt_.analyzePattern(a_);
    analysed_sides_ = sides_;
  }
  ldlt_.factorize(a_);
  rhs_.resize(n);
  x_.resize(n);
  return ldlt_.info() == Eigen::Success;
}

void EqualityBlock::solve(std::span<const double> error, std::span<double> delta) {
  for (std::size_t k = 0; k < error.size(); ++k)
    rhs_[Eigen::Index(k)] = -error[k];
  x_ = ldlt_.solve(rhs_);
  for (std::size_t k = 0; k < delta.size(); ++k)
    delta[k] = x_[Eigen::Index(k)];
}

}  // namespace impulse
