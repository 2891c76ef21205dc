// World queries through the broadphase tree (ray casts, overlaps) and the debug views.

#include "dynamics/world_impl.h"

#include <impulse/error.h>

#include "collision/shape_pairs.h"

#include <algorithm>

namespace impulse {
namespace {

void require_segment(const Vec3& origin, const Vec3& direction) {
  if (!is_finite(origin) || !is_finite(direction))
    throw InvalidArgument("raycast: origin and direction must hold finite numbers");
}

// Whether a query with this filter sees the shape's body.
bool sees(const World::Impl& w, const std::optional<CollisionFilter>& filter, std::uint32_t shape) {
  return !filter || filters_collide(*filter, w.filters[w.contacts.body(shape)]);
}

BodyId body_of_shape(const World::Impl& w, std::uint32_t shape) {
  const std::uint32_t slot = w.contacts.body(shape);
  return {slot, w.records[slot].generation};
}

RaycastHit make_hit(const World::Impl& w, std::uint32_t shape, const RayHit& hit,
                    const Vec3& origin, const Vec3& direction) {
  const BodyId body = body_of_shape(w, shape);
  const std::vector<std::uint32_t>& shapes = w.records[body.index].shapes;
  const auto index = std::uint32_t(std::find(shapes.begin(), shapes.end(), shape) - shapes.begin());
  return {body, index, hit.sub_shape, hit.fraction, origin + direction * hit.fraction, hit.normal};
}

// Bodies (each once, by index) with a shape that the convex query shape touches.
std::vector<BodyId> overlapping_bodies(const World::Impl& w, const CookedShape& query,
                                       const Transform& pose,
                                       const std::optional<CollisionFilter>& filter) {
  std::vector<BodyId> found;
  std::vector<Manifold> manifolds;
  w.contacts.broadphase().tree().query(shape_bounds(query, pose), [&](std::int32_t proxy) {
    const auto shape = std::uint32_t(w.contacts.broadphase().tree().user_data(proxy));
    if (!sees(w, filter, shape)) return true;
    manifolds.clear();
    collide_shapes(query, pose, w.contacts.shape(shape), w.contacts.pose(shape), 0, manifolds);
    const bool touching = std::any_of(manifolds.begin(), manifolds.end(), [](const Manifold& m) {
      return std::any_of(m.points.begin(), m.points.begin() + m.count,
                         [](const ContactPoint& p) { return p.depth >= 0; });
    });
    if (touching) found.push_back(body_of_shape(w, shape));
    return true;
  });
  std::sort(found.begin(), found.end(),
            [](const BodyId& a, const BodyId& b) { return a.index < b.index; });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace

std::optional<RaycastHit> World::raycast(const Vec3& origin, const Vec3& direction,
                                         const std::optional<CollisionFilter>& filter) const {
  require_segment(origin, direction);
  const Impl& w = *impl_;
  std::optional<RaycastHit> closest;
  const AabbTree& tree = w.contacts.broadphase().tree();
  tree.raycast(origin, direction, 1, [&](std::int32_t proxy) -> Real {
    const auto shape = std::uint32_t(tree.user_data(proxy));
    if (!sees(w, filter, shape)) return -1;  // not there for this ray: keep looking
    const Real max_fraction = closest ? closest->fraction : Real(1);
    RayHit hit;
    if (!raycast_shape(w.contacts.shape(shape), w.contacts.pose(shape), origin, direction,
                       max_fraction, hit))
      return -1;  // missed: keep looking within the current fraction
    closest = make_hit(w, shape, hit, origin, direction);
    return hit.fraction;
  });
  return closest;
}

std::vector<RaycastHit> World::raycast_all(const Vec3& origin, const Vec3& direction,
                                           const std::optional<CollisionFilter>& filter) const {
  require_segment(origin, direction);
  const Impl& w = *impl_;
  std::vector<RaycastHit> hits;
  const AabbTree& tree = w.contacts.broadphase().tree();
  tree.raycast(origin, direction, 1, [&](std::int32_t proxy) -> Real {
    const auto shape = std::uint32_t(tree.user_data(proxy));
    RayHit hit;
    if (sees(w, filter, shape) &&
        raycast_shape(w.contacts.shape(shape), w.contacts.pose(shape), origin, direction, 1, hit))
      hits.push_back(make_hit(w, shape, hit, origin, direction));
    return -1;  // keep the whole segment: every hit counts
  });
  std::sort(hits.begin(), hits.end(), [](const RaycastHit& a, const RaycastHit& b) {
    return a.fraction != b.fraction ? a.fraction < b.fraction : a.body.index < b.body.index;
  });
  return hits;
}

std::vector<BodyId> World::overlap_aabb(const AABB& box,
                                        const std::optional<CollisionFilter>& filter) const {
  if (!is_finite(box.lower) || !is_finite(box.upper))
    throw InvalidArgument("overlap_aabb: the box must hold finite numbers");
  const Impl& w = *impl_;
  std::vector<BodyId> found;
  const AabbTree& tree = w.contacts.broadphase().tree();
  tree.query(box, [&](std::int32_t proxy) {
    const auto shape = std::uint32_t(tree.user_data(proxy));
    if (sees(w, filter, shape) &&
        shape_bounds(w.contacts.shape(shape), w.contacts.pose(shape)).overlaps(box))
      found.push_back(body_of_shape(w, shape));
    return true;
  });
  std::sort(found.begin(), found.end(),
            [](const BodyId& a, const BodyId& b) { return a.index < b.index; });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

std::vector<BodyId> World::overlap_sphere(const Vec3& center, Real radius,
                                          const std::optional<CollisionFilter>& filter) const {
  if (!is_finite(center) || !is_finite(radius) || radius <= 0)
    throw InvalidArgument("overlap_sphere: the centre must be finite and the radius > 0");
  return overlapping_bodies(*impl_, Sphere{radius}, {center, Quat::identity()}, filter);
}

std::vector<BodyId> World::overlap_box(const Box& box, const Transform& pose,
                                       const std::optional<CollisionFilter>& filter) const {
  const Vec3 h = box.half_extents;
  if (!is_finite(h) || !(h.x > 0 && h.y > 0 && h.z > 0) || !is_finite(pose.position) ||
      !is_finite(pose.orientation))
    throw InvalidArgument("overlap_box: half extents must be > 0 and the pose finite");
  return overlapping_bodies(*impl_, box, {pose.position, normalize(pose.orientation)}, filter);
}

std::vector<DebugContact> World::debug_contacts() const {
  const Impl& w = *impl_;
  std::vector<DebugContact> out;
  for (const ContactManifold& m : w.contacts.manifolds()) {
    for (int k = 0; k < m.count; ++k) {
      const ContactState& c = m.points[std::size_t(k)];
      out.push_back({{m.body_a, w.records[m.body_a].generation},
                     {m.body_b, w.records[m.body_b].generation},
                     c.point.position,
                     m.normal,
                     c.point.depth,
                     c.normal_impulse,
                     c.friction_impulse,
                     c.point.id.key(),
                     c.warm});
    }
  }
  return out;
}

std::vector<DebugTreeBox> World::debug_tree() const {
  std::vector<DebugTreeBox> out;
  impl_->contacts.broadphase().tree().for_each_node([&](const AABB& box, int height) {
    out.push_back({box, height});
  });
  return out;
}

}  // namespace impulse
