#pragma once
// Contacts from step to step (DESIGN.md steps 1-3): the shapes in the broadphase, the set of
// candidate shape pairs, their manifolds, and the contact cache that matches each new point to
// last step's by feature id (seed 001 section 8.2) so that its impulses carry over (warm start).
// Shapes are named by handles; which body a shape belongs to is the caller's number.

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "collision/broadphase.h"
#include "collision/cooked_shape.h"
#include "collision/manifold.h"
#include "core/task_pool.h"

namespace impulse {

/// One contact point with the impulses the solver gave it, kept from step to step.
struct ContactState {
  ContactPoint point;
  Real normal_impulse = 0;  // N s, along the manifold's normal
  Vec3 friction_impulse;    // N s, world vector in the contact plane: survives a new tangent basis
  bool warm = false;        // matched a point of the last step, whose impulses it carries
  // A push-out that does not take (a jam: push_stalled in constraints/contact_rows.h): the steps
  // running in which the point pushed out while its depth held and its normal impulse grew (or,
  // once jammed, held), and its depth when its impulses were last stored.
  std::uint8_t stalled = 0;
  Real stored_depth = 0;
  // The point's two ends in their shapes' frames when the narrowphase found it: on B's surface
  // (point.position) and on A's (position + depth * normal), each moved in to its shape's core
  // along the normal by the shape's rounding_radius (a rounded surface's point is not the body's:
  // it moves as the body rolls; its core point does not). A reused pair rebuilds the point from
  // them (ContactManager::rebuild).
  Vec3 local_b, local_a;
};

/// The contact of two shapes of different bodies: normal from shape_a to shape_b.
struct ContactManifold {
  std::uint32_t body_a = 0, body_b = 0;
  std::uint32_t shape_a = 0, shape_b = 0;
  Vec3 normal;
  // The normal when the narrowphase found it, in shape_a's frame, or in shape_b's when only
  // shape_a is rounded (a rolling ball's frame turns under the contact; the ground's does not).
  Vec3 local_normal;
  int count = 0;
  // m: how far each shape's surface lies out from its core (rounding_radius; 0 for flat shapes).
  Real rounding_a = 0, rounding_b = 0;
  NormalFace normal_face = NormalFace::none;  // which shape's face the normal is (it turns with it)
  std::array<ContactState, Manifold::k_max_points> points;
};

/// How far the shapes of a pair may move against each other, since its narrowphase last ran, for
/// its contacts to be rebuilt from that run's instead of found again (Jolt's body pair cache):
/// B's pose in A's frame within `distance` (m) and `angle` (rad) of that run's, and the
/// speculative margin at most `distance` wider. Contact points are then the same features, moved
/// with the shapes, and their depths exact for a vertex on a face. Zero distance: never reused.
struct ContactReuse {
  Real distance = Real(5e-4);
  Real angle = Real(0.5 * k_pi / 180);
};

/// What the last update found.
struct ContactCounts {
  std::size_t pairs = 0;      // candidate pairs whose fat boxes overlap
  std::size_t manifolds = 0;  // touching (or within the speculative margin)
  std::size_t points = 0;     // of the manifolds, kept ones (a sleeping pair's) too
  std::size_t matched = 0;    // points that matched last step's (the cache's hits; a kept point
                              // keeps its flag)
  std::size_t reused = 0;  // collided pairs whose contacts were rebuilt, not found (ContactReuse)
  std::size_t apart = 0;   // collided pairs of boxes known to be still apart (Pair::gap)
  Real deepest = 0;        // m, the largest depth of the manifolds' points (0 without overlap)
};

/// What a pair needs this step (the caller's filter decides from the two bodies).
enum class PairUpdate : std::uint8_t {
  collide,  // run the narrowphase and match points to last step's
  keep,     // keep last step's contacts as they are (a sleeping pair)
  ignore,   // no contacts (two bodies that cannot push each other)
};

/// How a shape's body will move during the coming step: its centre of mass (m, world) moves by
/// `displacement` (m) and it turns about it by `turn` (rad).
struct StepMotion {
  Vec3 displacement;
  Vec3 center;
  Real turn = 0;
};

class ContactManager {
 public:
  /// margin: how far a fat box reaches past the shape (m), see AabbTree.
  explicit ContactManager(Real fat_margin = AabbTree::k_default_margin);

  /// Adds a shape of body at pose; returns its handle.
  std::uint32_t add_shape(CookedShape shape, std::uint32_t body, const Transform& pose);
  /// Removes a shape and every pair and contact it had.
  void remove_shape(std::uint32_t shape);
  /// Moves a shape; `motion` is how its body will move during the coming step: the fat box is
  /// stretched that way and widened by what the turn moves, and so is the speculative margin of its
  /// pairs.
  void move_shape(std::uint32_t shape, const Transform& pose, const StepMotion& motion);
  /// move_shape in two halves, for many shapes: place_shape sets a shape's pose and sweep and may
  /// run for different shapes at once (it only reads the broadphase); it returns whether the
  /// shape's box left its fat box, and then move_placed makes the broadphase's part of the move,
  /// one shape at a time (in the order of the shapes, for the same tree).
  bool place_shape(std::uint32_t shape, const Transform& pose, const StepMotion& motion);
  /// Does nothing for a shape whose last place_shape kept it within its fat box.
  void move_placed(std::uint32_t shape);
  /// Marks a shape set to a new pose by hand, not carried there by a step: until its next
  /// narrowphase its pairs' last contacts say nothing of which side of a mesh it is on
  /// (mesh_touches).
  void mark_moved_by_hand(std::uint32_t shape);

