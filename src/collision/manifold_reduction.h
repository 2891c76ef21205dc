#pragma once
// Contact manifold reduction: many candidate points of one contact down to the four that keep
// the deepest penetration and the widest support (the "largest area" reduction of Box2D-style
// engines), usable by any pair that clips polygons.

#include <span>

#include "collision/manifold.h"

namespace impulse {

/// Writes normal and at most Manifold::k_max_points of the candidates to out (replacing what it
/// held): all of them when they fit, else the deepest point, the point farthest from it in the
/// contact plane, then the two that make the quadrilateral of largest area.
void reduce_manifold(std::span<const ContactPoint> candidates, const Vec3& normal, Manifold& out);

}  // namespace impulse
