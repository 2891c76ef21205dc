#include "solver/jacobi_solver.h"

#include "solver/residual.h"

#include <algorithm>

namespace impulse {

namespace {

// A unit's copy of its two bodies' velocities, each moved by the unit's impulses with its share of
// the body's inverse mass multiplied by the body's unit count.
struct SplitPair {
  BodyVelocity a, b;
  Real scale_a, scale_b;  // n of each body

  void apply(const RowStore& rows, std::size_t i, Real delta) {
    a.linear += (scale_a * delta) * rows.b_lin_a(i);
    a.angular += (scale_a * delta) * rows.b_ang_a(i);
    b.linear += (scale_b * delta) * rows.b_lin_b(i);
    b.angular += (scale_b * delta) * rows.b_ang_b(i);
  }
};

}  // namespace

void JacobiSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                         SolveStats& stats) {
  const std::size_t n = rows.size();
  // Units: each block cut where its rows' bodies change (a custom constraint's rows may join
  // several pairs); a cone pair's two rows share their bodies, so stay together.
  unit_begin_.clear();
  for (std::size_t k = 0; k + 1 < rows.block_begin.size(); ++k) {
    for (std::uint32_t i = rows.block_begin[k]; i < rows.block_begin[k + 1]; ++i) {
      if (i == rows.block_begin[k] || rows.body_a[i] != rows.body_a[i - 1] ||
          rows.body_b[i] != rows.body_b[i - 1])
        unit_begin_.push_back(i);
    }
  }
  unit_begin_.push_back(std::uint32_t(n));
  const std::size_t units = unit_begin_.size() - 1;
  const auto split = [&](std::uint32_t body) { return Real(std::max(units_per_body_[body], 1u)); };
  // Units per movable body only: an immovable ground under a hundred contacts must not make each
  // of them take a hundredth.
  units_per_body_.assign(bodies.velocities.size(), 0);
  for (std::size_t u = 0; u < units; ++u) {
    const std::uint32_t i = unit_begin_[u];
    for (const std::uint32_t body : {rows.body_a[i], rows.body_b[i]}) {
      if (bodies.masses[body].movable()) ++units_per_body_[body];
    }
  }
  next_.resize(n);
  // Each row's step against the split bodies, once per solve: sor / J (n M^-1) J^T (0 for a row
  // its bodies cannot move along, which prepare leaves inert). A disc pair's first row holds the
  // pair's step, which A's largest eigenvalue bounds; the split masses scale that eigenvalue by at
  // most the larger count.
  step_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Real scale_a = split(rows.body_a[i]), scale_b = split(rows.body_b[i]);
    if (rows.disc_first(i)) {
      step_[i] = settings.sor * rows.disc_step[i] / std::max(scale_a, scale_b);
      continue;
    }
    const Real d =
        scale_a * (dot(rows.j_lin_a(i), rows.b_lin_a(i)) + dot(rows.j_ang_a(i), rows.b_ang_a(i))) +
        scale_b * (dot(rows.j_lin_b(i), rows.b_lin_b(i)) + dot(rows.j_ang_b(i), rows.b_ang_b(i))) +
        rows.softness[i];
    step_[i] = d > 0 ? settings.sor / d : 0;
  }

  const Real b_norm = start_row_solve(rows, bodies.velocities, settings, stats);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    for (std::size_t u = 0; u < units; ++u) {
      const std::uint32_t begin = unit_begin_[u], end = unit_begin_[u + 1];
      if (end - begin == 1) {
        // A row alone (the bench's rows, a joint's single axis): no copies to move, its bounds
        // from the last iteration.
        next_[begin] = std::clamp(
            rows.lambda[begin] - step_[begin] * row_error(rows, begin, bodies.velocities),
            rows.lower(begin), rows.upper(begin));
        continue;
      }
      const std::uint32_t body_a = rows.body_a[begin], body_b = rows.body_b[begin];
      SplitPair pair{bodies.velocities[body_a], bodies.velocities[body_b], split(body_a),
                     split(body_b)};
      for (std::uint32_t i = begin; i < end; ++i)
        next_[i] = rows.lambda[i];
      // A friction row's bound follows its normal rows: this unit's as it solves them, another
      // unit's as the last iteration left them.
      const auto bound = [&](std::size_t i) {
        const std::size_t first = std::size_t(rows.normal_row[i]);
        Real load = 0;
        for (std::size_t k = first; k < first + rows.normal_count[i]; ++k)
          load += k >= begin && k < end ? next_[k] : rows.lambda[k];
        return std::max(rows.mu[i] * load, Real(0));
      };
      const auto error = [&](std::size_t i) {
        return row_velocity(rows, i, pair.a, pair.b) - rows.bias[i] + rows.softness[i] * next_[i];
      };
      for (std::uint32_t i = begin; i < end; ++i) {
        if (rows.disc_first(i)) {
          const Real w = error(i), w2 = error(i + 1);
          const TangentPair target =
              project_to_disc({next_[i] - step_[i] * w, next_[i + 1] - step_[i] * w2}, bound(i));
          pair.apply(rows, i, target.t1 - next_[i]);
          pair.apply(rows, i + 1, target.t2 - next_[i + 1]);
          next_[i] = target.t1;
          next_[i + 1] = target.t2;
          ++i;  // the pair's second row, stepped with its first
          continue;
        }
        const bool friction = rows.normal_row[i] >= 0;
        const Real lo = friction ? -bound(i) : rows.lo[i];
        const Real hi = friction ? bound(i) : rows.hi[i];
        const Real target = std::clamp(next_[i] - step_[i] * error(i), lo, hi);
        pair.apply(rows, i, target - next_[i]);
        next_[i] = target;
      }
    }
    Real max_delta = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Real delta = next_[i] - rows.lambda[i];
      rows.lambda[i] = next_[i];
      apply_row_impulse(rows, i, delta, bodies.velocities);
      max_delta = std::max(max_delta, std::abs(delta));
    }
    const auto measure = [&] { return measure_residual(rows, bodies.velocities, b_norm); };
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
}

}  // namespace impulse