  /// find_new_pairs (the broadphase), then collide_pairs (the narrowphase and the cache).
  template <class Filter>
  void update(Real margin, Filter&& filter, TaskPool& pool) {
    find_new_pairs();
    collide_pairs(margin, filter, pool);
  }
  /// Merges the candidate pairs the moved shapes' fat boxes found into the sorted pair list.
  void find_new_pairs();
  /// Drops the pairs whose fat boxes parted and treats every other as filter(body_a, body_b) says
  /// (a PairUpdate). The narrowphase uses margin (m) plus both shapes' sweeps (their bodies'
  /// displacements and turns: place_shape) as the speculative margin; its points are matched to
  /// last step's. The narrowphase runs on the pool's threads, in chunks of pairs gathered in pair
  /// order: the same contacts for any count. The filter is called from those threads at once, so it
  /// may only read.
  template <class Filter>
  void collide_pairs(Real margin, Filter&& filter, TaskPool& pool);

  std::span<ContactManifold> manifolds() { return manifolds_; }
  std::span<const ContactManifold> manifolds() const { return manifolds_; }
  const ContactCounts& counts() const { return counts_; }
  const Broadphase& broadphase() const { return broadphase_; }

  /// When a pair's contacts are rebuilt from its last narrowphase's (ContactReuse).
  void set_reuse(const ContactReuse& reuse) {
    reuse_ = reuse;
    reuse_half_angle_cosine_ = std::cos(reuse.angle / 2);
  }

  const CookedShape& shape(std::uint32_t handle) const { return shapes_[handle].shape; }
  const Transform& pose(std::uint32_t handle) const { return shapes_[handle].pose; }
  std::uint32_t body(std::uint32_t handle) const { return shapes_[handle].body; }

 private:
  struct ShapeRecord {
    CookedShape shape;
    Transform pose;
    std::uint32_t body = 0;
    std::int32_t proxy = AabbTree::k_null;
    Real sweep = 0;     // m, how far a point of the shape may move in the coming step
    Real turning = 0;   // m, of the sweep, how far the body's turn may move a point
    Real rounding = 0;  // m, rounding_radius(shape)
    Real reach = 0;     // m, core_reach(shape)
    // The shape's box at `pose` (shape_bounds); and place_shape's displacement for move_placed,
    // while `moves`.
    AABB placed;
    Vec3 displacement;
    bool moves = false;
    bool moved_by_hand = false;  // mark_moved_by_hand, until the next collide_pairs
  };
  struct Pair {
    std::uint32_t shape_a = 0, shape_b = 0;  // shape_a < shape_b
    std::uint32_t first = 0, count = 0;      // its manifolds in manifolds_
    // B's pose in A's frame and the speculative margin when the narrowphase last ran; valid while
    // `found` (it ran, and the pair was collided every step since).
    Transform relative;
    Real margin = 0;
    bool found = false;
    // Two boxes apart: how far the motion may yet close their gap along a face axis before it
    // reaches the margin, from `relative` on (collide_box_box's face_gap when the narrowphase found
    // them apart, less the motion of each step it was skipped since; 0 when they touched or are no
    // boxes). The narrowphase is skipped while a step's motion leaves some (closing).
    Real gap = 0;
    std::uint64_t key() const { return std::uint64_t(shape_a) << 32 | shape_b; }
  };

  // The narrowphase's output of a chunk of consecutive pairs, in pair order.
  struct Chunk {
    std::vector<ContactManifold> manifolds;
    std::vector<Manifold> scratch;
    std::vector<MeshTouch> touches;  // collide_pair: a mesh pair's last contacts
    std::size_t reused = 0, apart = 0, colliding = 0;
    // Its pairs' manifolds this step, its pairs that stay (not apart), and whether every pair's
    // count is last step's.
    std::size_t listed = 0, staying = 0;
    bool same_counts = true;
    std::size_t first = 0;                // gather: where the chunk's pairs' manifolds start
    std::size_t first_pair = 0;           // gather: where its pairs that stay start in the new list
    std::size_t points = 0, matched = 0;  // gather: of its pairs' manifolds
    Real deepest = 0;                     // gather: ContactCounts::deepest of its pairs
  };
  static constexpr std::size_t k_chunks = 64;
  // Below this many pairs to collide (last step's: the pairs are judged in the chunks), waking the
  // workers costs more than they save (the chunks are the same either way, and so are the
  // results). Kept and ignored pairs are not counted: a chain's links overlap their neighbours' fat
  // boxes, and their joints' pairs cost a copy or nothing.
  static constexpr std::size_t k_parallel_pairs = 128;
  // updates_' mark for a pair whose fat boxes no longer overlap: it leaves the cache.
  static constexpr auto k_apart = PairUpdate(3);

