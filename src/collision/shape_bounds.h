#pragma once
// World bounding boxes of single shapes at a pose, for the broadphase. Each is tight: every face
// of the box touches the shape (planes: see below).

#include <impulse/math/aabb.h>
#include <impulse/shape.h>

#include "collision/polyhedron.h"

namespace impulse {

/// Half the side (m) of the world cube, centred on the origin, that a plane's bounds are clipped
/// to. Planes are unbounded, but the AABB tree needs finite boxes: an infinite one makes its
/// areas inf and their differences NaN. 1e6 m is beyond any world a float build can simulate
/// (positions there move in 6 cm steps), and areas of about 1e13 m^2 stay far from overflow.
inline constexpr Real k_plane_bounds_extent = Real(1e6);

AABB bounds(const Sphere& shape, const Transform& pose);
/// Arvo's method: the centre moved, the half extents through |R|.
AABB bounds(const Box& shape, const Transform& pose);
/// The two segment ends, widened by the radius: exact.
AABB bounds(const Capsule& shape, const Transform& pose);
/// Over the vertices: exact.
AABB bounds(const PolyhedronView& shape, const Transform& pose);
/// The box of the half-space's part inside the world cube of k_plane_bounds_extent: exact there,
/// so a ground plane (normal along an axis) is bounded on that axis by its surface, and a tilted
/// plane only as far as the cube's corners allow.
AABB bounds(const Plane& shape, const Transform& pose);

}  // namespace impulse
