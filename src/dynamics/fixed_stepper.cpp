#include <impulse/error.h>
#include <impulse/world.h>

#include <cmath>

namespace impulse {

int FixedStepper::advance(World& world, double frame_time) {
  if (!std::isfinite(frame_time) || frame_time < 0)
    throw InvalidArgument("frame time must be a finite number >= 0");
  const double dt = world.settings().timestep;
  accumulator_ += frame_time;
  int steps = 0;
  while (accumulator_ >= dt && steps < max_steps_) {
    world.step(static_cast<Real>(dt));
    accumulator_ -= dt;
    ++steps;
  }
  // Past the catch-up bound the remaining time is dropped: the world runs slow, it does not stall.
  if (steps == max_steps_ && accumulator_ >= dt) accumulator_ = std::fmod(accumulator_, dt);
  return steps;
}

double FixedStepper::alpha(const World& world) const {
  return accumulator_ / world.settings().timestep;
}

}  // namespace impulse
