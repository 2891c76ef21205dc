#pragma once
// Waiting a moment for another thread without sleeping (TaskPool, PhasedWork): a thread that
// sleeps on a condition variable takes tens of microseconds to wake, which the step's parallel
// loops, microseconds apart, cannot afford.

#include <chrono>

namespace impulse {

/// Tells the core this is a wait loop: on x86 `pause` leaves a hyperthread sibling the core.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// Spins until ready() holds or `limit` has passed; returns whether it holds.
template <class Ready>
bool spin_until(const Ready& ready, std::chrono::microseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (true) {
    for (int i = 0; i < 64; ++i) {  // the clock is read once per 64 looks
      if (ready()) return true;
      relax();
    }
    if (std::chrono::steady_clock::now() >= until) return ready();
  }
}

}  // namespace impulse