  bool fat_boxes_overlap(const Pair& pair) const;
  // Whether a pair's shape a is rounded and b not: a rolling a's frame turns under the contact,
  // so b's keeps the normal (ContactManifold::local_normal), and a's core places the point.
  static bool rounded_on_flat(const ShapeRecord& a, const ShapeRecord& b) {
    return a.rounding > 0 && b.rounding == 0;
  }
  // The shape whose frame keeps a pair's normal (ContactManifold::local_normal).
  static const ShapeRecord& normal_frame(const ShapeRecord& a, const ShapeRecord& b) {
    return rounded_on_flat(a, b) ? b : a;
  }
  /// Runs the narrowphase on chunk `chunk`'s pairs to collide (updates_), and counts what its
  /// pairs will list (Chunk).
  void collide_chunk(std::size_t chunk, Real margin);
  /// Runs the narrowphase on the pair into out and returns false; or, where its last contacts may
  /// be rebuilt instead (reusable), adds nothing and returns true: gather rebuilds them in their
  /// place in the list.
  bool collide_pair(Pair& pair, Real margin, Chunk& out) const;
  /// Where a convex touched a mesh at the last step (its last contacts' points on the mesh and the
  /// normals out of it), into out; empty unless one of the pair's shapes is a mesh.
  std::span<const MeshTouch> mesh_touches(const Pair& pair, std::vector<MeshTouch>& out) const;
  /// Whether the pair's contacts may be rebuilt from last step's (ContactReuse).
  bool reusable(const Pair& pair, const Transform& relative, Real margin) const;
  // How far the motion from pair.relative to `relative` (B's pose in A's frame) may have closed the
  // gap along either box's face axes (Pair::gap).
  Real closing(const Pair& pair, const Transform& relative) const;
  /// Rebuilds the pair's last step's contacts (pair.count of them from `last`), moved with the
  /// shapes, into out (which may be `last`).
  void rebuild(const Pair& pair, const ContactManifold* last, ContactManifold* out) const;
  /// Lists every pair's manifolds in pair order, and the pairs that stay, each chunk's pairs on
  /// the pool when given.
  void gather(TaskPool* pool);
  /// in_place: every pair keeps its place, and last step's manifolds are still in manifolds_;
  /// pairs_stay: no pair leaves, and the pairs are updated in pairs_ rather than listed anew.
  void gather_chunk(std::size_t chunk, bool in_place, bool pairs_stay);
  void match(ContactManifold& fresh, const Pair& pair) const;

  Broadphase broadphase_;
  std::vector<ShapeRecord> shapes_;
  std::vector<std::uint32_t> free_shapes_;
  std::vector<Pair> pairs_;  // sorted by key: a deterministic order
  std::vector<Pair> merged_pairs_;
  std::vector<ProxyPair> new_pairs_;
  // Per pair in pair order: last step's (the contact cache) until gather makes them this step's,
  // where they lie when every pair keeps its place, else from previous_, where it moves them.
  std::vector<ContactManifold> manifolds_;
  std::vector<ContactManifold> previous_;
  std::vector<PairUpdate> updates_;           // per pair, this step (or k_apart)
  std::vector<std::uint32_t> new_counts_;     // per collided pair: its manifolds this step
  std::vector<std::uint8_t> rebuilt_;         // per collided pair: 1 if its last contacts are
                                              // rebuilt (gather), 0 if the narrowphase found them
  std::vector<std::uint32_t> moved_by_hand_;  // the shapes marked so (mark_moved_by_hand)
  std::vector<Chunk> chunks_;
  std::size_t colliding_ = 0;  // pairs collided at the last update
  ContactCounts counts_;
  ContactReuse reuse_;
  Real reuse_half_angle_cosine_ = std::cos(ContactReuse{}.angle / 2);  // of the largest turn kept
};

template <class Filter>
void ContactManager::collide_pairs(Real margin, Filter&& filter, TaskPool& pool) {
  const std::size_t n = pairs_.size();
  updates_.resize(n);
  new_counts_.resize(n);
  rebuilt_.resize(n);
  chunks_.resize(k_chunks);
  // A chunk's pairs judged (apart, or the filter's update), then collided.
  const auto collide = [&](std::size_t chunk) {
    for (std::size_t p = chunk * n / k_chunks; p < (chunk + 1) * n / k_chunks; ++p) {
      const Pair& pair = pairs_[p];
      updates_[p] = fat_boxes_overlap(pair)
                        ? filter(shapes_[pair.shape_a].body, shapes_[pair.shape_b].body)
                        : k_apart;
    }
    collide_chunk(chunk, margin);
  };
  const bool parallel = colliding_ >= k_parallel_pairs;
  if (parallel) {
    pool.run(k_chunks, collide);
  } else {
    for (std::size_t chunk = 0; chunk < k_chunks; ++chunk)
      collide(chunk);
  }
  gather(parallel ? &pool : nullptr);
  for (const std::uint32_t shape : moved_by_hand_)
    shapes_[shape].moved_by_hand = false;
  moved_by_hand_.clear();
}

}  // namespace impulse
