#pragma once
// Box-box narrowphase: the separating axis test on 15 axes, then face clipping (seed 001 section
// 8.2); for an edge axis, the face most nearly across it clipped (EdgeAxis) or one edge-edge point.
// Feature numbering of a box, used in the FeatureIds it reports: vertex v has bit k set when it
// lies on the + side of local axis k; face 2k + 0 is the +k face and 2k + 1 the -k face; edge 4k +
// b1 + 2 b2 runs along axis k with b1, b2 the vertex bits of axes (k + 1) % 3 and (k + 2) % 3.

#include <impulse/shape.h>

#include "collision/manifold.h"

namespace impulse {

/// Contact between boxes a and b: normal from a to b, points on b's surface, depth > 0 when
/// overlapping; points separated by up to margin (m) are kept with negative depth. Returns
/// whether out holds any point. face_gap, if given, receives the largest of the separations along
/// the boxes' six face axes (negative where they overlap along all), a lower bound of their
/// distance: while it exceeds the margin, collide_box_box finds nothing.
bool collide_box_box(const Box& a, const Transform& ta, const Box& b, const Transform& tb,
                     Real margin, Manifold& out, Real* face_gap = nullptr);

}  // namespace impulse
