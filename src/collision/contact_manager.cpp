#include "collision/contact_manager.h"

#include "collision/box_box.h"
#include "collision/shape_pairs.h"
#include "core/lanes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace impulse {
namespace {

// A point whose feature id has no match takes the nearest old point within this distance (m):
// where two faces lie flush, a turn of a micro-radian can change which features a clipped corner
// comes from, and a stack must not lose its warm start to that.
constexpr Real k_match_distance = Real(0.02);

bool has_features(const FeatureId& id) {
  return id.type_a != std::uint8_t(FeatureType::none) ||
         id.type_b != std::uint8_t(FeatureType::none);
}

// Pair::gap of two boxes the narrowphase found apart at ta and tb by face_gap (collide_box_box's),
// less what its rounding and that of the narrowphase that may find them again can take (a few
// units in the last place of the positions and extents: 128 of them is far more); 0 for others.
Real apart_gap(Real face_gap, const CookedShape& a, const Transform& ta, const CookedShape& b,
               const Transform& tb) {
  const Box* box_a = std::get_if<Box>(&a);
  const Box* box_b = std::get_if<Box>(&b);
  if (box_a == nullptr || box_b == nullptr) return 0;
  const Real rounding = 128 * std::numeric_limits<Real>::epsilon() *
                        (length(ta.position) + length(tb.position) + length(box_a->half_extents) +
                         length(box_b->half_extents));
  return face_gap - rounding;
}

}  // namespace

ContactManager::ContactManager(Real fat_margin) : broadphase_(fat_margin) {}

std::uint32_t ContactManager::add_shape(CookedShape shape, std::uint32_t body,
                                        const Transform& pose) {
  std::uint32_t handle;
  if (free_shapes_.empty()) {
    handle = static_cast<std::uint32_t>(shapes_.size());
    shapes_.emplace_back();
  } else {
    handle = free_shapes_.back();
    free_shapes_.pop_back();
  }
  ShapeRecord& record = shapes_[handle];
  record.shape = std::move(shape);
  record.pose = pose;
  record.body = body;
  record.sweep = record.turning = 0;
  record.rounding = rounding_radius(record.shape);
  record.reach = core_reach(record.shape);
  record.placed = shape_bounds(record.shape, pose);
  record.proxy = broadphase_.create_proxy(record.placed, handle);
  return handle;
}

void ContactManager::remove_shape(std::uint32_t shape) {
  ShapeRecord& record = shapes_[shape];
  broadphase_.destroy_proxy(record.proxy);
  record = {};
  free_shapes_.push_back(shape);
  // Its pairs go now: a new shape may reuse the handle before the next update.
  std::erase_if(pairs_, [&](const Pair& p) { return p.shape_a == shape || p.shape_b == shape; });
  std::erase_if(manifolds_,
                [&](const ContactManifold& m) { return m.shape_a == shape || m.shape_b == shape; });
  // Re-point the survivors at their (shifted) manifolds.
  std::uint32_t next = 0;
  for (Pair& p : pairs_) {
    p.first = next;
    next += p.count;
  }
}

void ContactManager::move_shape(std::uint32_t shape, const Transform& pose,
                                const StepMotion& motion) {
  if (place_shape(shape, pose, motion)) move_placed(shape);
}

bool ContactManager::place_shape(std::uint32_t shape, const Transform& pose,
                                 const StepMotion& motion) {
  ShapeRecord& record = shapes_[shape];
  record.pose = pose;
  // A turn by t moves a point at r from the centre by the chord 2 r sin(t / 2) <= r min(t, 2):
  // without it a box tumbling onto the floor found its corner only once it was in, 10 cm deep at
  // 20 rad/s. A shape that does not turn has no chord however far it reaches (a reach that
  // overflows to inf would make it 0 * inf, NaN, and the shape would meet nothing).
  record.turning = motion.turn > 0 ? std::min(motion.turn, Real(2)) *
                                         (length(pose.position - motion.center) + record.reach)
                                   : 0;
  record.sweep = length(motion.displacement) + record.turning;
  record.placed = shape_bounds(record.shape, pose);
  record.displacement = motion.displacement;
  // Within its fat box over the step's motion the proxy stays as it is (AabbTree::move_proxy
  // would change nothing).
  record.moves =
      !broadphase_.tree()
           .fat_aabb(record.proxy)
           .contains(AabbTree::swept(record.placed, motion.displacement, record.turning));
  return record.moves;
}

