#pragma once
// A dynamic AABB tree for the broadphase (as in Box2D's b2DynamicTree and Bullet's btDbvt): leaves
// hold fat boxes, insertion descends by the surface-area heuristic, and rotations keep the height
// O(log n) and the surface area low. Nodes live in one pooled vector with a free list.

#include <impulse/math/aabb.h>

#include <array>
#include <cstdint>
#include <vector>

namespace impulse {

/// A segment origin + t * direction for t in [0, max_fraction], with its slab-test data.
struct Ray {
  Ray(const Vec3& origin_, const Vec3& direction_);

  /// Where the segment [0, max_fraction] enters box: the fraction (0 when origin is inside, -1
  /// on a miss) and the axis of the face it crosses (-1 when it starts inside or misses).
  struct Entry {
    Real fraction;
    int axis;
  };
  /// The slab test (Kay and Kajiya); the box raycast reads the entry axis for its normal.
  Entry enter(const AABB& box, Real max_fraction) const;
  /// The fraction at which the segment enters box (0 when origin is inside), or -1 when the
  /// segment [0, max_fraction] misses it.
  Real entry_fraction(const AABB& box, Real max_fraction) const {
    return enter(box, max_fraction).fraction;
  }

  Vec3 origin;
  Vec3 direction;
  Vec3 inv_direction;  // 1 / direction per axis; unused on axes where direction is 0
};

class AabbTree {
 public:
  static constexpr std::int32_t k_null = -1;
  static constexpr Real k_default_margin = Real(0.1);  // m

  /// margin (m) is how far a leaf's fat box extends past the tight box it was made from.
  explicit AabbTree(Real margin = k_default_margin);

  /// Adds a leaf with the fat box tight.expanded(margin); returns its proxy id (a node slot).
  std::int32_t create_proxy(const AABB& tight, std::uint64_t user_data);
  /// Removes a leaf; its slot goes on the free list for reuse.
  void destroy_proxy(std::int32_t proxy_id);
  /// When the box that tight covers over the step (swept) leaves the leaf's fat box, gives it a
  /// new one, tight expanded by the margin (or by `turning`, where that is more) and stretched: in
  /// place when that box lies within the leaf's ancestor k_refit_levels up (the boxes above
  /// refitted), else by re-inserting the leaf. Returns whether the fat box changed.
  bool move_proxy(std::int32_t proxy_id, const AABB& tight, const Vec3& displacement,
                  Real turning = 0);

  const AABB& fat_aabb(std::int32_t proxy_id) const { return nodes_[proxy_id].aabb; }
  /// `box` stretched along `displacement`: what it sweeps over that motion.
  static AABB stretched(AABB box, const Vec3& displacement);
  /// What a shape whose box is `tight` may cover over a step in which it moves by `displacement`
  /// (m) and its turn moves each of its points by at most `turning` (m).
  static AABB swept(const AABB& tight, const Vec3& displacement, Real turning) {
    return stretched(tight.expanded(turning), displacement);
  }
  std::uint64_t user_data(std::int32_t proxy_id) const { return nodes_[proxy_id].user_data; }
  Real margin() const { return margin_; }
  int proxy_count() const { return proxy_count_; }
  /// Number of node slots ever allocated (live, internal and free).
  int node_capacity() const { return static_cast<int>(nodes_.size()); }

  /// Calls callback(proxy_id) for each leaf whose fat box overlaps box; a false return stops.
  template <class F>
  void query(const AABB& box, F&& callback) const;

  /// Calls callback(proxy_id) for each leaf whose fat box the segment origin + t * direction,
  /// t in [0, max_fraction], enters. The callback returns the new max fraction: the current one
  /// to continue (all hits), a smaller one to clip (closest hit), 0 to stop, or < 0 to ignore the
  /// proxy and keep the current one.
  template <class F>
  void raycast(const Vec3& origin, const Vec3& direction, Real max_fraction, F&& callback) const;

  /// Calls callback(box, height) for every node in the tree (leaves have height 0).
  template <class F>
  void for_each_node(F&& callback) const {
    for (const Node& node : nodes_) {
      if (node.height >= 0) callback(node.aabb, node.height);
    }
  }

  /// Calls callback(proxy_id) for every live proxy, in slot order.
  template <class F>
  void for_each_proxy(F&& callback) const;

