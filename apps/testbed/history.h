#pragma once
// The figures the plots show: a window of the last steps' energies, penetration, joint error and
// stage times, and the residuals of the last solve.

#include <impulse/world.h>

#include <array>
#include <vector>

namespace impulse::testbed {

/// The last `capacity` values of one figure, in a ring.
class Series {
 public:
  static constexpr int capacity = 300;
  void push(float value);
  void clear() { count_ = next_ = 0; }
  /// For ImGui::PlotLines: the values, how many, and the offset of the oldest.
  const float* data() const { return values_.data(); }
  int count() const { return count_; }
  int offset() const { return count_ < capacity ? 0 : next_; }
  float latest() const {
    return count_ == 0 ? 0 : values_[std::size_t((next_ + capacity - 1) % capacity)];
  }

 private:
  std::array<float, capacity> values_{};
  int count_ = 0;
  int next_ = 0;
};

struct History {
  Series kinetic_energy, potential_energy;           // J
  Series max_penetration;                            // m
  Series max_joint_error;                            // m
  std::array<Series, StageTimes::k_count> stage_ms;  // in StageTimes::names' order
  std::vector<float> residuals;                      // of the last solve, one per iteration

  /// Adds the figures of the step just taken.
  void record(const World& world);
  void clear();
};

}  // namespace impulse::testbed
