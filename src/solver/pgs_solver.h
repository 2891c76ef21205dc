#pragma once

#include "core/lanes.h"
#include "core/phased_work.h"
#include "solver/equality_block.h"
#include "solver/pgs_rows.h"
#include "solver/ratio_islands.h"
#include "solver/row_layout.h"
#include "solver/row_order.h"
#include "solver/solver.h"
#include "solver/sweep_schedule.h"
#include "solver/unit_batches.h"

#include <array>

namespace impulse {

/// One projected Gauss-Seidel visit of row i with over-relaxation sor; returns the largest impulse
/// change (magnitude). The first row of a disc pair visits the pair; its second row does nothing.
Real pgs_visit_row(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor);

struct PackedAccess;

class PgsSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::pgs; }
  bool solves_bilateral_rows_exactly() const override { return true; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;
  /// True when the equality block held every row (joints' equality rows and springs, nothing
  /// one-sided or bounded) and the solve was not over-relaxed.
  bool last_solve_exact() const override { return exact_; }
  /// The unit batches as last built, for the last layout (a shuffled solve neither builds nor
  /// visits them).
  const UnitBatches& batches() const { return batches_; }
  /// Above how many bytes the batches keep their rows compact (UnitBatches::set_compact_above;
  /// the same bits either way): for tests and measurements.
  void set_compact_batches_above(std::size_t bytes) { batches_.set_compact_above(bytes); }
  /// Whether sweeps in stored order visit units in batches (the default; UnitBatches, the same bits
  /// either way): false visits every unit alone, for tests and measurements.
  void set_batched(bool batched) { batching_ = batched; }
  /// Whether the equality block solves its components that factor alike in lanes (the default;
  /// EqualityBlock::set_lanes, the same bits either way): for tests and measurements.
  void set_block_lanes(bool lanes) { equalities_.set_lanes(lanes); }
  /// The groups (RowGroup) of the last solve's structure: the rows its sweeps visit together (a
  /// batch's matrices are in its lanes: UnitBatches::holds_row).
  std::span<const RowGroup> groups() const { return groups_; }
  /// Keeps the packed rows, the groups' factors and the equality block's factorisation.
  void solve_again(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                   SolveStats& stats, bool impulses_applied) override;
  /// In stored order and measuring nothing (a residual's right-hand side needs the free
  /// velocities), the sweeps may continue from the last solve's velocities.
  bool continues_from_solved_velocities(const SolverSettings& settings) const override;

 private:
  /// Packs the rows (PackedRow, all but the bias), zeroes their responses on bodies that do not
  /// move, factors the equality block and assembles the groups' matrices; finds the structure
  /// again unless the layout is the last solve's. in_order: the sweeps visit the rows in stored
  /// order (not shuffled), so they may visit units in batches (UnitBatches), whose rows and
  /// groups are packed in the batches' lanes instead (unpack_batches). Returns whether the layout
  /// changed (SolveStats::layout_changed).
  bool prepare(RowStore& rows, std::span<const SolverBodyMass> masses, TaskPool* pool,
               bool in_order);
  /// Every batch's rows, couplings and groups into the solver's own (UnitBatches::unpack), for a
  /// pass that reads every row: a residual, a shuffled sweep.
  void unpack_batches(const RowStore& rows);
  /// The structure of the solve that follows from the layout (RowLayout): the groups, the
  /// equality block's rows among them, how each row is visited, the friction runs, the schedule.
  void find_structure(const RowStore& rows);
  /// How a sweep visits row i (row_visit), once the groups and the equality block are known.
  std::uint8_t visit_of(const RowStore& rows, std::size_t i) const;
  /// Sweeps from the velocities given; the rows' lambda is the warm start, already applied to
  /// them when impulses_applied.
  void iterate(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
               SolveStats& stats, bool impulses_applied = false);
  void iterate_shuffled(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                        SolveStats& stats);
  /// Solves the equality block for the velocities' errors and applies the change; returns the
  /// largest impulse change (0 without a block).
  Real visit_equalities(RowStore& rows, const PackedAccess& access, Real sor);
  /// The same for the block's batch `batch` alone (EqualityBlock::batches).
  Real visit_equality_batch(RowStore& rows, const PackedAccess& access, std::size_t batch,
                            Real sor);
  /// Copies the velocities into the lanes below and the rows' biases into the packed rows, the
  /// groups and the batches: both change between solve and solve_again.
  void pack_solve_inputs(const RowStore& rows, std::span<const BodyVelocity> v, TaskPool* pool);
  /// pack_solve_inputs' chunk `chunk` (of k_prepare_chunks, pgs_solver.cpp); velocity_ sized.
  void pack_solve_chunk(const RowStore& rows, std::span<const BodyVelocity> v, std::size_t chunk);
  /// Copies the packed velocities back.
  void unpack(std::span<BodyVelocity> v) const;
  /// The sweeps' view of the packed rows, the store's coefficients and impulses, and the packed
  /// velocities.
  PackedAccess packed_access(RowStore& rows);
  /// How many threads share a sweep of the schedule on this pool: one when the island is small or
  /// the pool has one thread.
  std::size_t members_for(TaskPool* pool) const;
  /// Marks the friction rows of block [begin, end) visited as runs (row_visit::friction_run,
  /// pgs_solver.cpp).
  void find_friction_runs(const RowStore& rows, std::uint32_t begin, std::uint32_t end);
  /// The structure of kept rows (whole blocks) as found for the alike rows of the layout before
  /// (RowLayout::BlockMatch): their groups, visits and friction runs. groups_before: the first
  /// group before not yet passed, advanced.
  void keep_structure(const KeptRows& kept, std::size_t& groups_before);
  /// Finds the groups (below) of block [begin, end): which rows, not their matrices.
  void find_groups(const RowStore& rows, std::uint32_t begin, std::uint32_t end);
  /// A group's matrices (RowGroup) from its rows' coefficients, but its inverse (GroupInverter).
  void assemble_group(const RowStore& rows, RowGroup& group) const;

  // Kept from solve to solve: no allocation once warmed up.
  RowOrder order_;
  std::vector<PackedRow> packed_;
  std::vector<Lanes> velocity_;  // 2 per body: linear, angular
  std::vector<RowGroup> groups_;
  std::vector<std::uint32_t> group_of_;    // per row: its group, k_no_row_group or k_row_in_block
  std::vector<std::uint8_t> visits_;       // per row: row_visit (pgs_solver.cpp), then one "none"
  std::vector<RunCoupling> run_coupling_;  // per row of a friction run but its first
  // The groups' rows as find_structure found them (groups_ holds them with their matrices), and
  // the per-row structure and groups found for the layout before, and with which equality block.
  struct GroupRows {
    std::uint32_t first, count;
  };
  std::vector<GroupRows> group_rows_, group_rows_before_;
  std::vector<std::uint32_t> group_of_before_;
  std::vector<std::uint8_t> visits_before_;
  std::vector<KeptRows> kept_rows_;  // the rows whose structure was kept, for the schedule
  bool found_direct_ = false;
  SweepSchedule schedule_;
  UnitBatches batches_;             // the schedule's parts as a sweep visits them
  bool batched_ = false;            // the last prepare packed batches_ for the sweeps
  RowLayout layout_;                // the structure above is kept while it holds
  struct alignas(64) MemberDelta {  // a cache line each: the members write theirs at once
    Real value = 0;
  };
  std::vector<MemberDelta> member_delta_;  // per thread of a sweep: its largest impulse change
  std::vector<MemberDelta> member_block_delta_;  // the same in the equality block's components
  std::vector<std::uint8_t> block_skipped_;      // per iteration: no block solve after its sweep
  PhasedWork work_;
  EqualityBlock equalities_;    // solved after each sweep, when prepared
  RatioIslands ratio_islands_;  // solved after the sweeps (ratio_islands.h)
  Real b_norm_ = 1;             // the last sweeps' |b| (1 when they measured no residual)
  bool direct_ = false;
  bool exact_ = false;               // last_solve_exact
  std::vector<double> block_delta_;  // per row of the equality block: -w, then the change
  bool batching_ = true;             // set_batched
};

}  // namespace impulse
