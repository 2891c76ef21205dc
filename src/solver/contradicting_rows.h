#pragma once
// Rows that push against each other. Where one-sided rows can push a body from opposite sides
// (a ball caught between two parts of one compound, a box wider than the gap between two walls),
// J M^-1 J^T is singular or nearly so along impulses that cancel on the body, and the position
// biases asking both rows to separate contradict each other there: the exact impulses grow without
// bound along that direction, or to the bias over A's smallest eigenvalue (1.2e6 N s on a 2.5 kg
// ball in a random drop, which threw it at 1.7e7 J when one of the contacts let go). Such impulses
// move the bodies little for their size: the effective mass of the solution,
// |lambda_pushing|^2 / lambda^T A lambda, is out of all scale with the mass of the bodies it acts
// on. A direct solve whose result shows that is not used (docs/solvers.md, "Rows that push
// against each other").

#include "constraints/rows.h"

#include <Eigen/Dense>

#include <cstdint>
#include <span>

namespace impulse {

/// Above this ratio of a solution's effective mass to its bodies' mass the rows contradict each
/// other. Measured: at most 47 in every test and built-in scene with legitimately pushing rows (a
/// light box between the ground and a 1000 times heavier one: 2), 265 for a limit held against its
/// joint's own soft row, and 3e3 to 5e5 for jammed contacts.
constexpr double k_contradiction_ratio = 1000;

/// Whether impulses on rows whose moving bodies weigh `mass` kg push against each other: the sum
/// of the one-sided rows' squared impulses (RowStore::one_sided) is more than
/// k_contradiction_ratio times `mass` times the energy the impulses give, lambda^T A lambda (which
/// rounding may make zero or negative along a null direction). Bodies without mass (that only
/// turn) are not judged.
inline bool impulses_contradict(double pushing_squared, double energy, double mass) {
  return mass > 0 && pushing_squared > 0 && pushing_squared > k_contradiction_ratio * mass * energy;
}

/// impulses_contradict for the impulses lambda on `rows` (store indices, in lambda's order), whose
/// matrix is a (J M^-1 J^T + softness).
bool rows_contradict(const RowStore& store, std::span<const std::uint32_t> rows,
                     const Eigen::VectorXd& lambda, const Eigen::MatrixXd& a, double mass);

}  // namespace impulse
