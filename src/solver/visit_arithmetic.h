#pragma once
// The arithmetic a pgs visit does on one unit (Real, pgs_solver.cpp) and on four units in lanes
// (Lanes, UnitBatches), written once: the batches must give the bits of the visits one at a time,
// and two copies of a formula could drift apart.

#include "core/lanes.h"

namespace impulse {

/// min(max(x, lo), hi), as libstdc++'s std::clamp computes it (hi where hi < lo, lo's or x's NaN
/// as max and min pass them on), spelled out so that the lanes' form and the scalar one agree
/// whatever the standard library does.
template <class V>
[[gnu::always_inline]] inline V clamped(const V& x, const V& lo, const V& hi) {
  const V raised = x < lo ? lo : x;
  return hi < raised ? hi : raised;
}

/// A friction row's impulse before clamping, from the velocities its visit starts from:
/// lambda - (J v - bias) step, step being sor over the row's effective mass.
template <class V>
[[gnu::always_inline]] inline V unclamped_impulse(const V& lambda, const V& velocity, const V& bias,
                                                  const V& step) {
  return lambda - (velocity - bias) * step;
}

/// A friction run's row (visit_friction_run): its unclamped impulse u, found from the velocities
/// before the run's two rows ahead of it changed, corrected by their changes through the rows'
/// couplings, then clamped to the row's bounds.
template <class V>
[[gnu::always_inline]] inline V run_row_impulse(const V& u, const V& step, const V& before_last,
                                                const V& last, const V& delta_before,
                                                const V& delta_last, const V& lo, const V& hi) {
  const V early = u - step * before_last * delta_before;
  return clamped(early - step * last * delta_last, lo, hi);
}

/// A group row's next impulse: over-relaxed by sor from before toward target, clamped to lo = 0
/// (hi is infinite for every groupable row).
[[gnu::always_inline]] inline Lanes relaxed_impulse(const Lanes& before, const Lanes& target,
                                                    const Lanes& sor) {
  const Lanes relaxed = before + sor * (target - before);
  return relaxed < Lanes{} ? Lanes{} : relaxed;
}

}  // namespace impulse
