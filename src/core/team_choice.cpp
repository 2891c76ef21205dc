#include "core/team_choice.h"

#include <algorithm>

namespace impulse {

bool TeamChoice::team() const {
  return phase_ == Phase::trial && in_other_block() ? !chosen_team_ : chosen_team_;
}

// The other mode's blocks come first and last, the chosen mode's between them: a step time that
// grows or shrinks steadily through the trial (a pile landing) weighs on both alike.
bool TeamChoice::in_other_block() const {
  const std::size_t block = step_ / k_block_steps;
  return block == 0 || block + 1 == k_trial_blocks;
}

void TeamChoice::record(double ms) {
  switch (phase_) {
    case Phase::settle:
    case Phase::hold:
      if (++step_ < (phase_ == Phase::settle ? k_settle_steps : hold_)) return;
      phase_ = Phase::trial;
      step_ = 0;
      chosen_count_ = other_count_ = 0;
      return;
    case Phase::trial:
      break;
  }
  if (step_ % k_block_steps != 0) {
    if (in_other_block())
      other_ms_[other_count_++] = ms;
    else
      chosen_ms_[chosen_count_++] = ms;
  }
  if (++step_ < k_trial_steps) return;
  const double chosen = median(chosen_ms_), other = median(other_ms_);
  const bool flip = other < (1 - k_margin) * chosen;
  // Only a trial that finds the choice faster by the margin holds it longer. One that cannot tell
  // the modes apart tries again after a first hold: a landing pile's steps vary more than the
  // modes differ, and its team, 3% slower in such a trial, was held 256 steps more in which the
  // calling thread alone took 14% less.
  const bool confirmed = chosen < (1 - k_margin) * other;
  chosen_team_ = chosen_team_ != flip;
  hold_ = confirmed && hold_ > 0 ? std::min(2 * hold_, k_longest_hold) : k_first_hold;
  phase_ = Phase::hold;
  step_ = 0;
}

double TeamChoice::median(Samples samples) {
  const auto middle = samples.begin() + std::ptrdiff_t(samples.size() / 2);
  std::nth_element(samples.begin(), middle, samples.end());
  if (samples.size() % 2 != 0) return *middle;
  return 0.5 * (*middle + *std::max_element(samples.begin(), middle));
}

}  // namespace impulse
