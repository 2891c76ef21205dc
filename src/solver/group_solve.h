#pragma once
// A group's small LCP (RowGroup: a manifold's normal rows) solved directly: its inverse for the
// all-rows case, and a guess of which rows push. PGS's visit of a group one at a time
// (pgs_solver.cpp) and in lanes (UnitBatches::visit) share these, so both give the same bits.

#include "solver/pgs_rows.h"

#include <array>
#include <cstddef>
#include <span>

namespace impulse {

constexpr std::size_t k_g = RowGroup::k_max_rows;
using SmallVector = std::array<Real, k_g>;
/// A group's J M^-1 J^T + softness by columns, as RowGroup::a keeps it (zero past its rows).
using GroupMatrix = std::array<Lanes, k_g>;

/// The direct solves raise the diagonal by this relative amount: four coplanar contact points make
/// a group's matrix singular.
constexpr Real k_group_regularisation = Real(1e-5);

/// Each group's inverse (RowGroup::inverse, RowGroup::factored) from its matrix (RowGroup::a),
/// four at a time in lanes: a group's bits are the same whichever groups it is inverted with.
void invert_groups(std::span<RowGroup> groups);

/// A guess besides the all-rows solve for a group of `count` rows with matrix a, impulses lambda
/// and velocity errors w: the rows in `in_set` push, the others carry nothing. Kept (lambda set to
/// it) if it is the LCP's solution: every pushing row pushes, every other row separates.
bool solve_active(const GroupMatrix& a, std::size_t count, const std::array<bool, k_g>& in_set,
                  SmallVector& lambda, const SmallVector& w);

}  // namespace impulse
