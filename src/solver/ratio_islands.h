#pragma once
// Small islands whose bodies' masses differ widely, solved exactly after the sweeps of pgs and of
// the block solver. Gauss-Seidel passes a load through a light body between a heavy one and the
// ground slowly: the error left after a sweep is m_heavy / (m_heavy + m_light) of the one before,
// so a 1000 kg box on a 1 kg box keeps 99% of its fall after ten sweeps, sinks into the light box,
// and the warm-started impulses overshoot and throw both (Bullet's sequential impulses crush it
// too; the block solver's visits of a manifold's rows together too). Measured with ten sweeps: a
// unit box 20 times heavier than the four unit boxes of the column under it sags 13 mm; 30 times
// heavier, the column falls. So where a contact's or a limit's row (one-sided, or friction) joins
// two moving bodies whose masses differ by more than k_mass_ratio, the rows of their island (the
// rows joined to that row through moving bodies; static and kinematic bodies end it) are solved as
// one MLCP by the direct solver (dense_mlcp.h), from the sweeps' velocities and impulses: the
// island's exact impulses, friction included. Islands of more than k_max_rows rows stay with the
// sweeps: the direct solve costs O(k^3) a pivot.
//
// A light body may carry a heavy load without touching a heavy body: 1, 10 and 100 kg boxes stacked
// in that order differ only tenfold at each contact, but the 1 kg box carries 110 kg, and the
// sweeps pass that load through it as slowly as a 110 kg box's (the stack bounced off the ground
// and fell within 5 s). So a contact (a block's one-sided rows that are not friction) whose
// warm-start impulses carry more than k_mass_ratio times the lighter moving body's own weight
// marks its island as well; its other body may be static (a 1 kg capsule held to the world by a
// six_dof's limits, carrying 40 kg of chain, let its joints come 1.2 m apart).

#include "constraints/rows.h"
#include "core/island_sets.h"
#include "solver/exact_block.h"
#include "solver/solver.h"

#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

class RatioIslands {
 public:
  /// Above this ratio of two moving bodies' masses a one-sided row marks its island.
  static constexpr Real k_mass_ratio = 20;
  /// The most rows of an island solved directly.
  static constexpr std::size_t k_max_rows = 128;

  /// Finds the islands of the prepared rows and assembles their matrices; gravity_dv is |g| dt
  /// (SolverBodies), 0 for no load test. Costs a pass over the bodies' masses when no two differ
  /// that much, and one over the rows when no row marks an island.
  void find(const RowStore& rows, std::span<const SolverBodyMass> masses, Real gravity_dv);
  /// The islands found small enough to be solved directly, and how many were too large.
  std::size_t size() const { return count_; }
  std::size_t too_large() const { return too_large_; }
  /// Solves each island exactly from the velocities and impulses given (the sweeps'); the direct
  /// solver's failures keep the sweeps' result. again: the relax solve, continuing from the
  /// velocities this solve left; it skips an island that was solved and none of whose rows had a
  /// position bias to drop: its problem is the one solved before, and the sweeps left that
  /// solution as it was. An island whose exact change would give its bodies more kinetic energy
  /// than their mass has at settings.max_push_speed (the contacts' push-out cap) keeps the sweeps'
  /// result (ExactBlock::solve). The bound is on the island's whole moving mass: a light body in
  /// it may still gain speed. The counts go into stats (ratio_islands_solved, ratio_islands_left),
  /// untouched where none were found; where one was solved and the settings measure the final
  /// figures (measures_residuals), those are measured again (with b_norm, the sweeps' |b|): they
  /// were the sweeps' last iteration's.
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings, bool again,
             Real b_norm, SolveStats& stats);

 private:
  struct Island {
    ExactBlockPool::Handle block;  // of pool_
    bool position_bias = false;    // whether a row of it has one (RowStore::position_bias)
    bool solved = false;           // by the last solve
  };
  std::vector<Island> islands_;  // the first count_ are this solve's
  ExactBlockPool pool_;
  std::size_t count_ = 0, too_large_ = 0;
  IslandSets sets_;
  // find's scratch: per body its inverse mass, whether it moves (a body of infinite mass may
  // still turn) and its island (or none); per row whether it marks one; per island its rows.
  std::vector<Real> inv_mass_;
  std::vector<std::uint8_t> moves_;
  std::vector<std::uint8_t> marks_;  // per row: whether it marks its island
  std::vector<std::uint32_t> island_of_;
  std::vector<std::vector<std::uint32_t>> island_rows_;
};

}  // namespace impulse
