#include "collision/aabb_tree.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace impulse {

Ray::Ray(const Vec3& origin_, const Vec3& direction_) : origin(origin_), direction(direction_) {
  for (int i = 0; i < 3; ++i) {
    inv_direction[i] = direction[i] != 0 ? Real(1) / direction[i] : Real(0);
  }
}

Ray::Entry Ray::enter(const AABB& box, Real max_fraction) const {
  Entry entry{0, -1};
  Real t_max = max_fraction;
  for (int i = 0; i < 3; ++i) {
    // A segment parallel to a slab either lies in it or misses the box; this branch also avoids
    // the 0 * inf = NaN of the reciprocal form.
    if (direction[i] == 0) {
      if (origin[i] < box.lower[i] || origin[i] > box.upper[i]) return {-1, -1};
      continue;
    }
    Real t1 = (box.lower[i] - origin[i]) * inv_direction[i];
    Real t2 = (box.upper[i] - origin[i]) * inv_direction[i];
    if (t1 > t2) std::swap(t1, t2);
    // >= so that an origin on a face, heading in, enters through that face rather than "inside".
    if (t1 >= entry.fraction) {
      entry.fraction = t1;
      entry.axis = i;
    }
    t_max = std::min(t_max, t2);
    if (entry.fraction > t_max) return {-1, -1};
  }
  return entry;
}

AabbTree::AabbTree(Real margin) : margin_(margin) {}

std::int32_t AabbTree::allocate_node() {
  if (free_list_ != k_null) {
    const std::int32_t index = free_list_;
    free_list_ = nodes_[index].parent;
    nodes_[index] = Node{};
    return index;
  }
  nodes_.emplace_back();
  return static_cast<std::int32_t>(nodes_.size()) - 1;
}

void AabbTree::free_node(std::int32_t index) {
  nodes_[index] = Node{};
  nodes_[index].parent = free_list_;
  free_list_ = index;
}

std::int32_t AabbTree::create_proxy(const AABB& tight, std::uint64_t user_data) {
  const std::int32_t leaf = allocate_node();
  Node& node = nodes_[leaf];
  node.aabb = tight.expanded(margin_);
  node.user_data = user_data;
  node.height = 0;
  insert_leaf(leaf);
  ++proxy_count_;
  return leaf;
}

void AabbTree::destroy_proxy(std::int32_t proxy_id) {
  remove_leaf(proxy_id);
  free_node(proxy_id);
  --proxy_count_;
}

AABB AabbTree::stretched(AABB box, const Vec3& displacement) {
  for (int i = 0; i < 3; ++i) {
    if (displacement[i] < 0) {
      box.lower[i] += displacement[i];
    } else {
      box.upper[i] += displacement[i];
    }
  }
  return box;
}

bool AabbTree::move_proxy(std::int32_t proxy_id, const AABB& tight, const Vec3& displacement,
                          Real turning) {
  // The box over the whole step's motion: a fast body whose fat box still held where it is, but
  // not where it goes, found no pair with a wall in its way and passed through it.
  if (nodes_[proxy_id].aabb.contains(swept(tight, displacement, turning))) return false;
  // Stretched toward the motion, so a steadily moving body stays inside for several steps (Box2D).
  // The turn widens it only past the margin: widened by both, a tumbling pile's fat boxes met 9%
  // more pairs and the step took 2.5% more instructions.
  const AABB fat = swept(tight, displacement, std::max(margin_, turning));
  // A move within the box of the leaf's ancestor k_refit_levels up changes no structure: the leaf
  // takes its new box and the boxes above are refitted, up to the first that does not change.
  std::int32_t holder = proxy_id;
  for (int up = 0; up < k_refit_levels && holder != k_null; ++up)
    holder = nodes_[holder].parent;
  if (holder != k_null && nodes_[holder].aabb.contains(fat)) {
    nodes_[proxy_id].aabb = fat;
    for (std::int32_t index = nodes_[proxy_id].parent; index != k_null;
         index = nodes_[index].parent) {
      const AABB before = nodes_[index].aabb;
      refit(index);
      if (nodes_[index].aabb == before) break;
    }
    return true;
  }
  remove_leaf(proxy_id);
  nodes_[proxy_id].aabb = fat;
  insert_leaf(proxy_id);
  return true;
}

