#pragma once
// The order in which Gauss-Seidel visits rows or blocks: as stored, or shuffled every iteration by
// a generator seeded from the problem size alone, so the same problem gives the same order on
// every run and machine (seed 003: a shuffled order breaks the bias of a fixed one).

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace impulse {

class RowOrder {
 public:
  RowOrder() = default;
  RowOrder(std::size_t count, bool shuffle) { reset(count, shuffle); }
  /// Starts the orders of a new solve of count rows or blocks; keeps the buffer, so a solver that
  /// holds its RowOrder allocates nothing once warmed up.
  void reset(std::size_t count, bool shuffle) {
    order_.resize(count);
    std::iota(order_.begin(), order_.end(), std::uint32_t(0));
    shuffle_ = shuffle;
    rng_.seed(0x5eed0000u + count);
  }
  /// The visiting order of the next iteration.
  const std::vector<std::uint32_t>& next() {
    if (shuffle_) std::shuffle(order_.begin(), order_.end(), rng_);
    return order_;
  }

 private:
  std::vector<std::uint32_t> order_;
  bool shuffle_ = false;
  std::mt19937 rng_;
};

}  // namespace impulse
