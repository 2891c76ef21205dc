#pragma once
// Units of a pgs sweep visited four at a time, lane k of each register being unit k's (a manifold:
// its friction run, then its group of normal rows), with the same bits as one at a time
// (docs/solvers.md, "Four manifolds at once").
//
// Two units that move no body in common commute: visiting them in either order gives the same bits.
// So a part's interior units may be visited in any order that keeps every two units sharing a
// moving body in stored order. Each unit gets a level, one past the last level that moves one of
// its bodies, or a later one where a batch of its shape fills (delay_into_batches); the units are
// visited level by level, and within a level (units that share no moving body) in batches of one
// shape (as many friction rows, bounded by the same normal rows, and as many normal rows). A batch
// is visited in lanes: a row's J v for four units is twelve products with no sum across lanes,
// where one unit's is two sums across them. Each lane does the arithmetic
// of the visit one at a time, in its order (visit_friction_run and visit_group in pgs_solver.cpp;
// a group whose rows only partly pushed before the visit tries those rows first, with the same
// solve_active, group_solve.h); a group neither settles is left to the one-at-a-time visit after
// the batch (its unit shares no body with the others). A batch of three fills its fourth lane with
// its first unit again (same values, same bits stored twice). Units of another shape, and batches
// of one or two, are visited unit by unit.

#include "constraints/rows.h"
#include "core/byte_flags.h"
#include "core/lanes.h"
#include "core/task_pool.h"
#include "solver/pgs_rows.h"
#include "solver/sweep_schedule.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace impulse {

/// One step of a part's or a colour's sweep: rows [begin, end) of a unit visited alone, or the
/// batch `batch`.
struct SweepStep {
  static constexpr std::uint32_t k_alone = ~std::uint32_t(0);
  std::uint32_t begin, end;
  std::uint32_t batch;
};

/// What the units of a batch share: a friction run, then a group of normal rows that bound it, or
/// a lone normal row that does (a one-point manifold's: row_visit::fixed_bounds), all between the
/// same two bodies.
struct UnitShape {
  static constexpr std::size_t k_max_friction_rows = 12;
  std::uint8_t friction_rows = 0, group_rows = 0;  // group_rows 1 for a lone row
  std::uint8_t normal_count = 0;  // of every friction row (row_visit::normal_count)
  bool lone_row = false;          // the normal row is alone, visited with its bounds
  // Per friction row: its first normal row, counted from the group's first row.
  std::array<std::uint8_t, k_max_friction_rows> normal_of{};
  /// A unit's rows: its friction run's, then its group's.
  std::uint32_t rows() const { return std::uint32_t(friction_rows) + group_rows; }
  friend bool operator==(const UnitShape&, const UnitShape&) = default;
};

/// Four units of one shape visited at once (or three, the fourth lane repeating the first).
struct UnitBatch {
  static constexpr std::size_t k_units = 4;
  std::array<std::uint32_t, k_units> first;   // each unit's first row (its friction run's)
  std::array<std::uint32_t, k_units> group;   // each unit's RowGroup (none for a lone row)
  std::array<std::uint32_t, k_units> body_a;  // each unit's bodies (every row's)
  std::array<std::uint32_t, k_units> body_b;
  std::array<std::uint8_t, k_units> moves;  // each unit's row_visit a_moves and b_moves bits
  std::uint8_t units;                       // its units: k_min_units to k_units once built
  // A batch of three is visited in lanes too: one at a time its units cost about 1100
  // instructions each, in lanes about 2725 for the batch (pyramid20, 12-row manifolds).
  static constexpr std::uint8_t k_min_units = 3;
  UnitShape shape;
  std::uint32_t lanes_begin;  // its first entry in UnitBatches::lanes_
};

/// What visiting a batch did: the largest impulse change, and the units (bit k: unit k) whose
/// group is still to be visited alone.
struct BatchVisit {
  Real largest;
  std::uint8_t groups_left;
};

