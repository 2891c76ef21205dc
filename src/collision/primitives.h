#pragma once
// Narrowphase for the primitive pairs: sphere-sphere, sphere-capsule, capsule-capsule, sphere-box
// and capsule-box. Conventions follow box_box.h: the normal is unit and points from a to b; depth >
// 0 overlaps and points separated by up to margin (m) are kept with negative depth; a point's
// position lies on b's surface. Each returns whether out holds any point.
//
// Feature ids: a sphere is vertex 0; a capsule's segment ends are vertex 0 (-y) and vertex 1
// (+y) and its inner segment is edge 0; a box uses the face, edge and vertex numbering of
// box_box.h.

#include <impulse/shape.h>

#include "collision/manifold.h"

namespace impulse {

/// One point on the line of centres.
bool collide_sphere_sphere(const Sphere& a, const Transform& ta, const Sphere& b,
                           const Transform& tb, Real margin, Manifold& out);

/// One point from the sphere centre to the closest point of the capsule's segment.
bool collide_sphere_capsule(const Sphere& a, const Transform& ta, const Capsule& b,
                            const Transform& tb, Real margin, Manifold& out);

/// One point between the closest points of the segments, or two at the ends of the overlap
/// when the segments are parallel.
bool collide_capsule_capsule(const Capsule& a, const Transform& ta, const Capsule& b,
                             const Transform& tb, Real margin, Manifold& out);

/// One point from the sphere centre to the closest point of the box; a centre inside the box is
/// pushed out through the face of least penetration.
bool collide_sphere_box(const Sphere& a, const Transform& ta, const Box& b, const Transform& tb,
                        Real margin, Manifold& out);

/// The segment clipped to the box face facing it when it lies along that face (two points),
/// else one point at the closest points, or from the deepest segment end along the axis of
/// least overlap when the segment crosses the box.
bool collide_capsule_box(const Capsule& a, const Transform& ta, const Box& b, const Transform& tb,
                         Real margin, Manifold& out);

}  // namespace impulse
