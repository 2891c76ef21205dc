#include "collision/mesh_tree.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace impulse {
namespace {

// Centroids are sorted into this many equal slabs along the split axis; 16 is as good as a full
// sweep for meshes in Wald's measurements.
constexpr int k_bins = 16;

int largest_axis(const Vec3& extent) {
  return extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
}

}  // namespace

MeshTree::MeshTree(std::span<const AABB> boxes) {
  std::vector<Vec3> centroids(boxes.size());
  std::transform(boxes.begin(), boxes.end(), centroids.begin(),
                 [](const AABB& b) { return b.center(); });
  items_.resize(boxes.size());
  std::iota(items_.begin(), items_.end(), std::uint32_t(0));
  nodes_.reserve(2 * boxes.size());
  build(boxes, centroids, 0, std::uint32_t(boxes.size()), 0);
  item_boxes_.reserve(items_.size());
  for (const std::uint32_t item : items_)
    item_boxes_.push_back(boxes[item]);
}

void MeshTree::build(std::span<const AABB> boxes, std::span<const Vec3> centroids,
                     std::uint32_t first, std::uint32_t count, int depth) {
  const auto node = std::uint32_t(nodes_.size());
  nodes_.emplace_back();
  height_ = std::max(height_, depth);
  const auto begin = items_.begin() + first;
  const auto end = begin + count;
  AABB box, centroid_box;
  for (auto it = begin; it != end; ++it) {
    box = merge(box, boxes[*it]);
    centroid_box.include(centroids[*it]);
  }
  nodes_[node].box = box;
  if (count <= k_leaf_size) {
    nodes_[node].index = first;
    nodes_[node].count = count;
    return;
  }

  const int axis = largest_axis(centroid_box.upper - centroid_box.lower);
  const Real lo = centroid_box.lower[axis];
  const Real extent = centroid_box.upper[axis] - lo;
  auto middle = begin + count / 2;
  if (depth < k_sah_depth && extent > 0) {
    const Real scale = Real(k_bins) / extent;
    const auto bin_of = [&](std::uint32_t item) {
      return std::min(int((centroids[item][axis] - lo) * scale), k_bins - 1);
    };
    std::array<AABB, k_bins> bin_boxes;
    std::array<std::uint32_t, k_bins> bin_counts{};
    for (auto it = begin; it != end; ++it) {
      const int b = bin_of(*it);
      bin_boxes[b] = merge(bin_boxes[b], boxes[*it]);
      ++bin_counts[b];
    }
    // Cost of splitting after bin s: items times half-area on each side (the SAH up to
    // constants). The first and last bins hold the extreme centroids, so some split is valid.
    std::array<double, k_bins - 1> right_cost{};
    AABB right;
    std::uint32_t right_count = 0;
    for (int s = k_bins - 1; s > 0; --s) {
      right = merge(right, bin_boxes[s]);
      right_count += bin_counts[s];
      right_cost[s - 1] = right_count > 0 ? double(right_count) * right.half_area()
                                          : std::numeric_limits<double>::infinity();
    }
    AABB left;
    std::uint32_t left_count = 0;
    int best = 0;
    double best_cost = std::numeric_limits<double>::infinity();
    for (int s = 0; s < k_bins - 1; ++s) {
      left = merge(left, bin_boxes[s]);
      left_count += bin_counts[s];
      if (left_count == 0 || left_count == count) continue;
      const double cost = double(left_count) * left.half_area() + right_cost[s];
      if (cost < best_cost) {
        best_cost = cost;
        best = s;
      }
    }
    middle = std::partition(begin, end, [&](std::uint32_t item) { return bin_of(item) <= best; });
  } else {
    // Deep or coincident centroids: halve the count so the height stays bounded.
    std::nth_element(begin, middle, end, [&](std::uint32_t i, std::uint32_t j) {
      return centroids[i][axis] < centroids[j][axis];
    });
  }
  const auto left_count = std::uint32_t(middle - begin);
  build(boxes, centroids, first, left_count, depth + 1);
  nodes_[node].index = std::uint32_t(nodes_.size());
  build(boxes, centroids, first + left_count, count - left_count, depth + 1);
}

}  // namespace impulse
