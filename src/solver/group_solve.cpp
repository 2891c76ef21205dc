#include "solver/group_solve.h"

#include <algorithm>
#include <cmath>

namespace impulse {
namespace {

using SmallMatrix = std::array<Real, k_g * k_g>;  // row-major, k_g x k_g

// The Cholesky factor l (lower, its diagonal stored as reciprocals: the solves multiply) of the
// m x m matrix a(i, j) with its diagonal raised by k_group_regularisation; false if it is not
// positive definite.
template <class Entry>
bool factor_small(std::size_t m, const Entry& a, SmallMatrix& l) {
  for (std::size_t j = 0; j < m; ++j) {
    Real d = a(j, j) * (1 + k_group_regularisation);
    for (std::size_t p = 0; p < j; ++p)
      d -= l[j * k_g + p] * l[j * k_g + p];
    if (!(d > 0)) return false;
    l[j * k_g + j] = 1 / std::sqrt(d);
    for (std::size_t i = j + 1; i < m; ++i) {
      Real s = a(i, j);
      for (std::size_t p = 0; p < j; ++p)
        s -= l[i * k_g + p] * l[j * k_g + p];
      l[i * k_g + j] = s * l[j * k_g + j];
    }
  }
  return true;
}

// x = (l l^T)^-1 x for the first m entries, by forward and back substitution.
void solve_small(const SmallMatrix& l, std::size_t m, SmallVector& x) {
  for (std::size_t i = 0; i < m; ++i) {
    Real s = x[i];
    for (std::size_t p = 0; p < i; ++p)
      s -= l[i * k_g + p] * x[p];
    x[i] = s * l[i * k_g + i];
  }
  for (std::size_t i = m; i-- > 0;) {
    Real s = x[i];
    for (std::size_t p = i + 1; p < m; ++p)
      s -= l[p * k_g + i] * x[p];
    x[i] = s * l[i * k_g + i];
  }
}

}  // namespace

// Each lane makes the operations of factor_small on its group's matrix (stopping where a pivot
// fails: its factor's later columns stay zero), with the identity past the group's count, then
// forward and back substitution on the identity's columns. One group at a time, the chain of
// square roots and divisions bounded a pyramid's group assembly; in lanes four groups share it,
// and each gets the bits it would get alone.
void invert_in_lanes(const GroupMatrices& a, const std::array<LaneMask, k_g>& past,
                     GroupMatrices& inverse, LaneMask& factored) {
  std::array<std::array<Lanes, k_g>, k_g> l{};  // l[i][j], j <= i; its diagonal as reciprocals
  factored = Lanes{} == Lanes{};                // no pivot has failed
  for (std::size_t j = 0; j < k_g; ++j) {
    Lanes d = a[j][j] * splat(1 + k_group_regularisation);
    for (std::size_t p = 0; p < j; ++p)
      d -= l[j][p] * l[j][p];
    factored &= (d > 0) | past[j];
    l[j][j] = past[j] ? splat(1) : factored ? splat(1) / lane_sqrt(d) : Lanes{};
    for (std::size_t i = j + 1; i < k_g; ++i) {
      Lanes s = a[j][i];
      for (std::size_t p = 0; p < j; ++p)
        s -= l[i][p] * l[j][p];
      l[i][j] = factored & ~past[i] ? s * l[j][j] : Lanes{};
    }
  }
  GroupMatrices& x = inverse;  // x[c][i]: row i of column c
  for (std::size_t c = 0; c < k_g; ++c) {
    for (std::size_t i = 0; i < k_g; ++i) {
      Lanes s = splat(i == c ? 1 : 0);
      for (std::size_t p = 0; p < i; ++p)
        s -= l[i][p] * x[c][p];
      x[c][i] = s * l[i][i];
    }
    for (std::size_t i = k_g; i-- > 0;) {
      Lanes s = x[c][i];
      for (std::size_t p = i + 1; p < k_g; ++p)
        s -= l[p][i] * x[c][p];
      x[c][i] = s * l[i][i];
    }
  }
}

void GroupInverter::flush() {
  if (count_ == 0) return;
  GroupMatrices a;
  std::array<LaneMask, k_g> past{};
  for (std::size_t j = 0; j < k_g; ++j) {
    std::array<Lanes, k_g> column{};
    for (std::size_t g = 0; g < k_g; ++g) {
      if (g < count_) {
        column[g] = pending_[g]->a[j];
        past[j][g] = j >= pending_[g]->count ? -1 : 0;
      } else {
        column[g][j] = 1;  // an absent group's lane holds the identity and is not stored
      }
    }
    a[j] = transposed(column[0], column[1], column[2], column[3]);
  }
  GroupMatrices x;
  LaneMask factored;
  invert_in_lanes(a, past, x, factored);
  for (std::size_t i = 0; i < k_g; ++i) {
    const std::array<Lanes, k_g> by_group = transposed(x[0][i], x[1][i], x[2][i], x[3][i]);
    for (std::size_t g = 0; g < count_; ++g)
      pending_[g]->inverse[i] = by_group[g];
  }
  for (std::size_t g = 0; g < count_; ++g)
    pending_[g]->factored = factored[g] != 0;
  count_ = 0;
}

namespace {

// Solves the rows of `set` (m of them) for the impulses that zero their errors while the group's
// other rows carry none: A_SS x = -(w_S - A_SN lambda_N). Returns the new impulses of the set in
// x; false if the factorisation fails. The right-hand side is formed for every row at once in
// lanes (row r's lane summed in column order, as row by row), then read at the set's rows.
bool solve_subset(const GroupMatrix& a, std::size_t count, const std::array<std::size_t, k_g>& set,
                  std::size_t m, const std::array<bool, k_g>& in_set, const Lanes& lambda,
                  const Lanes& w, SmallVector& x) {
  Lanes rhs = -w;
  for (std::size_t c = 0; c < count; ++c) {
    if (!in_set[c]) rhs += a[c] * splat(lambda[c]);  // the others' impulses removed
  }
  for (std::size_t i = 0; i < m; ++i)
    x[i] = rhs[set[i]];
  // One or two rows (a box on a corner or an edge: most calls) in closed form, with the diagonal
  // raised as factor_small raises it and refused where its factorisation would fail.
  const auto diagonal = [&](std::size_t i) {
    return a[set[i]][set[i]] * (1 + k_group_regularisation);
  };
  if (m == 1) {
    const Real d = diagonal(0);
    if (!(d > 0)) return false;
    x[0] /= d;
  } else if (m == 2) {
    const Real d0 = diagonal(0), d1 = diagonal(1), off = a[set[1]][set[0]];
    const Real determinant = d0 * d1 - off * off;
    if (!(d0 > 0) || !(determinant > 0)) return false;
    const Real x0 = x[0], x1 = x[1];
    x[0] = (d1 * x0 - off * x1) / determinant;
    x[1] = (d0 * x1 - off * x0) / determinant;
  } else {
    SmallMatrix l{};
    const auto entry = [&](std::size_t i, std::size_t j) { return a[set[j]][set[i]]; };
    if (!factor_small(m, entry, l)) return false;
    solve_small(l, m, x);
  }
  for (std::size_t i = 0; i < m; ++i)
    x[i] += lambda[set[i]];
  return true;
}

}  // namespace

bool solve_active(const GroupMatrix& a, std::size_t count, const std::array<bool, k_g>& in_set,
                  Lanes& lambda, const Lanes& w) {
  std::array<std::size_t, k_g> set{};
  std::size_t m = 0;
  for (std::size_t r = 0; r < count; ++r) {
    if (in_set[r]) set[m++] = r;
  }
  if (m == 0 || m == count) return false;
  std::array<Real, k_g> x{};
  if (!solve_subset(a, count, set, m, in_set, lambda, w, x)) return false;
  Lanes next{};  // lo is 0 for every groupable row
  for (std::size_t i = 0; i < m; ++i) {
    if (!(x[i] >= 0)) return false;  // (NaN too)
    next[set[i]] = x[i];
  }
  // The errors with the new impulses, every row at once: the others must not be closing.
  Lanes separating = w;
  for (std::size_t c = 0; c < count; ++c)
    separating += a[c] * splat(next[c] - lambda[c]);
  for (std::size_t r = 0; r < count; ++r) {
    if (!in_set[r] && separating[r] < 0) return false;
  }
  lambda = next;
  return true;
}

}  // namespace impulse
