#include <impulse/stats.h>

namespace impulse {

StageTimes StageTimes::of(const StepStats& stats) {
  return {{stats.broadphase_ms, stats.narrowphase_ms, stats.integrate_velocities_ms, stats.rows_ms,
           stats.solver_ms, stats.relax_ms, stats.store_ms, stats.integrate_positions_ms}};
}

StageTimes& StageTimes::operator+=(const StageTimes& other) {
  for (std::size_t k = 0; k < k_count; ++k)
    ms[k] += other.ms[k];
  return *this;
}

StageTimes StageTimes::operator/(double n) const {
  StageTimes out;
  for (std::size_t k = 0; k < k_count; ++k)
    out.ms[k] = ms[k] / n;
  return out;
}

}  // namespace impulse
