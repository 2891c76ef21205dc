#pragma once
// A barrier for the members of one TaskPool::run_team: the members of a solve meet at it a few
// times per sweep, hundreds of times a step, too often to sleep on a condition variable every time.
// It spins briefly and then yields its core at every look, so a member whose partner lost its core
// to another process lets it back on. (Sleeping on the atomic itself, std::atomic::wait, lost a
// wake-up here with GCC 12's library and hung a two-thread run.)

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace impulse {

class SpinBarrier {
 public:
  explicit SpinBarrier(std::size_t members) : members_(members) {}
  /// Returns once all members have arrived; what each wrote before arriving is visible to all
  /// after.
  void arrive_and_wait() {
    if (members_ == 1) return;
    const std::uint32_t phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == members_) {
      arrived_.store(0, std::memory_order_relaxed);  // nobody arrives again before the release
      phase_.store(phase + 1, std::memory_order_release);
      return;
    }
    constexpr int k_spins = 4096;  // a few microseconds: a colour's work on the other thread
    for (int spins = 0; phase_.load(std::memory_order_acquire) == phase; ++spins) {
      if (spins >= k_spins) std::this_thread::yield();
    }
  }

 private:
  const std::size_t members_;
  std::atomic<std::size_t> arrived_{0};
  std::atomic<std::uint32_t> phase_{0};
};

}  // namespace impulse
