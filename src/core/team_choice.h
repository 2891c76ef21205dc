#pragma once
// Whether a world's next step runs its loops on its pool's threads (a team) or on the calling
// thread alone, chosen from the steps' measured times (World::set_thread_use).
//
// The results are the same bits either way (task_pool.h), so the choice is about speed only, and
// only the host can make it: on one virtual machine passing a cache line to the other core took
// 73 ns in one hour and 450 to 540 in others (docs/performance.md); the ragdolls' steps took 0.7
// of one thread's time on two threads in the first, 1.4 times it in the others. So the choice
// starts on the team (what set_threads asked for) and tries both: blocks of steps in the other
// mode, the chosen one, the chosen one, the other (a steady trend in the step's time weighs on
// both alike), the first step of each block left out (it pays for moving the data to the other
// core's cache and for building the solver's batches again), then keeps the faster by a clear
// margin. It holds that choice for a while and tries again (a scene's work changes: a pile
// settles, bodies fall asleep), holding twice as long each time a trial confirms it by the same
// margin and no longer than the first time after a trial that could not tell the modes apart, so
// a wrong mode costs a few percent at most.

#include <array>
#include <cstddef>

namespace impulse {

class TeamChoice {
 public:
  /// Steps on the team before the first trial: a world's first steps build its caches.
  static constexpr std::size_t k_settle_steps = 8;
  /// A trial: this many blocks of this many steps, the other mode's first and last.
  static constexpr std::size_t k_block_steps = 4;
  static constexpr std::size_t k_trial_blocks = 4;
  static_assert(k_trial_blocks == 4, "two blocks a mode, the other's first and last");
  /// Steps held between trials: the first hold, and the longest it doubles to.
  static constexpr std::size_t k_first_hold = 64;
  static constexpr std::size_t k_longest_hold = 1024;
  /// The other mode is taken when its median step is shorter by this fraction.
  static constexpr double k_margin = 0.05;

  /// Whether the next step runs on the team.
  bool team() const;
  /// The step just taken, in the mode team() gave for it, took ms milliseconds.
  void record(double ms);
  /// Starts again from the team (the threads or their use changed).
  void reset() { *this = TeamChoice(); }

  /// The steps held after the last trial (0 before the first): twice the last hold, up to
  /// k_longest_hold, after a trial that found the chosen mode faster by k_margin, except the
  /// first; else k_first_hold.
  std::size_t hold() const { return hold_; }

 private:
  enum class Phase { settle, trial, hold };
  static constexpr std::size_t k_trial_steps = k_block_steps * k_trial_blocks;
  // Each mode's counted steps in a trial: its blocks but their first steps.
  static constexpr std::size_t k_samples = (k_trial_blocks / 2) * (k_block_steps - 1);
  using Samples = std::array<double, k_samples>;
  static double median(Samples samples);
  bool in_other_block() const;  // in a trial

  Phase phase_ = Phase::settle;
  std::size_t step_ = 0;  // steps taken in the phase
  bool chosen_team_ = true;
  std::size_t hold_ = 0;
  Samples chosen_ms_{}, other_ms_{};
  std::size_t chosen_count_ = 0, other_count_ = 0;
};

}  // namespace impulse
