#pragma once
// Support mappings of the primitives for GJK-style queries: the point of the shape farthest along
// a direction. Local frame in and out (direction in the shape frame, as the polyhedron's
// PolyhedronView::support): the caller rotates the direction once per query, not per shape point.
// The direction need not be unit; ties (a face or edge facing the direction) give a vertex, and a
// zero direction gives some point of the shape, since every point is then farthest.

#include <impulse/shape.h>

namespace impulse {

/// The centre plus radius along direction (the centre for a zero direction).
Vec3 support(const Sphere& shape, const Vec3& direction);
/// The corner on direction's side of each axis (+ on a zero component).
Vec3 support(const Box& shape, const Vec3& direction);
/// The segment end on direction's side (+y on a tie) plus radius along direction.
Vec3 support(const Capsule& shape, const Vec3& direction);

}  // namespace impulse