void ContactManager::move_placed(std::uint32_t shape) {
  ShapeRecord& record = shapes_[shape];
  if (!record.moves) return;
  broadphase_.move_proxy(record.proxy, record.placed, record.displacement, record.turning);
  record.moves = false;
}

void ContactManager::find_new_pairs() {
  broadphase_.update_pairs(new_pairs_);
  if (new_pairs_.empty()) return;  // no shape left its fat box: the pairs stay as they are
  // Both lists are sorted: one merge keeps pairs_ sorted and free of duplicates.
  merged_pairs_.clear();
  auto old_it = pairs_.begin();
  for (const ProxyPair& found : new_pairs_) {
    const auto a = static_cast<std::uint32_t>(found.first);
    const auto b = static_cast<std::uint32_t>(found.second);
    if (shapes_[a].body == shapes_[b].body) continue;  // parts of one body never touch
    Pair candidate;
    candidate.shape_a = a;
    candidate.shape_b = b;
    while (old_it != pairs_.end() && old_it->key() < candidate.key())
      merged_pairs_.push_back(*old_it++);
    if (old_it != pairs_.end() && old_it->key() == candidate.key()) continue;
    merged_pairs_.push_back(candidate);
  }
  merged_pairs_.insert(merged_pairs_.end(), old_it, pairs_.end());
  std::swap(pairs_, merged_pairs_);
}

bool ContactManager::fat_boxes_overlap(const Pair& pair) const {
  const AabbTree& tree = broadphase_.tree();
  return tree.fat_aabb(shapes_[pair.shape_a].proxy)
      .overlaps(tree.fat_aabb(shapes_[pair.shape_b].proxy));
}

// Chunk c of k_chunks takes the pairs [c n / k, (c + 1) n / k): its manifolds, in pair order,
// and each pair's count. It reads only the shapes, the pairs and last step's manifolds.
void ContactManager::collide_chunk(std::size_t chunk, Real margin) {
  Chunk& out = chunks_[chunk];
  out.manifolds.clear();
  out.reused = out.apart = out.colliding = out.listed = out.staying = 0;
  out.same_counts = true;
  const std::size_t n = pairs_.size();
  for (std::size_t p = chunk * n / k_chunks; p < (chunk + 1) * n / k_chunks; ++p) {
    const Pair& pair = pairs_[p];
    std::uint32_t count = updates_[p] == PairUpdate::keep ? pair.count : 0;
    if (updates_[p] == PairUpdate::collide) {
      ++out.colliding;
      const std::size_t before = out.manifolds.size();
      rebuilt_[p] = collide_pair(pairs_[p], margin, out) ? 1 : 0;
      count = rebuilt_[p] != 0 ? pair.count : std::uint32_t(out.manifolds.size() - before);
      new_counts_[p] = count;
    }
    out.listed += count;
    out.staying += updates_[p] == k_apart ? 0 : 1;
    out.same_counts = out.same_counts && count == pair.count;
  }
}

