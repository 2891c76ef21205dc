#include "solver/jacobi_solver.h"

#include "solver/residual.h"

#include <algorithm>

namespace impulse {

void JacobiSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                         SolveStats& stats) {
  const std::size_t n = rows.size();
  // Count rows per movable body only: an immovable ground under a hundred contacts must not
  // make each of them take a hundredth.
  rows_per_body_.assign(bodies.velocities.size(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::uint32_t body : {rows.body_a[i], rows.body_b[i]}) {
      if (bodies.masses[body].movable()) ++rows_per_body_[body];
    }
  }
  relaxation_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t share =
        std::max({rows_per_body_[rows.body_a[i]], rows_per_body_[rows.body_b[i]], 1u});
    relaxation_[i] = settings.sor / Real(share);
  }
  delta_.resize(n);

  const Real b_norm = start_row_solve(rows, bodies.velocities, settings, stats);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    // Bounds of friction rows (boxes and discs) read the normal impulses of the previous
    // iteration, like every other quantity of a Jacobi sweep.
    for (std::size_t i = 0; i < n; ++i) {
      if (rows.disc_second(i)) continue;  // stepped with its first row
      const Real w = row_error(rows, i, bodies.velocities);
      if (rows.disc_first(i)) {
        // Both tangent rows share their bodies, so their relaxation, and take the pair's step.
        const Real w2 = row_error(rows, i + 1, bodies.velocities);
        const Real step = relaxation_[i] * rows.disc_step[i];
        const TangentPair target = project_to_disc(
            {rows.lambda[i] - step * w, rows.lambda[i + 1] - step * w2}, rows.disc_radius(i));
        delta_[i] = target.t1 - rows.lambda[i];
        delta_[i + 1] = target.t2 - rows.lambda[i + 1];
        continue;
      }
      const Real target = rows.lambda[i] - relaxation_[i] * w * rows.inv_eff_mass[i];
      delta_[i] = std::clamp(target, rows.lower(i), rows.upper(i)) - rows.lambda[i];
    }
    Real max_delta = 0;
    for (std::size_t i = 0; i < n; ++i) {
      rows.lambda[i] += delta_[i];
      apply_row_impulse(rows, i, delta_[i], bodies.velocities);
      max_delta = std::max(max_delta, std::abs(delta_[i]));
    }
    const auto measure = [&] { return measure_residual(rows, bodies.velocities, b_norm); };
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
}

}  // namespace impulse