void AabbTree::insert_leaf(std::int32_t leaf) {
  if (root_ == k_null) {
    root_ = leaf;
    nodes_[leaf].parent = k_null;
    return;
  }
  // Greedy surface-area-heuristic descent (Goldsmith and Salmon; Box2D v2): stop at the node whose
  // pairing with the leaf costs less than a lower bound of descending into either child.
  const AABB box = nodes_[leaf].aabb;
  const double box_area = box.half_area();
  std::int32_t sibling = root_;
  while (!nodes_[sibling].is_leaf()) {
    const Node& node = nodes_[sibling];
    const double combined = merge(node.aabb, box).half_area();
    const double inherited = combined - node.aabb.half_area();  // node grows if we go below it
    double child_cost[2];
    for (int k = 0; k < 2; ++k) {
      const AABB& child = nodes_[node.child[k]].aabb;
      const double merged = merge(child, box).half_area();
      // Below a leaf child: a new parent of area merged. Below an internal child: the child
      // grows, and a new parent at least as big as the leaf appears somewhere under it.
      child_cost[k] =
          inherited +
          (nodes_[node.child[k]].is_leaf() ? merged : merged - child.half_area() + box_area);
    }
    if (combined <= child_cost[0] && combined <= child_cost[1]) break;
    sibling = node.child[child_cost[1] < child_cost[0] ? 1 : 0];
  }

  const std::int32_t old_parent = nodes_[sibling].parent;
  const std::int32_t new_parent = allocate_node();  // may grow nodes_: no references held here
  Node& parent = nodes_[new_parent];
  parent.parent = old_parent;
  parent.child = {sibling, leaf};
  nodes_[sibling].parent = new_parent;
  nodes_[leaf].parent = new_parent;
  if (old_parent == k_null) {
    root_ = new_parent;
  } else {
    replace_child(old_parent, sibling, new_parent);
  }
  for (std::int32_t index = new_parent; index != k_null; index = nodes_[index].parent) {
    index = balance(index);
  }
}

void AabbTree::remove_leaf(std::int32_t leaf) {
  if (leaf == root_) {
    root_ = k_null;
    return;
  }
  const std::int32_t parent = nodes_[leaf].parent;
  const std::int32_t grandparent = nodes_[parent].parent;
  const std::int32_t sibling =
      nodes_[parent].child[0] == leaf ? nodes_[parent].child[1] : nodes_[parent].child[0];
  nodes_[sibling].parent = grandparent;
  if (grandparent == k_null) {
    root_ = sibling;
  } else {
    replace_child(grandparent, parent, sibling);
  }
  free_node(parent);
  for (std::int32_t index = grandparent; index != k_null; index = nodes_[index].parent) {
    index = balance(index);
  }
}

// Two rotations, applied on the way up after every insert and remove. When one child is more
// than k_max_imbalance levels taller, it takes this node's place and this node takes its shorter
// child (AVL-style, as in Box2D v2): this bounds the height. Otherwise a child may swap with a
// grandchild under the other child when that shrinks the grandchild's parent (Kensler's tree
// rotations, as in Box2D v3): this keeps the surface-area cost low, which height rotations alone
// ruin. Returns the root of the subtree, refitted.
std::int32_t AabbTree::balance(std::int32_t a) {
  const int diff = nodes_[nodes_[a].child[1]].height - nodes_[nodes_[a].child[0]].height;
  if (diff > k_max_imbalance || diff < -k_max_imbalance) {
    rotate_up(a, diff > 0 ? 1 : 0);
    return nodes_[a].parent;
  }
  double best_gain = 0;
  int best_side = -1;
  int best_k = 0;
  for (int side = 0; side < 2; ++side) {
    const Node& b = nodes_[nodes_[a].child[side]];
    const Node& c = nodes_[nodes_[a].child[1 - side]];
    if (c.is_leaf()) continue;
    for (int k = 0; k < 2; ++k) {
      const Node& g = nodes_[c.child[k]];
      const Node& kept = nodes_[c.child[1 - k]];
      // b replaces g under c; only swaps that keep both c and a within the imbalance bound.
      const int c_height = 1 + std::max(b.height, kept.height);
      if (std::abs(b.height - kept.height) > k_max_imbalance ||
          std::abs(c_height - g.height) > k_max_imbalance) {
        continue;
      }
      const double gain = c.aabb.half_area() - merge(b.aabb, kept.aabb).half_area();
      if (gain > best_gain) {
        best_gain = gain;
        best_side = side;
        best_k = k;
      }
    }
  }
  if (best_side >= 0) {
    const std::int32_t b = nodes_[a].child[best_side];
    const std::int32_t c = nodes_[a].child[1 - best_side];
    const std::int32_t g = nodes_[c].child[best_k];
    nodes_[c].child[best_k] = b;
    nodes_[b].parent = c;
    nodes_[a].child[best_side] = g;
    nodes_[g].parent = a;
    refit(c);
  }
  refit(a);
  return a;
}

