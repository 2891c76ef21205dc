#include "solver/ratio_islands.h"

#include "solver/residual.h"

#include <algorithm>
#include <limits>

namespace impulse {
namespace {

constexpr std::uint32_t k_none = std::numeric_limits<std::uint32_t>::max();

}  // namespace

void RatioIslands::find(const RowStore& rows, std::span<const SolverBodyMass> masses,
                        Real gravity_dv) {
  count_ = too_large_ = 0;
  // No two bodies' masses differ that much (the benchmark scenes, the ragdolls): no row need be
  // looked at.
  Real lightest = 0, heaviest = std::numeric_limits<Real>::infinity();  // as inverse masses
  for (const SolverBodyMass& mass : masses) {
    if (mass.inv_mass <= 0) continue;
    lightest = std::max(lightest, mass.inv_mass);
    heaviest = std::min(heaviest, mass.inv_mass);
  }
  if (!(lightest > k_mass_ratio * heaviest)) return;
  inv_mass_.resize(masses.size());
  moves_.resize(masses.size());
  for (std::size_t k = 0; k < masses.size(); ++k) {
    inv_mass_[k] = masses[k].inv_mass;
    moves_[k] = masses[k].movable() ? 1 : 0;
  }
  // A contact's or a limit's row (one-sided, or friction) between such masses. Joints' equality
  // rows are solved exactly by the equality block, and a motor's (bounded both ways) follows them:
  // a 1000 kg car on 20 kg wheels drives the same without its island solved, at a sixth the cost.
  // Or a block's one-sided rows that are not friction (a contact's normals, a limit) carrying more
  // than k_mass_ratio times the lighter moving body's weight (its warm start, the last step's
  // load), the other body moving or not.
  const auto n = std::uint32_t(rows.size());
  marks_.assign(n, 0);
  bool any = false;
  for (std::size_t k = 0; k + 1 < rows.block_begin.size(); ++k) {
    Real load = 0;
    for (std::uint32_t i = rows.block_begin[k]; i < rows.block_begin[k + 1]; ++i) {
      const Real a = inv_mass_[rows.body_a[i]], b = inv_mass_[rows.body_b[i]];
      const bool friction = rows.normal_row[i] >= 0;
      const bool contact_or_limit = friction || rows.one_sided(i);
      const Real light = std::max(a, b);
      if (!contact_or_limit || light <= 0) continue;
      if (std::min(a, b) > 0 && light > k_mass_ratio * std::min(a, b)) {
        marks_[i] = 1;
      } else if (!friction && gravity_dv > 0) {
        load += rows.lambda[i];
        if (load * light > k_mass_ratio * gravity_dv) marks_[i] = 1;
      }
      any = any || marks_[i];
    }
  }
  if (!any) return;
  const auto first = std::uint32_t(std::find(marks_.begin(), marks_.end(), 1) - marks_.begin());
  sets_.reset(masses.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (moves_[rows.body_a[i]] && moves_[rows.body_b[i]])
      sets_.join(rows.body_a[i], rows.body_b[i]);
  }
  island_of_.assign(masses.size(), k_none);
  for (std::uint32_t i = first; i < n; ++i) {
    if (!marks_[i]) continue;
    const std::uint32_t body = moves_[rows.body_a[i]] ? rows.body_a[i] : rows.body_b[i];
    std::uint32_t& island = island_of_[sets_.find(body)];
    if (island != k_none) continue;
    island = std::uint32_t(count_++);
    if (island_rows_.size() < count_) island_rows_.resize(count_);
    island_rows_[island].clear();
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t body = moves_[rows.body_a[i]] ? rows.body_a[i] : rows.body_b[i];
    if (!moves_[body]) continue;
    const std::uint32_t island = island_of_[sets_.find(body)];
    // A degenerate row (RowStore::prepare) is one the solvers leave alone; in the direct solve
    // its zero diagonal would fail the whole island.
    if (island == k_none || rows.inv_eff_mass[i] == 0) continue;
    // Past k_max_rows an island is counted, not kept.
    if (island_rows_[island].size() <= k_max_rows) island_rows_[island].push_back(i);
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