bool ContactManager::collide_pair(Pair& pair, Real margin, Chunk& out) const {
  const ShapeRecord& a = shapes_[pair.shape_a];
  const ShapeRecord& b = shapes_[pair.shape_b];
  const Real pair_margin = margin + a.sweep + b.sweep;
  const Transform relative = inverse(a.pose) * b.pose;
  if (reusable(pair, relative, pair_margin)) {
    ++out.reused;
    return true;
  }
  if (pair.found && pair.gap > pair_margin) {
    const Real closed = closing(pair, relative);
    // Each subtraction and the bound itself round: 16 units in the last place is far more.
    const Real left =
        pair.gap - (closed + 16 * std::numeric_limits<Real>::epsilon() * (closed + pair.gap));
    if (left > pair_margin) {  // the narrowphase would find nothing: the pair as it leaves it
      ++out.apart;
      pair.gap = left;
      pair.relative = relative;
      pair.margin = pair_margin;
      return false;
    }
  }
  out.scratch.clear();
  // A rounded shape's pair whose world boxes are apart by more than the margin on an axis: the
  // shapes are at least that far apart, and its narrowphase measures the distance from the core
  // (never less than it is), so it would find nothing: most of a ragdoll's pairs whose fat boxes
  // meet, its limbs near each other (two rounded shapes never reuse their contacts) or moving by
  // a box. Flat pairs run their narrowphase: its separating axes bound the gap from below and
  // give a speculative point now and then where the boxes are farther apart than the margin.
  const bool rounded = a.rounding > 0 || b.rounding > 0;
  Real face_gap = 0;  // of two boxes (collide_box_box)
  if (!rounded || a.placed.expanded(pair_margin).overlaps(b.placed))
    collide_shapes(a.shape, a.pose, b.shape, b.pose, pair_margin, out.scratch, &face_gap,
                   mesh_touches(pair, out.touches));
  for (const Manifold& found : out.scratch) {
    ContactManifold& m = out.manifolds.emplace_back();
    m.body_a = a.body;
    m.body_b = b.body;
    m.shape_a = pair.shape_a;
    m.shape_b = pair.shape_b;
    m.normal = found.normal;
    m.local_normal = inverse_rotate(normal_frame(a, b).pose.orientation, found.normal);
    m.count = found.count;
    m.rounding_a = a.rounding;
    m.rounding_b = b.rounding;
    m.normal_face = found.normal_face;
    for (int k = 0; k < found.count; ++k) {
      ContactState& state = m.points[std::size_t(k)];
      state.point = found.points[std::size_t(k)];
      state.local_b = apply_inverse(b.pose, state.point.position + b.rounding * found.normal);
      state.local_a = apply_inverse(
          a.pose, state.point.position + (state.point.depth - a.rounding) * found.normal);
    }
    match(m, pair);
  }
  pair.gap = out.scratch.empty() ? apart_gap(face_gap, a.shape, a.pose, b.shape, b.pose) : 0;
  pair.relative = relative;
  pair.margin = pair_margin;
  pair.found = true;
  return false;
}

void ContactManager::mark_moved_by_hand(std::uint32_t shape) {
  if (shapes_[shape].moved_by_hand) return;
  shapes_[shape].moved_by_hand = true;
  moved_by_hand_.push_back(shape);
}

std::span<const MeshTouch> ContactManager::mesh_touches(const Pair& pair,
                                                        std::vector<MeshTouch>& out) const {
  out.clear();
  using MeshPtr = std::shared_ptr<const MeshShape>;
  const ShapeRecord& a = shapes_[pair.shape_a];
  const ShapeRecord& b = shapes_[pair.shape_b];
  const bool mesh_b = std::holds_alternative<MeshPtr>(b.shape);
  if (!mesh_b && !std::holds_alternative<MeshPtr>(a.shape)) return out;
  // A body set down by hand may be anywhere: its pose alone says where it is.
  if (a.moved_by_hand || b.moved_by_hand) return out;
  // Points lie on shape_b's surface; normals point from shape_a to shape_b.
  for (const ContactManifold& m : std::span(manifolds_).subspan(pair.first, pair.count)) {
    for (int k = 0; k < m.count; ++k) {
      const ContactPoint& p = m.points[std::size_t(k)].point;
      out.push_back(mesh_b ? MeshTouch{p.position, -m.normal}
                           : MeshTouch{p.position + p.depth * m.normal, m.normal});
    }
  }
  return out;
}

bool ContactManager::reusable(const Pair& pair, const Transform& relative, Real margin) const {
  const Real distance = reuse_.distance;
  const ShapeRecord& a = shapes_[pair.shape_a];
  const ShapeRecord& b = shapes_[pair.shape_b];
  // Two rounded shapes touch along the line joining their cores, which turns as either rolls:
  // no frame keeps their normal (and their narrowphase is a closed form).
  if (a.rounding > 0 && b.rounding > 0) return false;
  if (!pair.found || !(distance > 0) || margin > pair.margin + distance ||
      length_squared(relative.position - pair.relative.position) > distance * distance)
    return false;
  // |q1 . q2| is the cosine of half the turn between two orientations.
  return std::abs(dot(relative.orientation, pair.relative.orientation)) >= reuse_half_angle_cosine_;
}

