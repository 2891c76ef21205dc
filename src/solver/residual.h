#pragma once
// How far the rows are from solving the MLCP of seed 001 section 7.3:
//   w = J v - bias (= A lambda - b),  lambda = lo => w >= 0,  lambda = hi => w <= 0,  else w = 0.
// The residual of a row is the part of w that violates these conditions; the relative residual is
// |r| / |b| (seed 000 eq. 4) with b = bias - J v_free, the right-hand side at zero impulse.

#include "constraints/rows.h"
#include "solver/solver.h"

namespace impulse {

/// Starts a solve's stats: cleared, with the row counts of the store.
void begin_stats(SolveStats& stats, const RowStore& rows);

/// J_i v for row i.
inline Real row_velocity(const RowStore& rows, std::size_t i, std::span<const BodyVelocity> v) {
  const BodyVelocity& a = v[rows.body_a[i]];
  const BodyVelocity& b = v[rows.body_b[i]];
  return dot(rows.j_lin_a[i], a.linear) + dot(rows.j_ang_a[i], a.angular) +
         dot(rows.j_lin_b[i], b.linear) + dot(rows.j_ang_b[i], b.angular);
}

/// v += B_i * delta: the velocity change of an impulse delta on row i.
inline void apply_row_impulse(const RowStore& rows, std::size_t i, Real delta,
                              std::span<BodyVelocity> v) {
  BodyVelocity& a = v[rows.body_a[i]];
  BodyVelocity& b = v[rows.body_b[i]];
  a.linear += delta * rows.b_lin_a[i];
  a.angular += delta * rows.b_ang_a[i];
  b.linear += delta * rows.b_lin_b[i];
  b.angular += delta * rows.b_ang_b[i];
}

/// The violation of row i's conditions given its constraint velocity error w_i = J v - bias.
Real row_residual(const RowStore& rows, std::size_t i, Real w);

struct ResidualMeasure {
  Real relative_residual = 0;
  Real complementarity_error = 0;
  Real max_abs_lambda = 0;
};

/// |b| with b = bias - J v at the given (impulse-free) velocities, floored so it never divides by
/// 0.
Real rhs_norm(const RowStore& rows, std::span<const BodyVelocity> v_free);

/// Measures the rows at the current velocities and impulses.
ResidualMeasure measure_residual(const RowStore& rows, std::span<const BodyVelocity> v,
                                 Real b_norm);

/// Applies every row's accumulated lambda to the velocities (the warm start), or zeroes the
/// impulses when warm starting is off.
void apply_warm_start(RowStore& rows, std::span<BodyVelocity> v, bool warm_start);

/// The common start of the iterative solvers on the rows: stats begun, |b| measured at the free
/// velocities, the warm start applied (or impulses zeroed) and its residual recorded. Returns |b|.
Real start_row_solve(RowStore& rows, std::span<BodyVelocity> v, const SolverSettings& settings,
                     SolveStats& stats);

/// Fills the per-iteration stats and says whether to stop: under the tolerance in relative
/// residual, or with no impulse changing by more than tolerance times the largest impulse.
bool record_iteration(const ResidualMeasure& m, Real max_delta, const SolverSettings& settings,
                      SolveStats& stats);

}  // namespace impulse
