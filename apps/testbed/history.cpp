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
  const StageTimes stages = StageTimes::of(stats);
  for (std::size_t k = 0; k < StageTimes::k_count; ++k)
    stage_ms[k].push(float(stages.ms[k]));
  residuals.assign(stats.solve.residuals.begin(), stats.solve.residuals.end());
}

void History::clear() {
  for (Series* s : {&kinetic_energy, &potential_energy, &max_penetration, &max_joint_error})
    s->clear();
  for (Series& s : stage_ms)
    s.clear();
  residuals.clear();
}

}  // namespace impulse::testbed
