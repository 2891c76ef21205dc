#include "history.h"

namespace impulse::testbed {

void Series::push(float value) {
  values_[std::size_t(next_)] = value;
  next_ = (next_ + 1) % capacity;
  if (count_ < capacity) ++count_;
}

void History::record(const World& world) {
  const StepStats& stats = world.last_step_stats();
  kinetic_energy.push(float(world.kinetic_energy()));
  potential_energy.push(float(world.potential_energy()));
  max_penetration.push(float(stats.max_penetration));
  max_joint_error.push(float(stats.max_joint_error));
  broadphase_ms.push(float(stats.broadphase_ms));
  narrowphase_ms.push(float(stats.narrowphase_ms));
  integrate_velocities_ms.push(float(stats.integrate_velocities_ms));
  solve_ms.push(float(stats.solve_ms));
  integrate_positions_ms.push(float(stats.integrate_positions_ms));
  residuals.assign(stats.solve.residuals.begin(), stats.solve.residuals.end());
}

void History::clear() {
  for (Series* s :
       {&kinetic_energy, &potential_energy, &max_penetration, &max_joint_error, &broadphase_ms,
        &narrowphase_ms, &integrate_velocities_ms, &solve_ms, &integrate_positions_ms})
    s->clear();
  residuals.clear();
}

}  // namespace impulse::testbed