  /// Height of the root (0 for a single leaf, -1 when empty).
  int height() const { return root_ == k_null ? -1 : nodes_[root_].height; }
  /// Sum of the internal nodes' areas over the root's area; lower means a tighter tree.
  Real area_ratio() const;
  /// Checks parent links, heights, exact bounding boxes, the free list and the proxy count;
  /// throws std::logic_error naming the first broken invariant. For tests.
  void validate() const;

 private:
  struct Node {
    AABB aabb;                     // the fat box of a leaf, the union of children otherwise
    std::uint64_t user_data = 0;   // leaves only
    std::int32_t parent = k_null;  // the next free slot while on the free list
    std::array<std::int32_t, 2> child{k_null, k_null};  // k_null for leaves
    std::int32_t height = -1;                           // 0 for leaves, -1 on the free list
    bool is_leaf() const { return child[0] == k_null; }
  };
  static_assert(sizeof(Node) == 6 * sizeof(Real) + 24, "keep nodes small: 48 bytes with float");

  // Children may differ this much in height before a height rotation. Slack lets the
  // surface-area rotations work: at 1 (strict AVL) the 10k-box bench tree has several times the
  // area. A tree within a slack of 5 everywhere is under about 2.8 log2 n tall (fewest leaves
  // N(h) = N(h-1) + N(h-6)); one rotation per level usually restores it, though not always after
  // a leaf is paired with a tall subtree, so the height bound is tested rather than proven.
  static constexpr int k_max_imbalance = 5;
  // A move within the ancestor this many levels up keeps the leaf's place (move_proxy): most
  // moves of a step are short, and a removal and an insertion each rotate their way up to the
  // root. Measured (bench/broadphase_bench.cpp, 10k jittering proxies): an update takes 1.17 ms
  // re-inserting every time, 0.99 / 0.77 / 0.62 / 0.60 ms at 2 / 3 / 4 / 5 levels, with the
  // tree's area ratio 64, 64, 61, 60, 64; at 7 levels it grows (89): leaves wander in big boxes.
  static constexpr int k_refit_levels = 4;
  // A traversal stack holds at most height + 1 entries: ample for any tree with int32 ids
  // (validate checks it).
  static constexpr int k_stack_size = 256;

  // Depth-first walk of the nodes whose boxes pass `enters`; `visit` gets each leaf reached and
  // returns false to stop. Shared by query and raycast.
  template <class NodeTest, class LeafVisit>
  void traverse(NodeTest&& enters, LeafVisit&& visit) const;

  std::int32_t allocate_node();
  void free_node(std::int32_t index);
  void insert_leaf(std::int32_t leaf);
  void remove_leaf(std::int32_t leaf);
  std::int32_t balance(std::int32_t index);
  void rotate_up(std::int32_t index, int heavy_side);
  void refit(std::int32_t index);
  void replace_child(std::int32_t parent, std::int32_t old_child, std::int32_t new_child);
  int validate_subtree(std::int32_t index) const;

  std::vector<Node> nodes_;
  std::int32_t root_ = k_null;
  std::int32_t free_list_ = k_null;
  int proxy_count_ = 0;
  Real margin_;
};

template <class NodeTest, class LeafVisit>
void AabbTree::traverse(NodeTest&& enters, LeafVisit&& visit) const {
  if (root_ == k_null) return;
  std::array<std::int32_t, k_stack_size> stack;
  int top = 0;
  stack[top++] = root_;
  while (top > 0) {
    const std::int32_t index = stack[--top];
    const Node& node = nodes_[index];
    if (!enters(node.aabb)) continue;
    if (node.is_leaf()) {
      if (!visit(index)) return;
    } else {
      stack[top++] = node.child[0];
      stack[top++] = node.child[1];
    }
  }
}

template <class F>
void AabbTree::query(const AABB& box, F&& callback) const {
  traverse([&box](const AABB& node) { return node.overlaps(box); }, callback);
}

template <class F>
void AabbTree::raycast(const Vec3& origin, const Vec3& direction, Real max_fraction,
                       F&& callback) const {
  const Ray ray(origin, direction);
  traverse([&](const AABB& node) { return ray.entry_fraction(node, max_fraction) >= 0; },
           [&](std::int32_t index) {
             const Real value = callback(index);
             if (value > 0) max_fraction = value;  // clip to the closest hit so far
             return value != 0;
           });
}

template <class F>
void AabbTree::for_each_proxy(F&& callback) const {
  const auto n = static_cast<std::int32_t>(nodes_.size());
  for (std::int32_t i = 0; i < n; ++i) {
    if (nodes_[i].height == 0) callback(i);
  }
}

}  // namespace impulse
