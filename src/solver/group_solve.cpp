#include "solver/group_solve.h"

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

// The group's inverse (RowGroup::inverse) from its Cholesky factor, padded with the identity:
// forward and back substitution on the identity's four columns at once, lane c being column c.
// Row r of the result is kept as column r (the matrix is symmetric).
void invert_group(RowGroup& group) {
  SmallMatrix l{};
  group.factored = factor_small(
      group.count, [&](std::size_t i, std::size_t j) { return group.a[j][i]; }, l);
  for (std::size_t r = group.count; r < k_g; ++r)
    l[r * k_g + r] = 1;
  std::array<Lanes, k_g>& x = group.inverse;
  for (std::size_t i = 0; i < k_g; ++i) {
    Lanes s{};
    s[i] = 1;
    for (std::size_t p = 0; p < i; ++p)
      s -= splat(l[i * k_g + p]) * x[p];
    x[i] = s * splat(l[i * k_g + i]);
  }
  for (std::size_t i = k_g; i-- > 0;) {
    Lanes s = x[i];
    for (std::size_t p = i + 1; p < k_g; ++p)
      s -= splat(l[p * k_g + i]) * x[p];
    x[i] = s * splat(l[i * k_g + i]);
  }
}

namespace {

// Solves the rows of `set` (m of them) for the impulses that zero their errors while the group's
// other rows carry none: A_SS x = -(w_S - A_SN lambda_N). Returns the new impulses of the set in
// x; false if the factorisation fails. The right-hand side is formed for every row at once in
// lanes (row r's lane summed in column order, as row by row), then read at the set's rows.
bool solve_subset(const GroupMatrix& a, std::size_t count, const std::array<std::size_t, k_g>& set,
                  std::size_t m, const std::array<bool, k_g>& in_set, const SmallVector& lambda,
                  const SmallVector& w, SmallVector& x) {
  Lanes rhs = -from_array(w);
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
                  SmallVector& lambda, const SmallVector& w) {
  std::array<std::size_t, k_g> set{};
  std::size_t m = 0;
  for (std::size_t r = 0; r < count; ++r) {
    if (in_set[r]) set[m++] = r;
  }
  if (m == 0 || m == count) return false;
  std::array<Real, k_g> x{};
  if (!solve_subset(a, count, set, m, in_set, lambda, w, x)) return false;
  std::array<Real, k_g> next{};  // lo is 0 for every groupable row
  for (std::size_t i = 0; i < m; ++i) {
    if (!(x[i] >= 0)) return false;  // (NaN too)
    next[set[i]] = x[i];
  }
  // The errors with the new impulses, every row at once: the others must not be closing.
  Lanes separating = from_array(w);
  for (std::size_t c = 0; c < count; ++c)
    separating += a[c] * splat(next[c] - lambda[c]);
  for (std::size_t r = 0; r < count; ++r) {
    if (!in_set[r] && separating[r] < 0) return false;
  }
  lambda = next;
  return true;
}

}  // namespace impulse
