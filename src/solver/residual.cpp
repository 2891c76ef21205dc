#include "solver/residual.h"

#include <algorithm>
#include <cmath>

namespace impulse {
void SolveStats::reset() {
  std::vector<Real> keep = std::move(residuals);
  keep.clear();
  *this = SolveStats{};
  residuals = std::move(keep);
}

void begin_stats(SolveStats& stats, const RowStore& rows) {
  stats.reset();
  stats.rows = rows.size();
  stats.degenerate_rows = rows.degenerate_rows();
}

Real rhs_norm(const RowStore& rows, std::span<const BodyVelocity> v_free, TaskPool* pool) {
  return rhs_norm_of(
      rows.size(),
      [&](std::size_t i) { return double(rows.bias[i]) - double(row_velocity(rows, i, v_free)); },
      pool);
}

TangentPair disc_residual(const RowStore& rows, std::size_t i, TangentPair w) {
  const Real radius = rows.disc_radius(i);
  const TangentPair lambda{rows.lambda[i], rows.lambda[i + 1]};
  if (at_bound(radius, 0)) return {};  // no load: a zero disc takes any slip
  const Real length = std::sqrt(lambda.t1 * lambda.t1 + lambda.t2 * lambda.t2);
  if (length < radius && !at_bound(length, radius)) return w;  // sticking
  // On the rim (or outside): w = -c u with c >= 0, u the impulse's direction.
  const Real u1 = lambda.t1 / length, u2 = lambda.t2 / length;
  return {std::max(w.t1 * u1 + w.t2 * u2, Real(0)), w.t2 * u1 - w.t1 * u2};
}

ResidualMeasure measure_residual(const RowStore& rows, std::span<const BodyVelocity> v, Real b_norm,
                                 TaskPool* pool) {
  return measure_rows(
      rows, [&](std::size_t i) { return row_error(rows, i, v); }, b_norm, pool);
}

void apply_warm_start(RowStore& rows, std::span<BodyVelocity> v, bool warm_start) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!warm_start || rows.inv_eff_mass[i] == 0) {
      rows.lambda[i] = 0;
    } else {
      apply_row_impulse(rows, i, rows.lambda[i], v);
    }
  }
}

Real start_row_solve(RowStore& rows, std::span<BodyVelocity> v, const SolverSettings& settings,
                     SolveStats& stats, TaskPool* pool) {
  begin_stats(stats, rows);
  if (!measures_residuals(settings)) {
    apply_warm_start(rows, v, settings.warm_start);
    return 1;
  }
  const Real b_norm = rhs_norm(rows, v, pool);
  apply_warm_start(rows, v, settings.warm_start);
  if (measures_every_iteration(settings))
    stats.initial_residual = measure_residual(rows, v, b_norm, pool).relative_residual;
  return b_norm;
}

void record_final_figures(const ResidualMeasure& m, SolveStats& stats) {
  stats.final_residual = m.relative_residual;
  stats.complementarity_error = m.complementarity_error;
  stats.max_abs_lambda = m.max_abs_lambda;
}

bool record_iteration(const ResidualMeasure& m, Real max_delta, const SolverSettings& settings,
                      SolveStats& stats) {
  ++stats.iterations;
  stats.residuals.push_back(m.relative_residual);
  record_final_figures(m, stats);
  if (settings.tolerance <= 0) return false;
  return m.relative_residual < settings.tolerance ||
         max_delta <= settings.tolerance * m.max_abs_lambda;
}

}  // namespace impulse