Real ContactManager::closing(const Pair& pair, const Transform& relative) const {
  const Box* box_a = std::get_if<Box>(&shapes_[pair.shape_a].shape);
  const Box* box_b = std::get_if<Box>(&shapes_[pair.shape_b].shape);
  if (box_a == nullptr || box_b == nullptr) return k_infinity;  // no gap kept for them
  // A point of B moves in A's frame by at most the centre's move and the turn's chord
  // (2 sin(angle / 2) <= 2 |q - q0|, q and q0 taken on one side) times its reach from the centre;
  // a point of A in B's frame by the same with A's reach plus the centres' distance. The gap along
  // either box's face axes shrinks by no more.
  const Quat& q = relative.orientation;
  const Quat& q0 = pair.relative.orientation;
  const Real chord =
      2 * std::sqrt(std::min(length_squared(q.vec() - q0.vec()) + (q.w - q0.w) * (q.w - q0.w),
                             length_squared(q.vec() + q0.vec()) + (q.w + q0.w) * (q.w + q0.w)));
  const Real reach =
      length(box_a->half_extents) + length(box_b->half_extents) + length(pair.relative.position);
  return length(relative.position - pair.relative.position) + chord * reach;
}

namespace {

// A pose in lanes: apply() as it computes each component (the same bits), a vector operation for
// three scalar ones.
struct LanePose {
  Lanes axis;  // the orientation's vector part
  Lanes w;     // its scalar part, in every lane
  Lanes position;
  explicit LanePose(const Transform& pose)
      : axis(lanes_of(pose.orientation.vec())),
        w(splat(pose.orientation.w)),
        position(lanes_of(pose.position)) {}
  // rotate(orientation, v).
  [[gnu::always_inline]] Lanes turned(const Lanes& v) const { return rotated(axis, w, v); }
  // apply(pose, p).
  [[gnu::always_inline]] Lanes applied(const Lanes& p) const { return turned(p) + position; }
};

}  // namespace

void ContactManager::rebuild(const Pair& pair, const ContactManifold* last,
                             ContactManifold* out) const {
  const ShapeRecord& a = shapes_[pair.shape_a];
  const ShapeRecord& b = shapes_[pair.shape_b];
  // In lanes: the pyramid rebuilds some 1600 points a step, each two rotations.
  const LanePose pose_a(a.pose), pose_b(b.pose);
  const bool on_core = rounded_on_flat(a, b);
  const LanePose& normal_pose = on_core ? pose_b : pose_a;  // normal_frame(a, b)'s
  const Lanes rounding_a = splat(a.rounding), rounding_b = splat(b.rounding);
  for (std::uint32_t j = 0; j < pair.count; ++j) {
    ContactManifold& m = out[j];
    if (out != last) m = last[j];
    const Lanes normal = normal_pose.turned(lanes_of(m.local_normal));
    m.normal = to_vec3(normal);
    for (int k = 0; k < m.count; ++k) {
      ContactState& state = m.points[std::size_t(k)];
      // The surfaces' points out from the cores along the normal (0 for unrounded shapes).
      const Lanes on_b = pose_b.applied(lanes_of(state.local_b)) - rounding_b * normal;
      const Lanes on_a = pose_a.applied(lanes_of(state.local_a)) + rounding_a * normal;
      const Real depth = dot3(on_a - on_b, normal);
      state.point.depth = depth;
      // Where a rounded shape touches follows its core; a flat surface gives only the depth. A
      // branch, not a select of lanes: GCC 12 for AVX-512 made the select a mask of lane 0 alone.
      if (on_core) {
        state.point.position = to_vec3(on_a - splat(depth) * normal);
      } else {
        state.point.position = to_vec3(on_b);
      }
      state.warm = true;  // last step's point, with its impulses
    }
  }
}

// Puts every pair's manifolds into manifolds_ in pair order: the collided ones from their chunk,
// the kept ones from last step's, and the reused ones rebuilt from last step's in their place (not
// through a chunk: a copy less of each). Where every pair keeps its place and count (a structure
// at rest), last step's list is updated where it lies: a copy less of every manifold again (the
// tower's list is some 480 kB, past the L2).
void ContactManager::gather(TaskPool* pool) {
  // Each chunk's place in the lists: its collided pairs' manifolds (found or rebuilt) and its kept
  // pairs' last ones; its pairs but those apart. The list is laid out in pair order, so where no
  // pair's count changed every pair keeps its place.
  std::size_t total = 0, staying = 0;
  bool in_place = true;
  colliding_ = 0;
  for (Chunk& chunk : chunks_) {
    chunk.first = total;
    chunk.first_pair = staying;
    total += chunk.listed;
    staying += chunk.staying;
    colliding_ += chunk.colliding;
    in_place = in_place && chunk.same_counts;
  }
  if (!in_place) std::swap(manifolds_, previous_);
  manifolds_.resize(total);
  // Where no pair leaves, the pairs are updated where they are; else listed anew.
  const bool pairs_stay = staying == pairs_.size();
  if (!pairs_stay) merged_pairs_.resize(staying);
  const auto gather = [&](std::size_t chunk) { gather_chunk(chunk, in_place, pairs_stay); };
  if (pool != nullptr) {
    pool->run(k_chunks, gather);
  } else {
    for (std::size_t chunk = 0; chunk < k_chunks; ++chunk)
      gather(chunk);
  }
  counts_ = {};
  for (const Chunk& chunk : chunks_) {
    counts_.points += chunk.points;
    counts_.matched += chunk.matched;
    counts_.reused += chunk.reused;
    counts_.apart += chunk.apart;
    counts_.deepest = std::max(counts_.deepest, chunk.deepest);
  }
  if (!pairs_stay) std::swap(pairs_, merged_pairs_);
  counts_.pairs = pairs_.size();
  counts_.manifolds = manifolds_.size();
}

