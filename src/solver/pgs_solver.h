#pragma once

#include "core/lanes.h"
#include "core/phased_work.h"
#include "solver/equality_block.h"
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

/// Consecutive one-sided rows of one block between the same two bodies (a manifold's normal
/// rows), which PGS visits together: their small LCP is solved to convergence on the velocities of
/// the visit. Row by row, four coplanar contact points share a load only as far as the sweeps get,
/// and what they leave unbalanced turns the box: a stack rocks on it (docs/solvers.md).
struct RowGroup {
  static constexpr std::uint32_t k_max_rows = 4;
  std::uint32_t first, count;
  // J M^-1 J^T + softness by columns: a[c][r] is row r's entry in column c (zero past count);
  // a column is what an impulse change on row c does to every row's velocity error.
  std::array<Lanes, k_max_rows> a;
  // The rows' Jacobians by components, lane r being row r (zero past count): linear a x, y, z,
  // angular a x, y, z, then the same for b. All rows of a group join the same bodies, so a visit
  // finds the four velocity errors at once.
  std::array<Lanes, 12> jacobian;
  // The inverse of a with its diagonal raised by a relative 1e-5 (four coplanar points make a
  // singular) by columns, for the all-rows-pushing case: a visit's solve is four independent
  // products in lanes rather than two dependent triangular substitutions. Padded with the
  // identity past count; a visit refines its solve once (pgs_solver.cpp). Valid only if factored
  // (a Cholesky factorisation succeeded).
  std::array<Lanes, k_max_rows> inverse;
  // a's diagonal times the relative 1e-5 the inverse's diagonal was raised by (zero past count).
  Lanes regularisation;
  // The rows' biases (this solve's) and softnesses, lane r being row r (zero past count): loaded
  // at once by a visit rather than gathered from the packed rows through memory.
  Lanes bias, softness;
  bool factored;
};

/// PgsSolver's per-row group index for a row in no group (k_row_in_block: in the equality block).
constexpr std::uint32_t k_no_row_group = ~std::uint32_t(0);

/// The scalars of a row as a pgs sweep reads them, in one place (one stream per visit rather than
/// one per field) beside the store's coefficients (RowCoefficients, the other stream).
struct PackedRow {
  std::uint32_t body_a, body_b;
  Real bias, softness, inv_eff_mass;
  Real lo, hi;  // a friction row's per unit of its normal rows' impulse: -mu and mu
  std::int32_t normal_row;
};

/// How a row of a friction run sees the changes of the run's earlier rows: J_i M^-1 J_j^T over the
/// bodies that move, for the last row (j = i - 1) and the one before it (j = i - 2; 0 when the
/// run starts at i - 1).
struct RunCoupling {
  Real last = 0, before_last = 0;
};

struct PackedAccess;

class PgsSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::pgs; }
  bool solves_bilateral_rows_exactly() const override { return true; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;
  /// How the last solve's sweeps visited the parts' units (batches only for a layout that held).
  const UnitBatches& batches() const { return batches_; }
  /// Keeps the packed Jacobians, the groups' factors and the equality block's factorisation.
  void solve_again(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                   SolveStats& stats) override;

 private:
  /// Packs the rows (PackedRow, all but the bias), zeroes their responses on bodies that do not
  /// move, factors the equality block and assembles the groups' matrices; finds the structure
  /// again unless the layout is the last solve's.
  void prepare(RowStore& rows, std::span<const SolverBodyMass> masses, TaskPool* pool);
  /// The structure of the solve that follows from the layout (RowLayout): the groups, the
  /// equality block's rows among them, how each row is visited, the friction runs, the schedule.
  void find_structure(const RowStore& rows, TaskPool* pool);
  /// How a sweep visits row i (row_visit), once the groups and the equality block are known.
  std::uint8_t visit_of(const RowStore& rows, std::size_t i) const;
  /// Sweeps from the velocities given; the rows' lambda is the warm start.
  void iterate(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
               SolveStats& stats);
  void iterate_shuffled(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                        SolveStats& stats);
  /// Solves the equality block for the velocities' errors and applies the change; returns the
  /// largest impulse change (0 without a block).
  Real visit_equalities(RowStore& rows, const PackedAccess& access, Real sor);
  /// Copies the velocities into the lanes below and the rows' biases into the packed rows: both
  /// change between solve and solve_again.
  void pack_solve_inputs(const RowStore& rows, std::span<const BodyVelocity> v, TaskPool* pool);
  /// Copies the packed velocities back.
  void unpack(std::span<BodyVelocity> v) const;
  /// Marks the friction rows visited as runs (row_visit::friction_run, pgs_solver.cpp).
  void find_friction_runs(const RowStore& rows);
  /// Finds the groups (below): which rows, not their matrices.
  void find_groups(const RowStore& rows);
  /// A group's matrices (RowGroup) from its packed rows.
  void assemble_group(const RowStore& rows, RowGroup& group) const;

  // Kept from solve to solve: no allocation once warmed up.
  RowOrder order_;
  std::vector<PackedRow> packed_;
  std::vector<Lanes> velocity_;  // 2 per body: linear, angular
  std::vector<RowGroup> groups_;
  std::vector<std::uint32_t> group_of_;    // per row: its group, k_no_row_group or k_row_in_block
  std::vector<std::uint8_t> visits_;       // per row: row_visit (pgs_solver.cpp), then one "none"
  std::vector<RunCoupling> run_coupling_;  // per row of a friction run but its first
  SweepSchedule schedule_;
  UnitBatches batches_;             // the schedule's parts as a sweep visits them
  RowLayout layout_;                // the structure above is kept while it holds
  struct alignas(64) MemberDelta {  // a cache line each: the members write theirs at once
    Real value = 0;
  };
  std::vector<MemberDelta> member_delta_;  // per thread of a sweep: its largest impulse change
  PhasedWork work_;
  EqualityBlock equalities_;  // solved after each sweep, when prepared
  bool direct_ = false;
  std::vector<double> block_error_, block_delta_;
};

}  // namespace impulse
