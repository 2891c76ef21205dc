#pragma once
// The narrowphase entry point: contacts between any two cooked shapes, dispatched to the routine
// of their pair family. A routine is written for one argument order; the other order runs it
// with the shapes exchanged and turns its result around (normal reversed, points moved to the
// other surface, feature ids flipped), so every pair reports from a to b.

#include <span>
#include <vector>

#include "collision/cooked_shape.h"
#include "collision/manifold.h"

namespace impulse {

/// Appends the manifolds of a at ta against b at tb to out: none when they are apart by more
/// than margin (m) or both are static-only (planes, meshes); one for convex pairs; one per
/// normal group against a mesh. Normals point from a to b, points lie on b's surface. For two
/// boxes, box_gap (if given) receives collide_box_box's face_gap; otherwise it is left as it is.
/// For a convex and a mesh, `touched` is the pair's contacts of the last step
/// (collide_convex_mesh).
void collide_shapes(const CookedShape& a, const Transform& ta, const CookedShape& b,
                    const Transform& tb, Real margin, std::vector<Manifold>& out,
                    Real* box_gap = nullptr, std::span<const MeshTouch> touched = {});

/// The manifold as seen from the other shape: normal reversed, points on the other surface,
/// feature ids flipped.
void flip_manifold(Manifold& manifold);

}  // namespace impulse
