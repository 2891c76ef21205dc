// Projected Gauss-Seidel on the sparse rows (seed 001 algorithm 4), which is the sequential-impulse
// method of seeds 003 and 004: each row in turn gets the impulse that zeroes its velocity error,
// the accumulated impulse (not the increment) is clamped to the bounds, and the velocities are
// updated at once so the next row sees them. A disc pair (cone friction) is visited as one: both
// tangent rows step from the same velocities with the pair's one step, the accumulated impulse
// vector is clamped to the disc (seed 003), and the change is applied.

#include "solver/pgs_solver.h"

#include "solver/residual.h"

#include <algorithm>

namespace impulse {
namespace {

Real visit_row(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor) {
  const Real w = row_error(rows, i, v);
  const Real old_lambda = rows.lambda[i];
  // The bounds once: a friction row's are mu times its normal row's impulse.
  const std::int32_t normal = rows.normal_row[i];
  const Real bound = normal < 0 ? Real(0) : rows.mu[i] * rows.lambda[std::size_t(normal)];
  const Real lo = normal < 0 ? rows.lo[i] : -bound, hi = normal < 0 ? rows.hi[i] : bound;
  const Real new_lambda = std::clamp(old_lambda - sor * w * rows.inv_eff_mass[i], lo, hi);
  const Real delta = new_lambda - old_lambda;
  rows.lambda[i] = new_lambda;
  apply_row_impulse(rows, i, delta, v);
  return std::abs(delta);
}

Real visit_disc_pair(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor) {
  const Real step = sor * rows.disc_step[i];
  const Real old1 = rows.lambda[i], old2 = rows.lambda[i + 1];
  const TangentPair next = project_to_disc(
      {old1 - step * row_error(rows, i, v), old2 - step * row_error(rows, i + 1, v)},
      rows.disc_radius(i));
  rows.lambda[i] = next.t1;
  rows.lambda[i + 1] = next.t2;
  apply_row_impulse(rows, i, next.t1 - old1, v);
  apply_row_impulse(rows, i + 1, next.t2 - old2, v);
  return std::max(std::abs(next.t1 - old1), std::abs(next.t2 - old2));
}

}  // namespace

Real pgs_visit_row(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor) {
  if (rows.disc_second(i)) return 0;  // visited with its first row
  return rows.disc_first(i) ? visit_disc_pair(rows, i, v, sor) : visit_row(rows, i, v, sor);
}

void PgsSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                      SolveStats& stats) {
  const Real b_norm = start_row_solve(rows, bodies.velocities, settings, stats);
  order_.reset(rows.size(), settings.shuffle);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = 0;
    for (const std::uint32_t i : order_.next())
      max_delta = std::max(max_delta, pgs_visit_row(rows, i, bodies.velocities, settings.sor));
    const auto measure = [&] { return measure_residual(rows, bodies.velocities, b_norm); };
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
}

}  // namespace impulse
