#include "solver/ratio_islands.h"

#include "solver/residual.h"

#include <algorithm>
#include <limits>

namespace impulse {
namespace {

constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();

}  // namespace

void RatioIslands::find(const RowStore& rows, SolverBodies bodies) {
  count_ = too_large_ = 0;
  const std::span<const SolverBodyMass> masses = bodies.masses;
  // No two bodies' masses differ that much (the benchmark scenes): no row need be looked at.
  Real lightest = 0, heaviest = std::numeric_limits<Real>::infinity();  // as inverse masses
  for (const SolverBodyMass& mass : masses) {
    if (mass.inv_mass <= 0) continue;
    lightest = std::max(lightest, mass.inv_mass);
    heaviest = std::min(heaviest, mass.inv_mass);
  }
  if (!(lightest > k_uneven_ratio * heaviest)) return;
  const bool wide = lightest > k_mass_ratio * heaviest;
  inv_mass_.resize(masses.size());
  moves_.resize(masses.size());
  for (std::size_t k = 0; k < masses.size(); ++k) {
    inv_mass_[k] = masses[k].inv_mass;
    moves_[k] = masses[k].movable() ? 1 : 0;
  }
  // A contact's or a limit's one-sided row (a contact's normal, a limit; its friction rows join
  // the same bodies) between such masses. Joints' equality rows are solved exactly by the
  // equality block, and a motor's (bounded both ways) follows them: a 1000 kg car on 20 kg wheels
  // drives the same without its island solved, at a sixth the cost. Or a block's one-sided rows
  // carrying more than k_mass_ratio times the lighter moving body's weight (their warm start, the
  // last step's load) where two masses differ that much, the other body moving or not; or
  // k_uneven_load times between moving bodies whose masses differ by more than k_uneven_ratio,
  // both at rest (at the last step's end: moving at most twice gravity's step now). A column
  // leans from rest; a box landing on a light one strikes it with 34 to 71 times its weight.
  const Real gravity_dv = bodies.gravity_dv;
  const auto resting = [&](std::uint32_t body) {
    return length_squared(bodies.velocities[body].linear) < 4 * gravity_dv * gravity_dv;
  };
  // The rows are visited in runs that join the same two bodies within a block (a manifold's, a
  // joint's), each run's masses looked at once, and only the runs that may mark row by row; the
  // islands are joined and gathered by runs: a resting heap of ragdolls is one island too large
  // at every step, found anew: row by row that took 2.6% of its steps' samples, by runs 1.2%.
  const auto n = std::uint32_t(rows.size());
  marked_.clear();
  run_begin_.clear();
  for (std::size_t k = 0; k + 1 < rows.block_begin.size(); ++k) {
    const std::uint32_t block_end = rows.block_begin[k + 1];
    Real load = 0;
    for (std::uint32_t first = rows.block_begin[k]; first < block_end;) {
      const std::uint32_t body_a = rows.body_a[first], body_b = rows.body_b[first];
      std::uint32_t end = first + 1;
      while (end < block_end && rows.body_a[end] == body_a && rows.body_b[end] == body_b)
        ++end;
      run_begin_.push_back(first);
      const Real a = inv_mass_[body_a], b = inv_mass_[body_b];
      const Real light = std::max(a, b), heavy = std::min(a, b);
      const bool uneven = heavy > 0 && light > k_uneven_ratio * heavy;
      const bool uneven_resting = uneven && resting(body_a) && resting(body_b);
      for (std::uint32_t i = first; i < end && light > 0 && (wide || uneven); ++i) {
        if (!rows.one_sided(i)) continue;
        if (heavy > 0 && light > k_mass_ratio * heavy) {
          marked_.push_back(i);
        } else if (gravity_dv > 0) {
          load += rows.lambda[i];
          if ((wide && load * light > k_mass_ratio * gravity_dv) ||
              (uneven_resting && load * light > k_uneven_load * gravity_dv))
            marked_.push_back(i);
        }
      }
      first = end;
    }
  }
  if (marked_.empty()) return;
  run_begin_.push_back(n);
  const auto runs = run_begin_.size() - 1;
  sets_.reset(masses.size());
  for (std::size_t r = 0; r < runs; ++r) {
    const std::uint32_t i = run_begin_[r];
    if (moves_[rows.body_a[i]] && moves_[rows.body_b[i]])
      sets_.join(rows.body_a[i], rows.body_b[i]);
  }
  island_of_.assign(masses.size(), k_none);
  for (const std::uint32_t i : marked_) {
    const std::uint32_t body = moves_[rows.body_a[i]] ? rows.body_a[i] : rows.body_b[i];
    std::uint32_t& island = island_of_[sets_.find(body)];
    if (island != k_none) continue;
    island = std::uint32_t(count_++);
    if (island_rows_.size() < count_) island_rows_.resize(count_);
    island_rows_[island].clear();
  }
  for (std::size_t r = 0; r < runs; ++r) {
    const std::uint32_t first = run_begin_[r];
    const std::uint32_t body = moves_[rows.body_a[first]] ? rows.body_a[first] : rows.body_b[first];
    if (!moves_[body]) continue;
    std::vector<std::uint32_t>* island = nullptr;
    if (const std::uint32_t id = island_of_[sets_.find(body)]; id != k_none)
      island = &island_rows_[id];
    // Past k_max_rows an island is counted, not kept.
    for (std::uint32_t i = first; island && i < run_begin_[r + 1] && island->size() <= k_max_rows;
         ++i) {
      // A degenerate row (RowStore::prepare) is one the solvers leave alone; in the direct solve
      // its zero diagonal would fail the whole island.
      if (rows.inv_eff_mass[i] != 0) island->push_back(i);
    }
  }
  // The islands small enough, assembled, first.
  if (islands_.size() < count_) islands_.resize(count_);
  pool_.restart();
  std::size_t kept = 0;
  for (std::size_t k = 0; k < count_; ++k) {
    if (island_rows_[k].size() > k_max_rows) {
      ++too_large_;
      continue;
    }
    Island& island = islands_[kept++];
    island.block = pool_.take(std::uint32_t(island_rows_[k].size()));
    pool_[island.block].assemble(rows, island_rows_[k], masses);
    island.position_bias = std::any_of(island_rows_[k].begin(), island_rows_[k].end(),
                                       [&](std::uint32_t i) { return rows.position_bias[i] != 0; });
  }
  count_ = kept;
}

void RatioIslands::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                         bool again, Real b_norm, SolveStats& stats) {
  if (count_ + too_large_ == 0) return;
  std::size_t solved = 0;
  for (std::size_t k = 0; k < count_; ++k) {
    Island& island = islands_[k];
    if (!again || !island.solved || island.position_bias)
      island.solved =
          pool_[island.block].solve(rows, bodies.velocities, 1, settings.max_push_speed);
    solved += island.solved ? 1 : 0;
  }
  stats.ratio_islands_solved = solved;
  stats.ratio_islands_left = count_ - solved + too_large_;
  if (solved > 0 && measures_residuals(settings))
    record_final_figures(measure_residual(rows, bodies.velocities, b_norm, bodies.pool), stats);
}

}  // namespace impulse
