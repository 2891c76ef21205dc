#pragma once
// A static bounding-volume tree over a fixed set of boxes (a mesh's triangles), built once top-down
// with the binned surface-area heuristic (Wald 2007, "On fast construction of SAH-based bounding
// volume hierarchies"). Nodes sit in one flat array in depth-first order, so a node's left child
// is the next node; queries walk it with a fixed stack and allocate nothing.

#include <impulse/math/aabb.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "collision/aabb_tree.h"

namespace impulse {

class MeshTree {
 public:
  /// At most this many items per leaf.
  static constexpr std::uint32_t k_leaf_size = 4;
  /// Below this depth splits follow the SAH; deeper ones halve the item count, so a tree over
  /// fewer than 2^31 items is under k_max_height levels whatever the boxes.
  static constexpr int k_sah_depth = 32;
  static constexpr int k_max_height = k_sah_depth + 31;

  MeshTree() = default;
  /// Builds the tree over boxes; item i is boxes[i]. boxes must not be empty.
  explicit MeshTree(std::span<const AABB> boxes);

  /// Calls visit(item) for each item whose box overlaps box; a false return stops.
  template <class F>
  void query(const AABB& box, F&& visit) const;

  /// Calls visit(item) for each item whose box the segment origin + t * direction, t in
  /// [0, max_fraction], enters, nearer subtrees first. visit returns the new max fraction: the
  /// current one to go on, a smaller one to clip (closest hit), 0 to stop.
  template <class F>
  void raycast(const Ray& ray, Real max_fraction, F&& visit) const;

  const AABB& bounds() const { return nodes_.front().box; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  /// Levels below the root (0 when the root is a leaf).
  int height() const { return height_; }

 private:
  struct Node {
    AABB box;
    std::uint32_t index = 0;  // internal: the right child; leaf: the first of its items_
    std::uint32_t count = 0;  // items in a leaf; 0 for an internal node
    bool is_leaf() const { return count > 0; }
  };
  static_assert(sizeof(Node) == 6 * sizeof(Real) + 8, "32 bytes with float");

  // A depth-first walk keeps at most one pending sibling per level.
  static constexpr int k_stack_size = k_max_height + 1;

  void build(std::span<const AABB> boxes, std::span<const Vec3> centroids, std::uint32_t first,
             std::uint32_t count, int depth);

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> items_;  // leaves' items, each leaf's contiguous
  std::vector<AABB> item_boxes_;      // the box of items_[k], beside it for the leaf tests
  int height_ = 0;
};

template <class F>
void MeshTree::query(const AABB& box, F&& visit) const {
  std::array<std::uint32_t, k_stack_size> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const std::uint32_t index = stack[--top];
    const Node& node = nodes_[index];
    if (!node.box.overlaps(box)) continue;
    if (node.is_leaf()) {
      for (std::uint32_t k = node.index; k < node.index + node.count; ++k) {
        if (item_boxes_[k].overlaps(box) && !visit(items_[k])) return;
      }
    } else {
      stack[top++] = node.index;
      stack[top++] = index + 1;
    }
  }
}

template <class F>
void MeshTree::raycast(const Ray& ray, Real max_fraction, F&& visit) const {
  std::array<std::uint32_t, k_stack_size> stack;
  int top = 0;
  if (ray.entry_fraction(nodes_.front().box, max_fraction) >= 0) stack[top++] = 0;
  while (top > 0) {
    const std::uint32_t index = stack[--top];
    const Node& node = nodes_[index];
    // A node pushed earlier may lie beyond a hit found since.
    if (ray.entry_fraction(node.box, max_fraction) < 0) continue;
    if (node.is_leaf()) {
      for (std::uint32_t k = node.index; k < node.index + node.count; ++k) {
        if (ray.entry_fraction(item_boxes_[k], max_fraction) < 0) continue;
        max_fraction = visit(items_[k]);
        if (max_fraction == 0) return;
      }
      continue;
    }
    const std::uint32_t left = index + 1;
    const std::uint32_t right = node.index;
    const Real t_left = ray.entry_fraction(nodes_[left].box, max_fraction);
    const Real t_right = ray.entry_fraction(nodes_[right].box, max_fraction);
    // Push the farther child first so that the nearer one is walked first and clips the other.
    const bool left_first = t_right < 0 || (t_left >= 0 && t_left <= t_right);
    const std::uint32_t near = left_first ? left : right;
    const std::uint32_t far = left_first ? right : left;
    const Real t_far = left_first ? t_right : t_left;
    if (t_far >= 0) stack[top++] = far;
    if ((left_first ? t_left : t_right) >= 0) stack[top++] = near;
  }
}

}  // namespace impulse
