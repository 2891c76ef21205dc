#pragma once
// Ray casts against single shapes, in world space. A ray is the segment origin + t * direction,
// t in [0, max_fraction]; a hit reports the smallest such t at which the segment enters the
// shape, the outward surface normal there, and the feature it hit (a mesh's triangle). A ray
// that starts inside a solid shape hits at fraction 0 with normal -direction / |direction|; a
// zero direction never hits (there is no such normal).

#include <impulse/shape.h>

#include <cstdint>

#include "collision/polyhedron.h"

namespace impulse {

struct RayHit {
  Real fraction = 0;            // t at the hit
  Vec3 normal;                  // unit, world, outward at the hit
  std::uint32_t sub_shape = 0;  // the triangle of a mesh; 0 for other shapes
};

bool raycast(const Sphere& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit);
bool raycast(const Box& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit);
bool raycast(const Capsule& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit);
/// A closed polyhedron, bounded by its face planes (a hull, a box); not a triangle's flat view.
bool raycast(const PolyhedronView& shape, const Transform& pose, const Vec3& origin,
             const Vec3& direction, Real max_fraction, RayHit& hit);
/// A plane is a solid half-space: a ray starting below it hits at fraction 0.
bool raycast(const Plane& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit);

}  // namespace impulse
