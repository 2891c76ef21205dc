#include "collision/segment.h"

#include <algorithm>

namespace impulse {
namespace {

// Below this squared length (m^2) a segment is a point.
constexpr Real k_point_length_sq = Real(1e-12);
// Segments whose directions have a squared sine below this are parallel.
constexpr Real k_parallel_sine_sq = Real(1e-6);

Real clamp01(Real x) {
  return std::clamp(x, Real(0), Real(1));
}

}  // namespace

void closest_segment_parameters(const Vec3& p, const Vec3& d, const Vec3& q, const Vec3& e, Real& s,
                                Real& t) {
  const Vec3 r = p - q;
  const Real a = length_squared(d);
  const Real c = length_squared(e);
  const Real f = dot(e, r);
  if (a <= k_point_length_sq) {
    s = 0;
    t = c <= k_point_length_sq ? Real(0) : clamp01(f / c);
    return;
  }
  const Real g = dot(d, r);
  if (c <= k_point_length_sq) {
    t = 0;
    s = clamp01(-g / a);
    return;
  }
  // The closest points of the lines, s clamped first, then t, then s again for the clamped t.
  const Real b = dot(d, e);
  const Real denom = a * c - b * b;
  s = denom > k_parallel_sine_sq * a * c ? clamp01((b * f - g * c) / denom) : Real(0);
  t = (b * s + f) / c;
  if (t < 0) {
    t = 0;
    s = clamp01(-g / a);
  } else if (t > 1) {
    t = 1;
    s = clamp01((b - g) / a);
  }
}

}  // namespace impulse