class UnitBatches {
 public:
  /// The steps of each part's interior and of each boundary colour. visits: per row, row_visit's
  /// byte; group_of: per row, its RowGroup or none. merge_parts: one thread visits every part, so
  /// the parts' interiors, which share no moving body, are ordered and batched together as part 0's
  /// steps (the others' are then empty): a tower cut in two parts has about two units a level in
  /// each.
  void build(const RowStore& rows, const SweepSchedule& schedule,
             std::span<const std::uint8_t> visits, std::span<const std::uint32_t> group_of,
             std::span<const RowGroup> groups, std::size_t bodies, bool merge_parts);
  /// Room for a build on a structure of this many rows, units and bodies, so that a build on it
  /// allocates nothing: a solver finds each layout's structure, but builds batches not for all
  /// (none in a shuffled solve: PgsSolver::prepare), and a warmed-up step must not allocate for a
  /// layout larger than any batched before.
  void reserve(std::size_t rows, std::size_t units, std::size_t bodies);
  /// Forgets the steps (a new structure), until the next build.
  void clear() {
    steps_.clear();
    batches_.clear();
    built_ = false;
  }
  bool built() const { return built_; }
  /// Whether the last build merged the parts, and how many it was given.
  bool parts_merged() const { return parts_merged_; }
  std::size_t parts() const { return parts_; }
  /// Whether a solve since the last build visited a batch in lanes (what the tests read to know
  /// that the lanes, not the store, gave their bits).
  bool visited_in_lanes() const { return visited_in_lanes_.load(std::memory_order_relaxed); }
  /// Part p's steps, in an order that gives the bits of its units in stored order.
  std::span<const SweepStep> part(std::size_t p) const { return segment(p); }
  /// How many colours the last build was given (SweepSchedule::colours).
  std::size_t colours() const { return built_ ? segments_ - parts_ : 0; }
  /// Colour c's steps (its units share no moving body, so any order gives their bits).
  std::span<const SweepStep> colour(std::size_t c) const { return segment(parts_ + c); }
  const UnitBatch& batch(std::size_t k) const { return batches_[k]; }
  std::size_t batch_count() const { return batches_.size(); }
  /// The units the batches hold.
  std::size_t units() const { return built_ ? units_ : 0; }
  /// The batches' rows in lanes: what a solve keeps (the coefficients, bounds, the runs' couplings
  /// and the groups' matrices, these two found here from the rows, and the bodies' inverse masses,
  /// given per body) and then its biases, which the relax solve changes.
  void pack(const RowStore& rows, std::span<const SolverBodyMass> masses, TaskPool* pool);
  /// Whether row i is a batch's (and so the group it belongs to): pack finds its packed row and
  /// couplings and its group's matrices (pack_biases their biases), which the solver's own
  /// (PackedRow, RunCoupling, RowGroup) have only once unpack (the whole batch's) or unpack_group
  /// (one unit's group or lone row) gives them.
  bool holds_row(std::size_t i) const { return holds_row_[i] != 0; }
  /// Whether rows [i, i + k_flag_bytes) are all batches' (one load for a pass over the rows to
  /// skip them).
  bool holds_eight_rows(std::size_t i) const { return eight_have(holds_row_.data() + i, 1); }
  /// Batch k's groups' matrices and its rows' packed rows and couplings into the solver's own, and
  /// this solve's biases from the rows, once a solve (forget_unpacked): for a visit of its units
  /// one at a time (the same bits as in lanes), a residual or a shuffled solve.
  void unpack(std::size_t k, const RowStore& rows, std::span<RowGroup> groups,
              std::span<RunCoupling> couplings, std::span<PackedRow> packed);
  /// Unit u's group of batch k, and its rows' packed rows, into the solver's own, once a solve:
  /// all a group left by the lanes needs for its visit alone (unpack gives every unit's and more).
  void unpack_group(std::size_t k, std::size_t u, const RowStore& rows, std::span<RowGroup> groups,
                    std::span<PackedRow> packed);
  /// Every batch to be unpacked again when asked: a new solve (a new step's rows, which the
  /// solver's preparation leaves a batch's out of).
  void forget_unpacked() { std::fill(unpacked_.begin(), unpacked_.end(), 0); }
  /// The batches are packed in this many chunks, at least one a part (fill_chunk).
  static constexpr std::size_t k_pack_chunks = 16;
  /// The biases of chunk `chunk`'s batches (of k_pack_chunks), from the rows' (RowStore::bias):
  /// the relax solve changes them. A solve packs its chunks with its rows (PgsSolver).
  void pack_biases(std::size_t chunk, const Real* bias);
  /// Whether the last build keeps the rows' B without its linear parts, which a visit finds from
  /// J and the bodies' inverse masses (the same bits): a fifth less memory, for batches whose lanes
  /// would not stay in a core's cache from one sweep to the next (more than compact_above
  /// bytes in the whole form); in a cache, the products cost more than the loads they save.
  bool compact() const { return compact_; }
  /// Sets compact_above for the next build (0: always compact; the default: half the processor's
  /// second-level cache, or 1 MiB where the system does not tell it).
  void set_compact_above(std::size_t bytes) { compact_above_ = bytes; }
  /// Whether batch k's compact lanes cannot hold its rows (pack): a row whose J on body a's linear
  /// part is not minus its J on body b's (not a contact's), or a body held to a plane (whose
  /// linear response is no multiple of J's). It is then visited and warm started unit by unit
  /// from the store.
  bool from_store(std::size_t k) const { return from_store_[k] != 0; }
  /// Batch k's impulses into its bodies' velocities (the warm start), four units at once: each
  /// row's impulse times its B, added in the rows' order as PgsSolver adds a unit's (the same
  /// bits); a row of zero inverse effective mass gets impulse 0 and adds nothing.
  void warm_start(std::size_t k, Lanes* velocity, Real* lambda) const;
  /// Visits batch k's units: their friction runs, then their groups (those settled by the guess
  /// of the rows that pushed before, where only some did, or else by the all-rows solve;
  /// BatchVisit::groups_left names the others) or their lone rows (visit_bounded_row's arithmetic).
  /// BatchVisit::largest is the largest impulse change where `changes` asks for it, else 0 (a solve
  /// that neither measures nor has an equality block reads no change: the maxima cost about 2% of
  /// the pyramid's step).
  BatchVisit visit(std::size_t k, Lanes* velocity, Real* lambda, Real sor, bool changes);

