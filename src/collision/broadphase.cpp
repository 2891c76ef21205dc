#include "collision/broadphase.h"

#include <algorithm>

namespace impulse {

namespace {

constexpr std::uint8_t k_still = 0;
constexpr std::uint8_t k_moved = 1;
constexpr std::uint8_t k_done = 2;  // moved, and its pairs were gathered this update

void push_pair(std::vector<ProxyPair>& out, std::uint64_t a, std::uint64_t b) {
  // Proxies sharing user data (parts of one body) never pair with each other.
  if (a != b) out.emplace_back(std::min(a, b), std::max(a, b));
}

// Sorting makes the order independent of insertion history; unique merges the pairs that
// proxies sharing user data produce.
void sort_unique(std::vector<ProxyPair>& out) {
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace

Broadphase::Broadphase(Real margin) : tree_(margin) {}

std::int32_t Broadphase::create_proxy(const AABB& tight, std::uint64_t user_data) {
  const std::int32_t proxy_id = tree_.create_proxy(tight, user_data);
  mark_moved(proxy_id);
  return proxy_id;
}

void Broadphase::destroy_proxy(std::int32_t proxy_id) {
  // The stale move-buffer entry is skipped by its state; a new proxy in this slot re-marks it.
  move_state_[proxy_id] = k_still;
  tree_.destroy_proxy(proxy_id);
}

void Broadphase::move_proxy(std::int32_t proxy_id, const AABB& tight, const Vec3& displacement,
                            Real turning) {
  if (tree_.move_proxy(proxy_id, tight, displacement, turning)) mark_moved(proxy_id);
}

void Broadphase::touch_proxy(std::int32_t proxy_id) {
  mark_moved(proxy_id);
}

void Broadphase::mark_moved(std::int32_t proxy_id) {
  if (move_state_.size() < static_cast<std::size_t>(tree_.node_capacity())) {
    move_state_.resize(tree_.node_capacity(), k_still);
  }
  if (move_state_[proxy_id] == k_moved) return;
  move_state_[proxy_id] = k_moved;
  move_buffer_.push_back(proxy_id);
}

void Broadphase::update_pairs(std::vector<ProxyPair>& out) {
  out.clear();
  for (const std::int32_t proxy_id : move_buffer_) {
    if (move_state_[proxy_id] != k_moved) continue;
    const std::uint64_t data = tree_.user_data(proxy_id);
    tree_.query(tree_.fat_aabb(proxy_id), [&](std::int32_t other) {
      // A pair of two moved proxies is reported once, by the proxy with the greater id.
      if (other == proxy_id || (move_state_[other] != k_still && other > proxy_id)) return true;
      push_pair(out, data, tree_.user_data(other));
      return true;
    });
    move_state_[proxy_id] = k_done;
  }
  for (const std::int32_t proxy_id : move_buffer_)
    move_state_[proxy_id] = k_still;
  move_buffer_.clear();
  sort_unique(out);
}

void Broadphase::all_pairs(std::vector<ProxyPair>& out) const {
  out.clear();
  tree_.for_each_proxy([&](std::int32_t proxy_id) {
    const std::uint64_t data = tree_.user_data(proxy_id);
    tree_.query(tree_.fat_aabb(proxy_id), [&](std::int32_t other) {
      if (other > proxy_id) push_pair(out, data, tree_.user_data(other));
      return true;
    });
  });
  sort_unique(out);
}

void Broadphase::brute_force_pairs(std::vector<ProxyPair>& out) const {
  out.clear();
  std::vector<std::int32_t> ids;
  tree_.for_each_proxy([&](std::int32_t proxy_id) { ids.push_back(proxy_id); });
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::size_t j = i + 1; j < ids.size(); ++j) {
      if (tree_.fat_aabb(ids[i]).overlaps(tree_.fat_aabb(ids[j]))) {
        push_pair(out, tree_.user_data(ids[i]), tree_.user_data(ids[j]));
      }
    }
  }
  sort_unique(out);
}

}  // namespace impulse
