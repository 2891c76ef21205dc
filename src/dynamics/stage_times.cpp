#include <impulse/stats.h>

namespace impulse {

StageTimes StageTimes::of(const StepStats& stats) {
  return {stats.broadphase_ms,
          stats.narrowphase_ms,
          stats.integrate_velocities_ms,
          stats.rows_ms,
          stats.solver_ms,
          stats.relax_ms,
          stats.store_ms,
          stats.integrate_positions_ms};
}

std::array<std::pair<const char*, double>, StageTimes::k_count> StageTimes::named() const {
  return {{{"broadphase", broadphase},
           {"narrowphase", narrowphase},
           {"integrate_velocities", integrate_velocities},
           {"rows", rows},
           {"solver", solver},
           {"relax", relax},
           {"store", store},
           {"integrate_positions", integrate_positions}}};
}

StageTimes& StageTimes::operator+=(const StageTimes& other) {
  broadphase += other.broadphase;
  narrowphase += other.narrowphase;
  integrate_velocities += other.integrate_velocities;
  rows += other.rows;
  solver += other.solver;
  relax += other.relax;
  store += other.store;
  integrate_positions += other.integrate_positions;
  return *this;
}

StageTimes StageTimes::operator/(double n) const {
  return {broadphase / n, narrowphase / n, integrate_velocities / n, rows / n, solver / n,
          relax / n,      store / n,       integrate_positions / n};
}

}  // namespace impulse
