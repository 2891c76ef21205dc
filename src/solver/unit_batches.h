#pragma once
// Units of a pgs sweep visited four at a time, lane k of each register being unit k's (a manifold:
// its friction run, then its group of normal rows), with the same bits as one at a time.
//
// Two units that move no body in common commute: visiting them in either order gives the same
// bits. So the sweep may visit a part's interior units in any order that keeps each pair that
// shares a moving body in stored order: level by level, where a unit's level is one more than the
// highest level of the earlier units it shares a moving body with. The units of one level share no
// moving body, and those of the same shape (as many friction rows, with the same normal rows, and
// as many normal rows) are visited four at a time: a row's J v for four units is twelve products
// in lanes with no sum across them, where one unit's is two sums across lanes. Each lane does the
// arithmetic of the visit one at a time, in its order (visit_friction_run and visit_group in
// pgs_solver.cpp); a group that the all-rows solve does not settle is left to the one-at-a-time
// visit after the others (its unit shares no body with them). Units of another shape, and the
// last of a shape in a level, are visited alone.

#include "constraints/rows.h"
#include "core/lanes.h"
#include "core/task_pool.h"
#include "solver/sweep_schedule.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

struct RowGroup;
struct PackedRow;
struct RunCoupling;

/// One step of a part's sweep: rows [begin, end) of a unit visited alone, or the batch `batch`.
struct SweepStep {
  static constexpr std::uint32_t k_alone = ~std::uint32_t(0);
  std::uint32_t begin, end;
  std::uint32_t batch;
};

/// Four units of one shape visited at once.
struct UnitBatch {
  static constexpr std::size_t k_units = 4;
  static constexpr std::size_t k_max_friction_rows = 12;
  std::array<std::uint32_t, k_units> first;   // each unit's first row (its friction run's)
  std::array<std::uint32_t, k_units> group;   // each unit's RowGroup
  std::array<std::uint32_t, k_units> body_a;  // each unit's bodies (every row's)
  std::array<std::uint32_t, k_units> body_b;
  std::array<std::uint8_t, k_units> moves;  // each unit's row_visit a_moves and b_moves bits
  std::uint8_t units;  // k_units, or fewer for a batch left short (visited unit by unit)
  std::uint8_t friction_rows, group_rows;
  std::uint8_t normal_count;  // of every friction row (row_visit::normal_count)
  // Per friction row: its first normal row, counted from the group's first row.
  std::array<std::uint8_t, k_max_friction_rows> normal_of;
  std::uint32_t data;  // its first entry in the lanes of UnitBatches::wide_
};

/// What visiting a batch did: the largest impulse change, and the units (bit k: unit k) whose
/// group is still to be visited alone.
struct BatchVisit {
  Real largest;
  std::uint8_t groups_left;
};

class UnitBatches {
 public:
  static constexpr std::uint8_t k_rest_sweeps = 4;
  static constexpr std::uint8_t k_always_alone = 255;
  /// The steps of each part's interior. visits: per row, row_visit's byte; group_of: per row, its
  /// RowGroup or none.
  void build(const RowStore& rows, const SweepSchedule& schedule,
             std::span<const std::uint8_t> visits, std::span<const std::uint32_t> group_of,
             std::span<const RowGroup> groups, std::size_t bodies);
  /// Forgets the steps (a new structure), until the next build.
  void clear() {
    steps_.clear();
    batches_.clear();
    built_ = false;
  }
  bool built() const { return built_; }
  /// Part p's steps, in an order that gives the bits of its units in stored order.
  std::span<const SweepStep> part(std::size_t p) const {
    return std::span(steps_).subspan(part_begin_[p], part_begin_[p + 1] - part_begin_[p]);
  }
  const UnitBatch& batch(std::size_t k) const { return batches_[k]; }
  std::size_t batch_count() const { return batches_.size(); }
  /// The batches' rows in lanes: what a solve keeps (the coefficients, bounds, couplings and
  /// groups' matrices) and then its biases, which the relax solve changes.
  void pack(const RowStore& rows, std::span<const PackedRow> packed,
            std::span<const RunCoupling> couplings, std::span<const RowGroup> groups,
            TaskPool* pool);
  void pack_biases(std::span<const PackedRow> packed, std::span<const RowGroup> groups,
                   TaskPool* pool);
  /// Whether batch k is to be visited in lanes this sweep: a batch that left two or more of its
  /// groups (idle, or unsettled by the all-rows solve) at its last visit in lanes is visited unit
  /// by unit for the next k_rest_sweeps sweeps (the same bits either way).
  bool in_lanes(std::size_t k) {
    if (rest_[k] == 0) return true;
    if (rest_[k] != k_always_alone) --rest_[k];
    return false;
  }
  /// Visits batch k's units: their friction runs, then their groups (those the all-rows solve
  /// settles; BatchVisit::groups_left names the others).
  BatchVisit visit(std::size_t k, Lanes* velocity, Real* lambda, Real sor);

 private:
  std::vector<SweepStep> steps_;
  bool built_ = false;
  std::array<std::uint32_t, SweepSchedule::k_max_parts + 1> part_begin_{};
  std::vector<UnitBatch> batches_;
  std::vector<Lanes> wide_;
  std::vector<std::uint8_t> rest_;  // per batch: sweeps still to visit it unit by unit
  // Scratch, kept so a warmed-up solver allocates nothing.
  std::vector<std::uint32_t> placed_;  // per body: the last step that moves it, + 1 (0: none)
  struct OpenBatch {
    std::uint64_t shape;
    std::uint32_t step;
  };
  std::vector<OpenBatch> open_;  // the batch still filling, per shape
};

}  // namespace impulse