 private:
  std::span<const SweepStep> segment(std::size_t k) const {
    if (!built_) return {};
    return std::span(steps_).subspan(segment_begin_[k], segment_begin_[k + 1] - segment_begin_[k]);
  }
  /// Opens a segment at the steps' end.
  void begin_segment() { segment_begin_[segments_++] = std::uint32_t(steps_.size()); }
  /// A unit may be visited at any level from its own (unit_level_, the earliest) to the one before
  /// the first later unit that moves one of its bodies: the order keeps the bits either way. From
  /// the last unit back, each is moved to the level in its range (at most k_delay_window below the
  /// latest) where the last batch of its shape is fullest, the latest on a tie or where none is
  /// open, so that the units before it keep the most room; a unit with no shape to the latest.
  /// A pyramid's narrow levels leave fewer units alone (34 to 22 of 399 on pyramid20).
  /// for_moving(unit, shaped, f) calls f with each body the unit moves.
  template <class ForMoving>
  void delay_into_batches(std::span<const RowUnit> units, std::uint32_t levels, std::size_t bodies,
                          const ForMoving& for_moving);
  /// The steps of units that share no moving body (a level, a colour), those of units[u] for each
  /// u in `together` (shapes_ holds each unit's shape): each unit joins the first batch of its
  /// shape still filling, or starts one; a unit with no shape is a step alone.
  void add_together(std::span<const RowUnit> units, std::span<const std::uint32_t> together);
  /// A batch left shorter than UnitBatch::k_min_units becomes its units' steps at its place, in
  /// the order they joined it.
  void keep_full_batches();
  /// A batch's group lanes from its rows (assemble_group's and GroupInverter's arithmetic); false
  /// if the lanes cannot hold a row's J (from_store).
  template <bool k_compact>
  static bool pack_group(const RowStore& rows, const UnitBatch& batch, Lanes* group_out);
  // pack, unpack, pack_biases and visit for the form of the lanes (compact()).
  template <bool k_compact>
  void pack_in(const RowStore& rows, std::span<const SolverBodyMass> masses, TaskPool* pool);
  template <bool k_compact>
  void unpack_in(std::size_t k, const RowStore& rows, std::span<RowGroup> groups,
                 std::span<RunCoupling> couplings, std::span<PackedRow> packed);
  template <bool k_compact>
  void unpack_group_in(const UnitBatch& batch, std::size_t u, const RowStore& rows,
                       std::span<RowGroup> groups, std::span<PackedRow> packed) const;
  template <bool k_compact>
  void pack_biases_in(std::size_t chunk, const Real* bias);
  template <bool k_compact, bool k_changes>
  BatchVisit visit_in(std::size_t k, Lanes* velocity, Real* lambda, Real sor);
  template <bool k_compact>
  void warm_start_in(std::size_t k, Lanes* velocity, Real* lambda) const;
  static std::size_t default_compact_above();
  // A friction row's lanes, and the lanes of a shape's normal rows (a group's or a lone row's), in
  // the lanes' form.
  std::size_t friction_row_lanes() const;
  std::size_t normal_lanes(const UnitShape& shape) const;
  /// fill(batch, its friction rows' lanes, its group's lanes) for every batch of chunk `chunk`.
  template <class Fill>
  void fill_chunk(std::size_t chunk, const Fill& fill);
  /// fill_chunk for every chunk, on the pool.
  template <class Fill>
  void for_each_batch(TaskPool* pool, const Fill& fill);

