#include "solver/group_solve.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>

namespace impulse {
namespace {

// x = A^-1 x for three rows, A(i, j) = entry(i, j) below the diagonal and diagonal(i) on it (raised
// by k_group_regularisation), by Cholesky with the factor's diagonal kept as reciprocals (the
// solves multiply), then forward and back substitution: unrolled, each difference a multiply-add
// (written out, so the bits do not hang on which product the compiler would fuse; in a build with
// FMA instructions, the ones the loops it replaced compiled to). A box resting on three corners of
// a face makes most of a pile's three-row solves; loops over the factor took about twice as long in
// index arithmetic and spills. False if the factorisation fails.
template <class Entry, class Diagonal>
bool solve_three(const Entry& entry, const Diagonal& diagonal, SmallVector& x) {
  const Real d0 = diagonal(0);
  if (!(d0 > 0)) return false;
  const Real l00 = 1 / std::sqrt(d0);
  const Real l10 = entry(1, 0) * l00, l20 = entry(2, 0) * l00;
  const Real d1 = std::fma(-l10, l10, diagonal(1));
  if (!(d1 > 0)) return false;
  const Real l11 = 1 / std::sqrt(d1);
  const Real l21 = std::fma(-l20, l10, entry(2, 1)) * l11;
  const Real d2 = std::fma(-l21, l21, std::fma(-l20, l20, diagonal(2)));
  if (!(d2 > 0)) return false;
  const Real l22 = 1 / std::sqrt(d2);
  const Real y0 = x[0] * l00;
  const Real y1 = std::fma(-l10, y0, x[1]) * l11;
  const Real y2 = std::fma(-l21, y1, std::fma(-l20, y0, x[2])) * l22;
  x[2] = y2 * l22;
  x[1] = std::fma(-l21, x[2], y1) * l11;
  x[0] = std::fma(-l20, x[2], std::fma(-l10, x[1], y0)) * l00;
  return true;
}

}  // namespace

// Each lane makes a Cholesky factorisation of its group's regularised matrix, its diagonal kept as
// reciprocals (solve_three's scheme, looped over four rows), stopping where a pivot fails (its
// factor's later columns stay zero), with the identity past the group's count, then forward and
// back substitution on the identity's columns. One group at a time, the chain of square roots and
// divisions bounded a pyramid's group assembly; in lanes four groups share it, and each gets the
// bits it would get alone.
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

// The mask of the lanes whose bits are set in `bits` (the lower four), from a table: the set of
// a group's rows as lanes, once a call.
LaneMask lanes_in(unsigned bits) {
  using Bit = std::remove_cvref_t<decltype(LaneMask{}[0])>;
  static constexpr std::array<LaneMask, 16> k_masks = [] {
    std::array<LaneMask, 16> masks{};
    for (unsigned b = 0; b < 16; ++b)
      masks[b] = LaneMask{-Bit(b & 1u), -Bit(b >> 1 & 1u), -Bit(b >> 2 & 1u), -Bit(b >> 3 & 1u)};
    return masks;
  }();
  return k_masks[bits & 15u];
}

// Solves the rows of `set` (m of them, the set_bits in increasing order) for the impulses that
// zero their errors while the group's other rows carry none: A_SS x = rhs_S, where rhs =
// -(w - A_SN lambda_N) is formed for every row at once in lanes. Returns the set's rows' changes in
// x[0..m); false if the factorisation fails.
bool solve_subset(const GroupMatrix& a, unsigned set_bits, std::size_t m, const Lanes& rhs,
                  SmallVector& x) {
  std::array<std::size_t, k_g> set{};
  for (std::size_t i = 0, bits = set_bits; i < m; ++i, bits &= bits - 1)
    set[i] = std::size_t(std::countr_zero(bits));
  for (std::size_t i = 0; i < m; ++i)
    x[i] = rhs[set[i]];
  const auto diagonal = [&](std::size_t i) {
    return a[set[i]][set[i]] * (1 + k_group_regularisation);
  };
  // One or two rows (a box on a corner or an edge: most calls) in closed form, refused where the
  // factorisation would fail; three (at most: solve_active refuses a set of every row) by
  // solve_three.
  if (m == 1) {
    const Real d = diagonal(0);
    if (!(d > 0)) return false;
    x[0] /= d;
  } else if (m == 2) {
    const Real d0 = diagonal(0), d1 = diagonal(1), off = a[set[1]][set[0]];
    // Each difference fused with its second product, explicitly: the bits do not hang on which
    // product the compiler would fuse (these are the ones the scalar form compiled to).
    const Real determinant = std::fma(-off, off, d0 * d1);
    if (!(d0 > 0) || !(determinant > 0)) return false;
    const Real r0 = x[0], r1 = x[1];
    x[0] = std::fma(-off, r1, d1 * r0) / determinant;
    x[1] = std::fma(-off, r0, d0 * r1) / determinant;
  } else {
    const auto entry = [&](std::size_t i, std::size_t j) { return a[set[j]][set[i]]; };
    if (!solve_three(entry, diagonal, x)) return false;
  }
  return true;
}

}  // namespace

bool solve_active(const GroupMatrix& a, std::size_t count, const std::array<bool, k_g>& in_set,
                  Lanes& lambda, const Lanes& w) {
  const unsigned row_bits = (1u << count) - 1;
  unsigned set_bits = 0;
  for (std::size_t r = 0; r < count; ++r)
    set_bits |= unsigned(in_set[r]) << r;
  if (set_bits == 0 || set_bits == row_bits) return false;
  const LaneMask rows = lanes_in(row_bits), set = lanes_in(set_bits);
  // In lanes, in column order to the group's last (a zero impulse, the set's rows', adds nothing):
  // a chain of multiply-adds, left short for a two-row group.
  const auto plus_columns = [&](const Lanes& start, const Lanes& impulses) {
    Lanes sum = start + a[0] * splat(impulses[0]) + a[1] * splat(impulses[1]);
    if (count > 2) sum += a[2] * splat(impulses[2]);
    if (count > 3) sum += a[3] * splat(impulses[3]);
    return sum;
  };
  const Lanes rhs =
      plus_columns(-w, rows & ~set ? lambda : Lanes{});  // the others' impulses removed
  SmallVector x{};
  if (!solve_subset(a, set_bits, std::size_t(std::popcount(set_bits)), rhs, x)) return false;
  // Each change in its row's lane by the set's masks (a lane stored alone and read back whole
  // stalls); lanes outside the set take whatever and are dropped.
  const unsigned first = set_bits & (0u - set_bits), rest = set_bits ^ first;
  const Lanes change = lanes_in(first)                ? splat(x[0])
                       : lanes_in(rest & (0u - rest)) ? splat(x[1])
                                                      : splat(x[2]);
  const Lanes next = set ? change + lambda : Lanes{};  // lo is 0 for every groupable row
  if ((lane_bits(next >= Lanes{}) & set_bits) != set_bits) return false;  // (NaN too)
  // The errors with the new impulses, every row at once: the others must not be closing.
  const Lanes separating = plus_columns(w, rows ? next - lambda : Lanes{});
  if ((lane_bits(separating < Lanes{}) & row_bits & ~set_bits) != 0) return false;
  lambda = next;
  return true;
}

}  // namespace impulse