void AabbTree::rotate_up(std::int32_t a, int heavy) {
  const std::int32_t c = nodes_[a].child[heavy];
  const auto [f, g] = nodes_[c].child;
  const bool f_taller = nodes_[f].height > nodes_[g].height;
  const std::int32_t tall = f_taller ? f : g;
  const std::int32_t low = f_taller ? g : f;

  const std::int32_t top = nodes_[a].parent;
  nodes_[c].parent = top;
  if (top == k_null) {
    root_ = c;
  } else {
    replace_child(top, a, c);
  }
  nodes_[c].child = {a, tall};
  nodes_[a].parent = c;
  nodes_[a].child[heavy] = low;
  nodes_[low].parent = a;
  refit(a);
  refit(c);
}

void AabbTree::refit(std::int32_t index) {
  Node& node = nodes_[index];
  const Node& c0 = nodes_[node.child[0]];
  const Node& c1 = nodes_[node.child[1]];
  node.aabb = merge(c0.aabb, c1.aabb);
  node.height = 1 + std::max(c0.height, c1.height);
}

void AabbTree::replace_child(std::int32_t parent, std::int32_t old_child, std::int32_t new_child) {
  Node& node = nodes_[parent];
  node.child[node.child[0] == old_child ? 0 : 1] = new_child;
}

Real AabbTree::area_ratio() const {
  if (root_ == k_null) return 0;
  const double root_area = nodes_[root_].aabb.half_area();
  if (root_area <= 0) return 0;
  double total = 0;
  for (const Node& node : nodes_) {
    if (node.height > 0) total += node.aabb.half_area();
  }
  return Real(total / root_area);
}

namespace {

void check(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("AabbTree::validate: ") + what);
}

}  // namespace

int AabbTree::validate_subtree(std::int32_t index) const {
  const Node& node = nodes_[index];
  check(node.height >= 0, "a reachable node is on the free list");
  if (node.is_leaf()) {
    check(node.child[1] == k_null, "a node has exactly one child");
    check(node.height == 0, "a leaf's height is not 0");
    return 1;
  }
  int leaves = 0;
  for (const std::int32_t child : node.child) {
    check(child >= 0 && child < node_capacity(), "a child index is out of range");
    check(nodes_[child].parent == index, "a child's parent link is wrong");
    check(nodes_[child].height < node.height, "a child is not lower than its parent");
    leaves += validate_subtree(child);
  }
  const Node& c0 = nodes_[node.child[0]];
  const Node& c1 = nodes_[node.child[1]];
  check(node.height == 1 + std::max(c0.height, c1.height), "a height is stale");
  check(node.aabb == merge(c0.aabb, c1.aabb), "an internal box is not the union of its children");
  return leaves;
}

void AabbTree::validate() const {
  int reachable = 0;
  if (root_ != k_null) {
    check(nodes_[root_].parent == k_null, "the root has a parent");
    check(nodes_[root_].height < k_stack_size, "the tree is too tall for the traversal stack");
    reachable = validate_subtree(root_);
  }
  check(reachable == proxy_count_, "the leaf count differs from the proxy count");
  int free_count = 0;
  for (std::int32_t i = free_list_; i != k_null; i = nodes_[i].parent) {
    check(nodes_[i].height == -1, "a node on the free list is in use");
    check(++free_count <= node_capacity(), "the free list has a cycle");
  }
  const int internal = proxy_count_ > 0 ? proxy_count_ - 1 : 0;
  check(proxy_count_ + internal + free_count == node_capacity(), "node slots are lost");
}

}  // namespace impulse
