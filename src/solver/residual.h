#pragma once
// How far the rows are from solving the MLCP of seed 001 section 7.3:
//   w = J v - bias + softness lambda (= (A + diag(softness)) lambda - b),  lambda = lo => w >= 0,
//   lambda = hi => w <= 0,  else w = 0.
// The residual of a row is the part of w that violates these conditions; the relative residual is
// |r| / |b| (seed 000 eq. 4) with b = bias - J v_free, the right-hand side at zero impulse.
// A disc pair (rows.h, the cone model) is measured by the disc conditions instead of the box's:
// inside the disc both w vanish; on its rim w must oppose the impulse (maximal dissipation).

#include "constraints/rows.h"
#include "solver/solver.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace impulse {

/// Starts a solve's stats: cleared, with the row counts of the store.
void begin_stats(SolveStats& stats, const RowStore& rows);

/// J_i v for row i with its bodies' velocities a and b (always inlined: it is the inner loop of
/// every row solver).
[[gnu::always_inline]] inline Real row_velocity(const RowStore& rows, std::size_t i,
                                                const BodyVelocity& a, const BodyVelocity& b) {
  return dot(rows.j_lin_a(i), a.linear) + dot(rows.j_ang_a(i), a.angular) +
         dot(rows.j_lin_b(i), b.linear) + dot(rows.j_ang_b(i), b.angular);
}

/// J_i v for row i, its bodies' velocities read from v.
[[gnu::always_inline]] inline Real row_velocity(const RowStore& rows, std::size_t i,
                                                std::span<const BodyVelocity> v) {
  return row_velocity(rows, i, v[rows.body_a[i]], v[rows.body_b[i]]);
}

/// w_i = J_i v - bias_i + softness_i lambda_i: row i's velocity error, zero on a converged free
/// row, rigid or soft; summed in T (the block solver's small solves work in double).
template <typename T = Real>
[[gnu::always_inline]] inline T row_error(const RowStore& rows, std::size_t i,
                                          std::span<const BodyVelocity> v) {
  return T(row_velocity(rows, i, v)) - T(rows.bias[i]) + T(rows.softness[i]) * T(rows.lambda[i]);
}

/// v += B_i * delta: the velocity change of an impulse delta on row i.
[[gnu::always_inline]] inline void apply_row_impulse(const RowStore& rows, std::size_t i,
                                                     Real delta, std::span<BodyVelocity> v) {
  BodyVelocity& a = v[rows.body_a[i]];
  BodyVelocity& b = v[rows.body_b[i]];
  a.linear += delta * rows.b_lin_a(i);
  a.angular += delta * rows.b_ang_a(i);
  b.linear += delta * rows.b_lin_b(i);
  b.angular += delta * rows.b_ang_b(i);
}

/// A bound counts as active within this relative distance: clamping makes bounds exact, but a
/// friction bound moves with its normal impulse after the friction row was clamped.
constexpr Real k_bound_tolerance = Real(1e-5);

inline bool at_bound(Real lambda, Real bound) {
  return is_finite(bound) &&
         std::abs(lambda - bound) <= k_bound_tolerance * std::max(Real(1), std::abs(bound));
}

/// The violation of a box row's conditions given its velocity error w, impulse lambda and current
/// bounds [lo, hi]; inline, with the bounds passed in, because it runs for every row every
/// iteration (measure_rows).
inline Real box_residual(Real w, Real lambda, Real lo, Real hi) {
  const bool at_lo = at_bound(lambda, lo), at_hi = at_bound(lambda, hi);
  if (at_lo && at_hi) return 0;  // a zero-width range (friction under zero load) takes any w
  if (at_lo) return std::min(w, Real(0));
  if (at_hi) return std::max(w, Real(0));
  return w;
}

/// The violation of the disc conditions of the pair whose first row is i, given its velocity
/// errors w: inside the disc, w itself; on the rim, the part of w along the impulse that does not
/// oppose it and the part across it; nothing when the radius is zero (the box's zero-width case).
TangentPair disc_residual(const RowStore& rows, std::size_t i, TangentPair w);

struct ResidualMeasure {
  Real relative_residual = 0;
  Real complementarity_error = 0;
  Real max_abs_lambda = 0;
};

/// Rows are measured in this many chunks of consecutive rows, summed in chunk order: the same
/// bits whether the chunks run on one thread or several (run_chunks).
constexpr std::size_t k_measure_chunks = 16;
constexpr std::size_t k_parallel_measure = 2048;  // fewer rows are measured on one thread

