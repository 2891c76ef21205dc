#pragma once
// A Vec3 padded to four lanes of one SIMD register (the GCC and Clang vector extension), for the
// inner loop of the row solvers: a whole 3-vector is loaded, multiplied and added at once, and a
// body's two products in J v are added lane by lane before one sum across the lanes.

#include <impulse/math.h>

#include <array>

namespace impulse {

using Lanes = Real __attribute__((vector_size(4 * sizeof(Real))));

/// Writes v into out (an out-parameter: with double, a 32-byte vector returned by value would
/// change the ABI without AVX).
inline void to_lanes(const Vec3& v, Lanes& out) {
  out = Lanes{v.x, v.y, v.z, 0};
}

inline Vec3 to_vec3(const Lanes& l) {
  return {l[0], l[1], l[2]};
}

/// s in every lane.
[[gnu::always_inline]] inline Lanes splat(Real s) {
  return Lanes{s, s, s, s};
}

/// The four lanes as an array.
[[gnu::always_inline]] inline std::array<Real, 4> to_array(const Lanes& l) {
  return {l[0], l[1], l[2], l[3]};
}

/// The sum of the first three lanes.
[[gnu::always_inline]] inline Real sum3(const Lanes& l) {
  return l[0] + l[1] + l[2];
}

}  // namespace impulse
