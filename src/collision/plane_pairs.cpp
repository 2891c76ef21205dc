#include "collision/plane_pairs.h"

#include <vector>

#include "collision/manifold_reduction.h"

namespace impulse {
namespace {

// The plane in world space with a unit normal: dot(normal, x) <= offset inside.
struct WorldPlane {
  Vec3 normal;
  Real offset = 0;
  Real separation(const Vec3& x) const { return dot(normal, x) - offset; }
};

WorldPlane world_plane(const Plane& plane, const Transform& pose) {
  // Scaling the normal to unit scales the offset with it: the half-space is the same.
  const Real inv_length = Real(1) / length(plane.normal);
  const Vec3 n = rotate(pose.orientation, plane.normal * inv_length);
  return {n, plane.offset * inv_length + dot(n, pose.position)};
}

ContactPoint point_on_plane(const WorldPlane& plane, const Vec3& x, Real separation, Real depth,
                            std::uint32_t vertex) {
  return {x - plane.normal * separation,
          depth,
          {std::uint8_t(FeatureType::vertex), vertex, std::uint8_t(FeatureType::face), 0}};
}

// A sphere of radius r about x: its deepest point is r below x along the plane normal.
void add_rounded_vertex(const WorldPlane& plane, const Vec3& x, Real radius, std::uint32_t vertex,
                        Real margin, Manifold& out) {
  const Real separation = plane.separation(x);
  const Real depth = radius - separation;
  if (depth >= -margin) out.add(point_on_plane(plane, x, separation, depth, vertex));
}

bool collide(const Sphere& a, const Transform& ta, const WorldPlane& plane, Real margin,
             Manifold& out) {
  add_rounded_vertex(plane, ta.position, a.radius, 0, margin, out);
  return out.count > 0;
}

bool collide(const Capsule& a, const Transform& ta, const WorldPlane& plane, Real margin,
             Manifold& out) {
  add_rounded_vertex(plane, apply(ta, {0, -a.half_height, 0}), a.radius, 0, margin, out);
  add_rounded_vertex(plane, apply(ta, {0, a.half_height, 0}), a.radius, 1, margin, out);
  return out.count > 0;
}

bool collide(const PolyhedronView& a, const Transform& ta, const WorldPlane& plane, Real margin,
             Manifold& out) {
  // Separations in a's frame save transforming the vertices that are far from the plane.
  const Vec3 n_local = inverse_rotate(ta.orientation, plane.normal);
  const Real offset_local = plane.offset - dot(plane.normal, ta.position);
  thread_local std::vector<ContactPoint> candidates;
  candidates.clear();
  for (std::size_t v = 0; v < a.vertices.size(); ++v) {
    const Real separation = dot(n_local, a.vertices[v]) - offset_local;
    if (separation > margin) continue;
    candidates.push_back(
        point_on_plane(plane, apply(ta, a.vertices[v]), separation, -separation, std::uint32_t(v)));
  }
  reduce_manifold(candidates, out.normal, out);
  return out.count > 0;
}

}  // namespace

bool collide_convex_plane(const ConvexRef& a, const Transform& ta, const Plane& b,
                          const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const WorldPlane plane = world_plane(b, tb);
  out.normal = -plane.normal;
  return std::visit([&](const auto& shape) { return collide(shape, ta, plane, margin, out); }, a);
}

}  // namespace impulse
