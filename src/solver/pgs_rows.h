#pragma once
// The forms in which pgs keeps its rows between sweeps (PgsSolver, UnitBatches): a manifold's
// normal rows as a group, a row's scalars as a sweep reads them, a friction run's couplings.

#include "constraints/rows.h"
#include "core/lanes.h"

#include <array>
#include <cstdint>

namespace impulse {

/// Consecutive one-sided rows of one block between the same two bodies (a manifold's normal
/// rows; not the two ends of one range, which never push at once), which PGS visits together: their
/// small LCP is solved to convergence on the velocities of the visit. Row by row, four coplanar
/// contact points share a load only as far as the sweeps get, and what they leave unbalanced turns
/// the box: a stack rocks on it (docs/solvers.md).
struct RowGroup {
  static constexpr std::uint32_t k_max_rows = 4;
  /// Rows [first, first + count); the rest is PgsSolver's to fill (assemble_group, or
  /// UnitBatches::unpack for a batch's group, and the biases at each solve), not zeroed here: a
  /// pile's thousands of groups are found again in most steps.
  RowGroup(std::uint32_t first_row, std::uint32_t rows) : first(first_row), count(rows) {}
  std::uint32_t first, count;
  // Whether inverse (below) holds: its Cholesky factorisation succeeded. In the padding before
  // the lanes: after them it made the group 400 bytes, where 384 fill six cache lines (a pile's
  // thousands of groups are read at every sweep).
  bool factored;
  // J M^-1 J^T + softness by columns: a[c][r] is row r's entry in column c (zero past count);
  // a column is what an impulse change on row c does to every row's velocity error.
  std::array<Lanes, k_max_rows> a;
  // The rows' Jacobians by components, lane r being row r (zero past count): linear a x, y, z,
  // angular a x, y, z, then the same for b. All rows of a group join the same bodies, so a visit
  // finds the four velocity errors at once.
  std::array<Lanes, 12> jacobian;
  // The inverse of a with its diagonal raised by a relative 1e-5 (four coplanar points make a
  // singular) by columns, for the all-rows-pushing case: a visit's solve is four independent
  // products in lanes rather than two dependent triangular substitutions. Padded with the
  // identity past count; a visit refines its solve once (pgs_solver.cpp). Valid only if factored.
  std::array<Lanes, k_max_rows> inverse;
  // a's diagonal times the relative 1e-5 the inverse's diagonal was raised by (zero past count).
  Lanes regularisation;
  // The rows' biases (this solve's) and softnesses, lane r being row r (zero past count): loaded
  // at once by a visit rather than gathered from the packed rows through memory.
  Lanes bias, softness;
};
static_assert(sizeof(RowGroup) % 64 == 0, "a group fills whole cache lines");

/// A group's rows' Jacobians by components (RowGroup::jacobian) from the store's.
inline void assemble_jacobian(const RowStore& rows, RowGroup& group) {
  // By components in registers: lane stores followed by vector loads would stall the loads.
  for (std::size_t side = 0; side < 4; ++side) {
    const auto of_row = [&](std::size_t r) {
      return r < group.count ? rows.coefficients[group.first + r].jacobian[side] : Lanes{};
    };
    by_components(of_row(0), of_row(1), of_row(2), of_row(3), &group.jacobian[3 * side]);
  }
}

/// The biases in lanes of a group's `count` rows from row `first`, lane r being row first + r's of
/// `bias` (per row), zero past count.
inline Lanes biases_of(std::size_t first, std::size_t count, const Real* bias) {
  Lanes lanes;
  if (count == RowGroup::k_max_rows) {  // one load
    __builtin_memcpy(&lanes, bias + first, sizeof lanes);
    return lanes;
  }
  // Lane by lane, not in a loop up to count: GCC made that a copy through the stack, whose lanes
  // were then read back whole before the copy's narrower stores had left (a failed forward).
  for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r)
    lanes[r] = r < count ? bias[first + r] : Real(0);
  return lanes;
}

/// PgsSolver's per-row group index for a row in no group (k_row_in_block: in the equality block).
constexpr std::uint32_t k_no_row_group = ~std::uint32_t(0);

/// The scalars of a row as a pgs sweep reads them, in one place (one stream per visit rather than
/// one per field) beside the store's coefficients (RowCoefficients, the other stream).
struct PackedRow {
  std::uint32_t body_a, body_b;
  Real bias, softness, inv_eff_mass;
  Real lo, hi;  // a friction row's per unit of its normal rows' impulse: -mu and mu
  std::int32_t normal_row;
};

/// Row i's PackedRow but its bias (packed at each solve).
inline void pack_row(const RowStore& rows, std::size_t i, PackedRow& row) {
  row.body_a = rows.body_a[i];
  row.body_b = rows.body_b[i];
  row.softness = rows.softness[i];
  row.inv_eff_mass = rows.inv_eff_mass[i];
  row.normal_row = rows.normal_row[i];
  const bool friction = row.normal_row >= 0;
  row.lo = friction ? -rows.mu[i] : rows.lo[i];
  row.hi = friction ? rows.mu[i] : rows.hi[i];
}

/// How a row of a friction run sees the changes of the run's earlier rows: J_i M^-1 J_j^T over the
/// bodies that move, for the last row (j = i - 1) and the one before it (j = i - 2; 0 when the
/// run starts at i - 1).
struct RunCoupling {
  Real last = 0, before_last = 0;
};

}  // namespace impulse
