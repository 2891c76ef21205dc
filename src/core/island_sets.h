#pragma once
// Union-find over indices (path halving): a world's islands over its body slots, the equality
// block's components over its rows. The smaller index becomes the root, so a set's root is its
// smallest member whatever the order in which its joins were seen.

#include <cstdint>
#include <numeric>
#include <vector>

namespace impulse {

class IslandSets {
 public:
  /// n singletons; keeps the capacity (no allocation once warmed up).
  void reset(std::size_t n) {
    parent_.resize(n);
    std::iota(parent_.begin(), parent_.end(), std::uint32_t(0));
  }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x)
      x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a < b) parent_[b] = a;
    if (b < a) parent_[a] = b;
  }

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace impulse
