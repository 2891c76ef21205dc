#pragma once
// The broadphase: an AabbTree of fat boxes plus a move buffer, producing candidate pairs of user
// data for the narrowphase (the move-buffer scheme of Box2D's b2BroadPhase).

#include "collision/aabb_tree.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace impulse {

/// A candidate pair of user data, first < second.
using ProxyPair = std::pair<std::uint64_t, std::uint64_t>;

class Broadphase {
 public:
  explicit Broadphase(Real margin = AabbTree::k_default_margin);

  /// Adds a proxy; it counts as moved until the next update_pairs.
  std::int32_t create_proxy(const AABB& tight, std::uint64_t user_data);
  /// Removes a proxy; pairs with it are the caller's to drop.
  void destroy_proxy(std::int32_t proxy_id);
  /// Updates the proxy's box (see AabbTree::move_proxy); marks it moved when its fat box changed.
  void move_proxy(std::int32_t proxy_id, const AABB& tight, const Vec3& displacement,
                  Real turning = 0);
  /// Marks a proxy moved without changing its box, so its pairs are reported again.
  void touch_proxy(std::int32_t proxy_id);

  /// Replaces out with the pairs whose fat boxes overlap and of which at least one proxy moved
  /// since the last call, each once as (min, max) user data, sorted; then clears the moved flags.
  /// Pairs of two unmoved proxies are not reported: their fat boxes are unchanged, so the caller
  /// still holds them from an earlier call and drops them once the fat boxes stop overlapping.
  void update_pairs(std::vector<ProxyPair>& out);
  /// Replaces out with every pair whose fat boxes overlap, found through the tree, sorted.
  void all_pairs(std::vector<ProxyPair>& out) const;
  /// The O(n^2) reference for all_pairs: every pair of proxies whose fat boxes overlap, sorted.
  void brute_force_pairs(std::vector<ProxyPair>& out) const;

  const AabbTree& tree() const { return tree_; }

 private:
  void mark_moved(std::int32_t proxy_id);

  AabbTree tree_;
  std::vector<std::int32_t> move_buffer_;  // reused every step: no steady-state allocation
  std::vector<std::uint8_t> move_state_;   // per proxy slot: k_still, k_moved or k_done
};

}  // namespace impulse