/// Measures the rows given each row's velocity error w_of(i) (row_error from the bodies'
/// velocities, or from an assembled (A + diag(softness)) lambda - b). A lambda outside its box or
/// disc counts in velocity units, its distance times the row's diagonal (a disc's: 1 / disc_step).
/// Shares the rows among the pool's threads when given (w_of must then be safe to call at once).
template <typename VelocityError>
ResidualMeasure measure_rows(const RowStore& rows, VelocityError w_of, Real b_norm,
                             TaskPool* pool = nullptr) {
  struct Part {
    double sum = 0;
    ResidualMeasure m;
  };
  std::array<Part, k_measure_chunks> parts{};
  run_chunks(
      pool, rows.size(), k_measure_chunks, k_parallel_measure,
      [&](std::size_t chunk, std::size_t begin, std::size_t end) {
        double sum = 0;
        ResidualMeasure m;
        const auto add = [&](Real r, Real outside) {
          sum += double(r) * double(r);
          m.complementarity_error = std::max({m.complementarity_error, std::abs(r), outside});
        };
        for (std::size_t i = begin; i < end; ++i) {
          m.max_abs_lambda = std::max(m.max_abs_lambda, std::abs(rows.lambda[i]));
          if (rows.disc_second(i)) continue;  // measured with its first row
          if (rows.disc_first(i)) {
            const TangentPair r = disc_residual(rows, i, {w_of(i), w_of(i + 1)});
            const Real length = std::sqrt(rows.lambda[i] * rows.lambda[i] +
                                          rows.lambda[i + 1] * rows.lambda[i + 1]);
            const Real outside =
                std::max(length - rows.disc_radius(i), Real(0)) / rows.disc_step[i];
            add(r.t1, outside);
            add(r.t2, 0);
            continue;
          }
          // Bounds read once: a friction row's follow its normal rows' impulse.
          const Real lambda = rows.lambda[i], lo = rows.lower(i), hi = rows.upper(i);
          const Real outside = std::max({lambda - hi, lo - lambda, Real(0)});
          const Real r =
              rows.inv_eff_mass[i] == 0 ? Real(0) : box_residual(w_of(i), lambda, lo, hi);
          add(r, outside * rows.diagonal[i]);
        }
        parts[chunk] = {sum, m};
      });
  double sum = 0;
  ResidualMeasure m;
  for (const Part& part : parts) {
    sum += part.sum;
    m.complementarity_error = std::max(m.complementarity_error, part.m.complementarity_error);
    m.max_abs_lambda = std::max(m.max_abs_lambda, part.m.max_abs_lambda);
  }
  m.relative_residual = Real(std::sqrt(sum)) / b_norm;
  return m;
}

/// |b| over `count` rows given each row's b_i = b_of(i) (bias - J v at the impulse-free
/// velocities, in double), floored so it never divides by 0; summed in chunks as measure_rows.
template <typename RightHandSide>
Real rhs_norm_of(std::size_t count, RightHandSide b_of, TaskPool* pool = nullptr) {
  std::array<double, k_measure_chunks> sums{};
  run_chunks(pool, count, k_measure_chunks, k_parallel_measure,
             [&](std::size_t chunk, std::size_t begin, std::size_t end) {
               double sum = 0;
               for (std::size_t i = begin; i < end; ++i) {
                 const double b = b_of(i);
                 sum += b * b;
               }
               sums[chunk] = sum;
             });
  double sum = 0;
  for (const double part : sums)
    sum += part;
  return std::max(Real(std::sqrt(sum)), std::numeric_limits<Real>::min());
}

/// rhs_norm_of from the rows and the bodies' velocities.
Real rhs_norm(const RowStore& rows, std::span<const BodyVelocity> v_free, TaskPool* pool = nullptr);

/// Measures the rows at the current velocities and impulses.
ResidualMeasure measure_residual(const RowStore& rows, std::span<const BodyVelocity> v, Real b_norm,
                                 TaskPool* pool = nullptr);

/// Applies every row's accumulated lambda to the velocities (the warm start), or zeroes the
/// impulses when warm starting is off.
void apply_warm_start(RowStore& rows, std::span<BodyVelocity> v, bool warm_start);

/// The common start of the iterative solvers on the rows: stats begun, |b| measured at the free
/// velocities, the warm start applied (or impulses zeroed) and its residual recorded when every
/// iteration's is (measures_every_iteration). Returns |b| (1 without measuring,
/// measures_residuals).
Real start_row_solve(RowStore& rows, std::span<BodyVelocity> v, const SolverSettings& settings,
                     SolveStats& stats, TaskPool* pool = nullptr);

/// The solve's final figures (SolveStats::final_residual, complementarity_error, max_abs_lambda).
void record_final_figures(const ResidualMeasure& m, SolveStats& stats);

/// Fills the per-iteration stats and says whether to stop: under the tolerance in relative
/// residual, or with no impulse changing by more than tolerance times the largest impulse.
bool record_iteration(const ResidualMeasure& m, Real max_delta, const SolverSettings& settings,
                      SolveStats& stats);

/// Whether a solve measures its residual at the warm start and after every iteration: a tolerance
/// needs it, record_residuals asks for it. Else at most the final figures are measured, since a
/// measure costs about as much as an iteration (stats.h).
inline bool measures_every_iteration(const SolverSettings& settings) {
  return settings.tolerance > 0 || settings.record_residuals;
}

/// Whether a solve measures residuals at all: after every iteration, or only its final figures
/// (SolverSettings::measure_residuals).
inline bool measures_residuals(const SolverSettings& settings) {
  return settings.measure_residuals || measures_every_iteration(settings);
}

/// Ends iteration `iteration` (from 0): counts it, and measures (measure() gives the
/// ResidualMeasure) and records it when something reads the figure: after every iteration when
/// the solve stops on a tolerance or record_residuals asks, else after the last one only with
/// measure_residuals, since a measure costs about as much as an iteration (stats.h,
/// SolveStats::residuals). Says whether to stop (record_iteration). Without measuring
/// (measures_residuals) it only counts.
template <class Measure>
bool end_iteration(int iteration, Measure&& measure, Real max_delta, const SolverSettings& settings,
                   SolveStats& stats) {
  if (!measures_residuals(settings) ||
      (!measures_every_iteration(settings) && iteration + 1 < settings.iterations)) {
    ++stats.iterations;
    return false;
  }
  return record_iteration(measure(), max_delta, settings, stats);
}

}  // namespace impulse