void ContactManager::gather_chunk(std::size_t chunk, bool in_place, bool pairs_stay) {
  Chunk& c = chunks_[chunk];
  c.points = c.matched = 0;
  c.deepest = 0;
  const std::size_t n = pairs_.size();
  const ContactManifold* fresh = c.manifolds.data();
  auto at = c.first;
  auto staying = c.first_pair;
  for (std::size_t p = chunk * n / k_chunks; p < (chunk + 1) * n / k_chunks; ++p) {
    if (updates_[p] == k_apart) continue;  // leaves the cache
    // Its last step's first and count are read before they are written (pair may be last).
    const Pair& last = pairs_[p];
    Pair& pair = pairs_stay ? pairs_[p] : (merged_pairs_[staying++] = last);
    const auto first = static_cast<std::uint32_t>(at);
    switch (updates_[p]) {
      case PairUpdate::collide:
        if (rebuilt_[p] != 0) {
          rebuild(last, (in_place ? manifolds_ : previous_).data() + last.first,
                  manifolds_.data() + at);
        } else {
          std::copy(fresh, fresh + new_counts_[p], manifolds_.begin() + std::ptrdiff_t(at));
          fresh += new_counts_[p];
        }
        at += new_counts_[p];
        break;
      case PairUpdate::keep:
        if (!in_place) {
          std::copy(previous_.begin() + last.first, previous_.begin() + last.first + last.count,
                    manifolds_.begin() + std::ptrdiff_t(at));
        }
        at += last.count;
        break;
      default:  // ignore
        break;
    }
    pair.first = first;
    pair.count = static_cast<std::uint32_t>(at) - first;
    // what the narrowphase found may no longer be what a pair not collided has
    if (updates_[p] != PairUpdate::collide) pair.found = false;
    // Every listed manifold's points, a sleeping pair's kept ones too (with their warm flags).
    for (const ContactManifold& m : std::span(manifolds_).subspan(first, pair.count)) {
      c.points += std::size_t(m.count);
      for (int k = 0; k < m.count; ++k) {
        c.matched += m.points[std::size_t(k)].warm ? 1 : 0;
        c.deepest = std::max(c.deepest, m.points[std::size_t(k)].point.depth);
      }
    }
  }
}

void ContactManager::match(ContactManifold& fresh, const Pair& pair) const {
  const std::span<const ContactManifold> old(manifolds_.data() + pair.first, pair.count);
  for (int k = 0; k < fresh.count; ++k) {
    ContactState& point = fresh.points[std::size_t(k)];
    const ContactState* by_id = nullptr;
    const ContactState* nearest = nullptr;
    Real nearest_distance_sq = k_match_distance * k_match_distance;
    for (const ContactManifold& m : old) {
      for (int j = 0; j < m.count; ++j) {
        const ContactState& candidate = m.points[std::size_t(j)];
        if (has_features(point.point.id) && candidate.point.id == point.point.id)
          by_id = &candidate;
        const Real d = length_squared(candidate.point.position - point.point.position);
        if (d <= nearest_distance_sq) {
          nearest = &candidate;
          nearest_distance_sq = d;
        }
      }
    }
    const ContactState* best = by_id ? by_id : nearest;
    if (!best) continue;
    point.normal_impulse = best->normal_impulse;
    point.friction_impulse = best->friction_impulse;
    point.warm = true;
    point.stalled = best->stalled;
    point.stored_depth = best->stored_depth;
  }
}

}  // namespace impulse
