#pragma once
// A group's small LCP (RowGroup: a manifold's normal rows) solved directly: its inverse for the
// all-rows case, and a guess of which rows push. PGS's visit of a group one at a time
// (pgs_solver.cpp) and in lanes (UnitBatches::visit) share these, so both give the same bits.

#include "solver/pgs_rows.h"

#include <array>
#include <cstddef>

namespace impulse {

constexpr std::size_t k_g = RowGroup::k_max_rows;
using SmallVector = std::array<Real, k_g>;
/// A group's J M^-1 J^T + softness by columns, as RowGroup::a keeps it (zero past its rows).
using GroupMatrix = std::array<Lanes, k_g>;

/// The direct solves raise the diagonal by this relative amount: four coplanar contact points make
/// a group's matrix singular.
constexpr Real k_group_regularisation = Real(1e-5);

/// RowGroup::regularisation of a group of matrix a: its diagonal times k_group_regularisation.
inline Lanes group_regularisation(const GroupMatrix& a) {
  return Lanes{a[0][0], a[1][1], a[2][2], a[3][3]} * splat(k_group_regularisation);
}

/// Each group added gets its inverse (RowGroup::inverse, RowGroup::factored) from its matrix
/// (RowGroup::a), four at a time in lanes, the last few when flushed: a group's bits are the same
/// whichever groups it is inverted with.
class GroupInverter {
 public:
  void add(RowGroup& group) {
    pending_[count_++] = &group;
    if (count_ == pending_.size()) flush();
  }
  void flush();

 private:
  std::array<RowGroup*, 4> pending_{};
  std::size_t count_ = 0;
};

/// Four groups' matrices side by side: m[c][r] is the entry in column c and row r, lane k group
/// k's.
using GroupMatrices = std::array<std::array<Lanes, k_g>, k_g>;

/// GroupInverter's arithmetic on four groups in lanes: the inverses of the matrices a with their
/// diagonals raised by k_group_regularisation, where past[r] marks the lanes whose group ends
/// before row r (its rows and columns from r on are the identity's); `factored` marks the lanes
/// whose Cholesky factorisation succeeded. RowGroup::inverse[i][c] is inverse[c][i].
void invert_in_lanes(const GroupMatrices& a, const std::array<LaneMask, k_g>& past,
                     GroupMatrices& inverse, LaneMask& factored);

/// A guess besides the all-rows solve for a group of `count` rows with matrix a, impulses lambda
/// and velocity errors w (lane r row r's; lanes from count on are read but do not matter): the
/// rows in `in_set` push, the others carry nothing. Kept (lambda set to it, zero from count on) if
/// it is the LCP's solution: every pushing row pushes, every other row separates. In lanes rather
/// than arrays: a batch's lanes reach it through transposes, where stores of single entries read
/// back as lanes stalled each call.
bool solve_active(const GroupMatrix& a, std::size_t count, const std::array<bool, k_g>& in_set,
                  Lanes& lambda, const Lanes& w);

}  // namespace impulse
