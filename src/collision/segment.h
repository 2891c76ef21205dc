#pragma once
// Closest points of two segments, for the pairs that meet edge to edge or segment to edge.

#include <impulse/math.h>

namespace impulse {

/// Parameters s, t in [0, 1] of the closest points p + s d and q + t e of segments (p, p + d) and
/// (q, q + e) (Ericson, Real-Time Collision Detection 5.1.9). Parallel segments get one of their
/// closest pairs, the one at s = 0 when it is closest; a segment of zero length is its point.
void closest_segment_parameters(const Vec3& p, const Vec3& d, const Vec3& q, const Vec3& e, Real& s,
                                Real& t);

}  // namespace impulse
