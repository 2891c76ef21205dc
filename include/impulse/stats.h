#pragma once
// What a step and its constraint solve report.

#include <impulse/math.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace impulse {

enum class SolveStatus : std::uint8_t {
  ok,       ///< ran to its iteration budget or tolerance
  refused,  ///< beyond what the solver takes (size, non-finite data) or a direct solve that found
            ///< no solution: no impulse applied (a World then solves the rows with pgs:
            ///< DiagnosticKind::solve_refused)
};

/// What one constraint solve did.
struct SolveStats {
  std::size_t rows = 0;
  int iterations = 0;
  /// Relative residual (seed 000 eq. 4) after each iteration when the solve stops on a tolerance
  /// (SolverSettings::tolerance > 0) or SolverSettings::record_residuals is set; else only after
  /// the last iteration, one entry, if SolverSettings::measure_residuals asks: measuring every row
  /// costs about as much as an iteration. Without any of the three, empty and the figures below 0.
  std::vector<Real> residuals;
  /// Relative residual at the warm start, before iterating: measured when every iteration's is
  /// (a tolerance, or record_residuals), else 0.
  Real initial_residual = 0;
  Real final_residual = 0;
  Real complementarity_error = 0;   ///< largest distance from the MLCP conditions, m/s or rad/s
  Real max_abs_lambda = 0;          ///< largest impulse, N s
  std::size_t degenerate_rows = 0;  ///< rows skipped for a zero or negative J M^-1 J^T
  /// pgs: the rows' layout (their bodies, blocks, friction links and kinds of bounds, and which
  /// bodies move) differs from the last solve's, so the structure of the sweeps (groups, friction
  /// runs, schedule) and its batches were found anew (docs/solvers.md). Always false for the other
  /// solvers, which keep no structure.
  bool layout_changed = false;
  /// pgs: the units (a manifold's rows) in the batches the solve visits four at a time in lanes,
  /// built in the solve that finds a layout (in-order solves only); a group the lanes leave
  /// unsettled is visited alone right after its batch.
  std::size_t units_batched = 0;
  /// pgs and block: islands with a contact's or a limit's row between two moving bodies whose
  /// masses differ more than twentyfold (or a light body carrying more than twenty times its
  /// weight), solved exactly by the direct solver after the sweeps (docs/solvers.md, "Mass
  /// ratios"), and those left to the sweeps (too many rows, or the direct solve failed).
  std::size_t ratio_islands_solved = 0;
  std::size_t ratio_islands_left = 0;
  /// pgs: the threads that shared its sweeps (a small island's stay on one; World::set_threads).
  std::size_t threads = 1;
  SolveStatus status = SolveStatus::ok;
  std::string diagnostic;  ///< why a solve was refused or did not converge

  /// Clears the figures, keeping the residual buffer's capacity.
  void reset();
};

/// What the last step did and how long each stage took.
struct StepStats {
  double collide_ms = 0;      ///< broadphase, narrowphase and the contact cache: the sum of
  double broadphase_ms = 0;   ///< moving the shapes' fat boxes and finding new pairs
  double narrowphase_ms = 0;  ///< manifolds, the cache, and waking what they touch
  double integrate_velocities_ms = 0;
  double solve_ms = 0;  ///< the constraint solve: the sum of its four parts below
  /// The solve's parts. rows_ms: the rows written and prepared (the contacts' impact pass, the
  /// bodies' solver masses, the contact, joint and custom rows, RowStore::prepare).
  double rows_ms = 0;
  double solver_ms = 0;  ///< the solver's solve of the rows, its own preparation included
  /// The positions moved and the relax solve (SolverSettings::relax_iterations); 0 without it.
  double relax_ms = 0;
  double store_ms = 0;  ///< the impulses stored back into the contacts, joints and custom rows
  double integrate_positions_ms = 0;
  double total_ms = 0;
  /// The threads the step's loops could run on (its last sub-step's): World::threads(), or 1 for a
  /// step that ThreadUse::measured kept on the calling thread.
  int threads = 1;
  SolveStats solve;
  std::size_t contact_pairs = 0;      ///< shape pairs whose fat boxes overlap
  std::size_t contact_manifolds = 0;  ///< pairs touching or within the speculative margin
  std::size_t contact_points = 0;
  std::size_t cache_hits = 0;  ///< points matched to last step's by feature id (warm started)
  /// touching pairs whose contacts were rebuilt from their last narrowphase's, their shapes having
  /// barely moved against each other (WorldSettings::reuse_contacts)
  std::size_t reused_pairs = 0;
  Real max_penetration = 0;          ///< m, deepest contact at the start of the step
  Real max_joint_error = 0;          ///< m, the largest linear joint violation after the step
  Real max_joint_angular_error = 0;  ///< rad, the largest angular joint violation after the step
  /// Fraction of contact points the cache matched (1 when there are none).
  double cache_hit_rate() const {
    return contact_points == 0 ? 1.0 : double(cache_hits) / double(contact_points);
  }
};

/// Where a step's time went, ms: each stage once, the solve by its parts, in the step's order, so
/// the stages add up to the step's work. Summed over steps and divided, a run's mean profile.
struct StageTimes {
  static constexpr std::size_t k_count = 8;
  /// The stages, in the step's order: StepStats' broadphase_ms, narrowphase_ms,
  /// integrate_velocities_ms, rows_ms, solver_ms, relax_ms, store_ms, integrate_positions_ms.
  static constexpr std::array<const char*, k_count> names{
      "broadphase", "narrowphase", "integrate_velocities", "rows", "solver",
      "relax",      "store",       "integrate_positions"};
  std::array<double, k_count> ms{};  ///< each stage's time, in names' order

  /// The stages of a step's stats.
  static StageTimes of(const StepStats& stats);
  StageTimes& operator+=(const StageTimes& other);
  /// Every stage divided by n (a mean over n steps).
  StageTimes operator/(double n) const;
};

}  // namespace impulse
