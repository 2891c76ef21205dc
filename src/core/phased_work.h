#pragma once
// Work in phases shared by the members of one TaskPool::run_team: phase p has a number of items,
// each done once by whichever member claims it; a member moves on to phase p + 1 once every item
// of phase p is done. No member waits for another to arrive, only for claimed items to finish,
// so a member whose core was taken (a busy machine, a virtual CPU descheduled) holds up only the
// item it holds, and the others do the rest. The members of a pgs solve pass a few phases per
// sweep, hundreds a step: too often to sleep on a condition variable, so a waiting member spins
// briefly, then yields its core at every look.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "core/spin_wait.h"

namespace impulse {

class PhasedWork {
 public:
  /// Zeroes the counters of phases [0, phases); call before the team starts. Keeps its storage
  /// (no allocation once warmed up).
  void reset(std::size_t phases) {
    if (phases > capacity_) {
      counters_ = std::make_unique<Counters[]>(phases);
      capacity_ = phases;
    }
    for (std::size_t p = 0; p < phases; ++p) {
      counters_[p].claimed.store(0, std::memory_order_relaxed);
      counters_[p].done.store(0, std::memory_order_relaxed);
    }
  }

  /// Does items of phase `phase` (item(k) for each k it claims) until none is left, then waits
  /// until all `items` are done; what any item wrote is then visible to the caller.
  template <class Item>
  void run(std::size_t phase, std::size_t items, const Item& item) {
    Counters& c = counters_[phase];
    for (std::size_t k = c.claimed.fetch_add(1, std::memory_order_relaxed); k < items;
         k = c.claimed.fetch_add(1, std::memory_order_relaxed)) {
      item(k);
      c.done.fetch_add(1, std::memory_order_acq_rel);
    }
    wait(c, items);
  }

  /// As run, for at most 64 items, taking those still free from item `first` on (the member's
  /// own, whose data its cache holds from the last sweep), wrapping round to item 0.
  template <class Item>
  void run_preferring(std::size_t phase, std::size_t items, std::size_t first, const Item& item) {
    Counters& c = counters_[phase];
    for (std::size_t n = 0; n < items; ++n) {
      const std::size_t k = (first + n) % items;
      const std::size_t bit = std::size_t(1) << k;
      if (c.claimed.fetch_or(bit, std::memory_order_relaxed) & bit) continue;
      item(k);
      c.done.fetch_add(1, std::memory_order_acq_rel);
    }
    wait(c, items);
  }

  /// Claims the one item of phase `phase` (run_single) ahead of reaching it, for a member whose
  /// cache will hold what it reads; false if another member has it.
  bool claim_ahead(std::size_t phase) {
    return (counters_[phase].claimed.fetch_or(1, std::memory_order_relaxed) & 1) == 0;
  }

  /// A phase of one item, done by the member that claimed it ahead (`claimed`: the caller) or
  /// else by the first to arrive, so that a member that never arrives holds nothing up; the
  /// others wait for it.
  template <class Item>
  void run_single(std::size_t phase, bool claimed, const Item& item) {
    Counters& c = counters_[phase];
    if (claimed || claim_ahead(phase)) {
      item();
      c.done.store(1, std::memory_order_release);
    }
    wait(c, 1);
  }

 private:
  // A cache line each: a member claiming in one phase does not take the line another polls in
  // the phase before (docs/performance.md).
  struct alignas(64) Counters {
    // run: items claimed; run_preferring: a bit per item; run_single: bit 0
    std::atomic<std::size_t> claimed{0};
    std::atomic<std::size_t> done{0};
  };
  static void wait(const Counters& c, std::size_t items) {
    constexpr int k_spins = 4096;  // a few microseconds: an item on another member
    for (int spins = 0; c.done.load(std::memory_order_acquire) < items; ++spins) {
      if (spins >= k_spins)
        std::this_thread::yield();
      else
        relax();
    }
  }

  std::unique_ptr<Counters[]> counters_;
  std::size_t capacity_ = 0;
};

}  // namespace impulse
