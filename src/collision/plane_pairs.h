#pragma once
// Narrowphase of a convex shape against a static plane (shape.h's half-space dot(n, x) <= offset
// in the plane's frame). Conventions follow box_box.h: the normal is unit and points from the
// convex to the plane, which is minus the plane's world normal; depth > 0 overlaps and points
// separated by up to margin (m) are kept with negative depth; every point lies on the plane's
// surface. Feature ids: the convex side names its vertex (a sphere's vertex 0, a capsule's ends 0
// and 1, a polyhedron's vertex index), the plane side is face 0.

#include <impulse/shape.h>

#include "collision/convex_ref.h"
#include "collision/manifold.h"

namespace impulse {

/// Contact of convex a with plane b: a sphere gives one point; a capsule one point per segment end
/// within margin of the plane (two when it lies along it); a polyhedron one per vertex within
/// margin (a whole face when it rests flat), reduced to 4 (reduce_manifold). Returns whether out
/// holds any point. A polyhedron with many vertices near the plane uses a thread_local buffer that
/// keeps its capacity, so steady use allocates nothing.
bool collide_convex_plane(const ConvexRef& a, const Transform& ta, const Plane& b,
                          const Transform& tb, Real margin, Manifold& out);

}  // namespace impulse