  std::vector<SweepStep> steps_;
  bool built_ = false;
  bool parts_merged_ = false;
  std::size_t parts_ = 0;
  // The steps' segments: each part's, then each colour's (their begins, then the end).
  std::array<std::uint32_t, SweepSchedule::k_max_parts + SweepSchedule::k_max_colours + 1>
      segment_begin_{};
  std::size_t segments_ = 0;
  std::vector<UnitBatch> batches_;
  std::size_t units_ = 0;  // the batches'
  // Part p's batches start at part_batches_[p]; the colours' follow the last part's, to the end.
  std::array<std::uint32_t, SweepSchedule::k_max_parts + 1> part_batches_{};
  std::vector<Lanes> lanes_;
  bool compact_ = false;
  std::size_t compact_above_ = default_compact_above();
  std::vector<std::uint8_t> from_store_;  // per batch: from_store
  // Set once: the threads visit batches next to each other's at once, and a write at every visit
  // took the line from the other core each time (docs/performance.md).
  std::atomic<bool> visited_in_lanes_ = false;
  std::vector<std::uint8_t> holds_row_;  // per row: a batch's
  // Per batch since forget_unpacked: bit u, unit u's group unpacked; k_unpacked_whole, the batch.
  std::vector<std::uint8_t> unpacked_;
  static constexpr std::uint8_t k_unpacked_whole = 1u << UnitBatch::k_units;
  // Scratch, kept so a warmed-up solver allocates nothing.
  // Per body: the last level that moves it, + 1 (build); then the level of the first later unit
  // that moves it (delay_into_batches).
  std::vector<std::uint32_t> level_of_body_;
  std::vector<std::optional<UnitShape>> shapes_;  // per unit: its shape, none to be alone
  std::vector<std::uint32_t> unit_level_;         // per unit
  // How far below its latest level a unit looks for a batch to join: unbounded, the tower's far
  // moves broke up more batches than they filled (tower700's build at step 200 left 328-343
  // units alone, 177-181 with this window, 199-203 without the delays).
  static constexpr std::uint32_t k_delay_window = 16;
  static constexpr std::uint8_t k_no_kind = 0xff;
  // The shapes a level's counts are reserved for (reserve): a contact model gives its manifolds
  // a few.
  static constexpr std::size_t k_reserved_kinds = 8;
  std::vector<UnitShape> kinds_;           // the shapes met (delay_into_batches)
  std::vector<std::uint8_t> kind_of_;      // per unit: its shape's index in kinds_, or k_no_kind
  std::vector<std::uint32_t> kind_count_;  // per shape and level: the units placed there so far
  std::vector<std::uint32_t> level_end_;   // per level: its end in by_level_
  std::vector<std::uint32_t> by_level_;    // the units by level (a colour's: in order)
  struct OpenBatch {
    UnitShape shape;
    std::uint32_t step;
  };
  std::vector<SweepStep> kept_steps_;  // keep_full_batches' steps, then swapped in
  std::vector<OpenBatch> open_;        // the level's batches still filling, in the order started
};

}  // namespace impulse
