#pragma once
// A Vec3 padded to four lanes of one SIMD register (the GCC and Clang vector extension), for the
// inner loops of the row solvers and writers: a whole 3-vector is loaded, multiplied and added at
// once, and a body's two products in J v are added lane by lane before one sum across the lanes.
// The products below compute each lane as the Vec3 and Mat33 operations compute that component,
// in the same order, so a result in lanes has the same bits as the scalar one where the compiler
// fuses no multiply-add (the default x86-64 build has no FMA; a build for a processor with it may
// fuse the scalar and the lane products differently).

#include <impulse/math.h>

#include <array>
#include <cmath>
#include <type_traits>

#if defined(__SSE__)
#include <immintrin.h>
#endif

namespace impulse {

using Lanes = Real __attribute__((vector_size(4 * sizeof(Real))));

/// v in lanes. Always inlined: with double, a 32-byte vector returned from a call would change
/// the ABI without AVX.
[[gnu::always_inline]] inline Lanes lanes_of(const Vec3& v) {
  return Lanes{v.x, v.y, v.z, 0};
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

/// An array's four entries in lanes (to_array's inverse).
[[gnu::always_inline]] inline Lanes from_array(const std::array<Real, 4>& a) {
  Lanes out;
  __builtin_memcpy(&out, a.data(), sizeof(Lanes));
  return out;
}

/// The sum of the first three lanes.
[[gnu::always_inline]] inline Real sum3(const Lanes& l) {
  return l[0] + l[1] + l[2];
}

/// dot(Vec3, Vec3) of the first three lanes.
[[gnu::always_inline]] inline Real dot3(const Lanes& a, const Lanes& b) {
  return sum3(a * b);
}

/// cross(Vec3, Vec3) of the first three lanes; the fourth is a_3 b_3 - a_3 b_3 (0 for padded
/// 3-vectors).
[[gnu::always_inline]] inline Lanes cross3(const Lanes& a, const Lanes& b) {
  const Lanes a_yzx = __builtin_shufflevector(a, a, 1, 2, 0, 3);
  const Lanes a_zxy = __builtin_shufflevector(a, a, 2, 0, 1, 3);
  const Lanes b_yzx = __builtin_shufflevector(b, b, 1, 2, 0, 3);
  const Lanes b_zxy = __builtin_shufflevector(b, b, 2, 0, 1, 3);
  return a_yzx * b_zxy - a_zxy * b_yzx;
}

/// rotate(q, v) for a unit quaternion q of vector part `axis` and scalar part `w` (in every lane),
/// each component computed as rotate computes it.
[[gnu::always_inline]] inline Lanes rotated(const Lanes& axis, const Lanes& w, const Lanes& v) {
  const Lanes t = splat(2) * cross3(axis, v);
  return v + w * t + cross3(axis, t);
}

/// Four 3-vectors in lanes (a row's Jacobian).
inline std::array<Lanes, 4> to_lanes(const std::array<Vec3, 4>& v) {
  std::array<Lanes, 4> out;
  for (std::size_t k = 0; k < 4; ++k)
    out[k] = lanes_of(v[k]);
  return out;
}

/// A comparison's result in lanes: all bits set where it holds.
using LaneMask = decltype(Lanes{} < Lanes{});

/// Four 3-vectors in lanes with the fourth lanes zeroed, as lanes_of(to_vec3(...)) gives them: a
/// product's fourth lane is 0 for finite padded inputs but not for infinite ones. A mask, one AND
/// a vector (a shuffle with zero is two or three instructions without SSE4.1).
[[gnu::always_inline]] inline std::array<Lanes, 4> padded(const std::array<Lanes, 4>& v) {
  constexpr LaneMask first_three{-1, -1, -1, 0};
  std::array<Lanes, 4> out;
  for (std::size_t k = 0; k < 4; ++k)
    out[k] = __builtin_bit_cast(Lanes, __builtin_bit_cast(LaneMask, v[k]) & first_three);
  return out;
}

/// A Mat33 by its columns in lanes.
using LaneMat33 = std::array<Lanes, 3>;

inline LaneMat33 to_lanes(const Mat33& m) {
  return {lanes_of(m.c0), lanes_of(m.c1), lanes_of(m.c2)};
}

/// m * v as Mat33's product computes it.
[[gnu::always_inline]] inline Lanes times(const LaneMat33& m, const Lanes& v) {
  return m[0] * splat(v[0]) + m[1] * splat(v[1]) + m[2] * splat(v[2]);
}

/// Bit k set where lane k's mask is, for a mask of comparisons (each lane all bits or none). One
/// instruction where the processor has it (its lanes' sign bits): the sweeps' batches test their
/// masks several times a visit, and lane by lane the pyramid spent 1.9% of its instructions here.
/// Otherwise the lanes are read by name: a loop over them set GCC's Debug build warning that its
/// counter may be used uninitialised.
[[gnu::always_inline]] inline unsigned lane_bits(const LaneMask& m) {
#if defined(__AVX__) && defined(IMPULSE_DOUBLE_PRECISION)
  return unsigned(_mm256_movemask_pd(__builtin_bit_cast(__m256d, m)));
#elif defined(__SSE__) && !defined(IMPULSE_DOUBLE_PRECISION)
  return unsigned(_mm_movemask_ps(__builtin_bit_cast(__m128, m)));
#else
  return unsigned(m[0] != 0) | unsigned(m[1] != 0) << 1 | unsigned(m[2] != 0) << 2 |
         unsigned(m[3] != 0) << 3;
#endif
}

/// std::max lane by lane (a where neither is less, NaN included).
[[gnu::always_inline]] inline Lanes lane_max(const Lanes& a, const Lanes& b) {
  return a < b ? b : a;
}

/// |a| lane by lane as std::abs gives it: the sign bits cleared.
[[gnu::always_inline]] inline Lanes lane_abs(const Lanes& a) {
  return Lanes(LaneMask(a) & ~LaneMask(splat(Real(-0.0))));
}

/// The square root lane by lane (with -fno-math-errno, as the library builds: one instruction for
/// the four).
[[gnu::always_inline]] inline Lanes lane_sqrt(const Lanes& x) {
  Lanes root;
  for (std::size_t k = 0; k < 4; ++k)
    root[k] = std::sqrt(x[k]);
  return root;
}

/// The 4 x 4 matrix of rows r0 to r3 transposed: lane k of out[c] is lane c of rk.
[[gnu::always_inline]] inline std::array<Lanes, 4> transposed(const Lanes& r0, const Lanes& r1,
                                                              const Lanes& r2, const Lanes& r3) {
  const Lanes t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
  const Lanes t1 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
  const Lanes t2 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
  const Lanes t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
  return {__builtin_shufflevector(t0, t1, 0, 1, 4, 5), __builtin_shufflevector(t0, t1, 2, 3, 6, 7),
          __builtin_shufflevector(t2, t3, 0, 1, 4, 5), __builtin_shufflevector(t2, t3, 2, 3, 6, 7)};
}

/// Four padded 3-vectors (one a register) by components: the four x in out[0], y in out[1], z in
/// out[2].
[[gnu::always_inline]] inline void by_components(const Lanes& r0, const Lanes& r1, const Lanes& r2,
                                                 const Lanes& r3, Lanes* out) {
  const std::array<Lanes, 4> t = transposed(r0, r1, r2, r3);
  out[0] = t[0];
  out[1] = t[1];
  out[2] = t[2];
}

#if defined(__AVX512F__) && !defined(IMPULSE_DOUBLE_PRECISION)
#define IMPULSE_PARTS_IN_WIDE_REGISTERS 1  // PartsByComponents' wide form
#else
#define IMPULSE_PARTS_IN_WIDE_REGISTERS 0
#endif

/// Four rows' four padded 3-vectors each (a row's Jacobian or response parts) by components, as
/// by_components of each part gives them (the same lanes). Built for AVX-512 with floats, the four
/// parts go at once through registers four times as wide: seven shuffles for the twenty-eight of
/// four by_components. Elsewhere the wide shuffles went through the stack, so there each part is
/// transposed as it is stored. The rows must outlive it.
class PartsByComponents {
 public:
  PartsByComponents(const std::array<Lanes, 4>& r0, const std::array<Lanes, 4>& r1,
                    const std::array<Lanes, 4>& r2, const std::array<Lanes, 4>& r3) {
#if IMPULSE_PARTS_IN_WIDE_REGISTERS
    Wide w0, w1, w2, w3;  // read in place: a function returning one changes the ABI without AVX-512
    __builtin_memcpy(&w0, r0.data(), sizeof w0);
    __builtin_memcpy(&w1, r1.data(), sizeof w1);
    __builtin_memcpy(&w2, r2.data(), sizeof w2);
    __builtin_memcpy(&w3, r3.data(), sizeof w3);
    // Within each part: rows 0 and 1 (and 2 and 3) interleaved, then their pairs.
    const Wide low01 =
        __builtin_shufflevector(w0, w1, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    const Wide high01 =
        __builtin_shufflevector(w0, w1, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
    const Wide low23 =
        __builtin_shufflevector(w2, w3, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    const Wide high23 =
        __builtin_shufflevector(w2, w3, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
    x_ = __builtin_shufflevector(low01, low23, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28,
                                 29);
    y_ = __builtin_shufflevector(low01, low23, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15,
                                 30, 31);
    z_ = __builtin_shufflevector(high01, high23, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13,
                                 28, 29);
#else
    rows_ = {&r0, &r1, &r2, &r3};
#endif
  }
  /// Part p's four x in to[0], y in to[1], z in to[2]. Each a store of its own: a wider read of
  /// lanes stored apart waits for the stores to leave (a failed store forward).
  void store(std::size_t p, Lanes* to) const {
#if IMPULSE_PARTS_IN_WIDE_REGISTERS
    __builtin_memcpy(to, reinterpret_cast<const Real*>(&x_) + 4 * p, sizeof(Lanes));
    __builtin_memcpy(to + 1, reinterpret_cast<const Real*>(&y_) + 4 * p, sizeof(Lanes));
    __builtin_memcpy(to + 2, reinterpret_cast<const Real*>(&z_) + 4 * p, sizeof(Lanes));
#else
    by_components((*rows_[0])[p], (*rows_[1])[p], (*rows_[2])[p], (*rows_[3])[p], to);
#endif
  }

 private:
#if IMPULSE_PARTS_IN_WIDE_REGISTERS
  using Wide = Real __attribute__((vector_size(16 * sizeof(Real))));
  Wide x_, y_, z_;
#else
  std::array<const std::array<Lanes, 4>*, 4> rows_;  // transposed part by part as stored
#endif
};

/// by_components' inverse: the four padded 3-vectors of c[0] (x), c[1] (y) and c[2] (z).
[[gnu::always_inline]] inline std::array<Lanes, 4> by_lanes(const Lanes* c) {
  return transposed(c[0], c[1], c[2], Lanes{});
}

// Code written once for one value (Real) or four in lanes (Lanes, a LaneMask for a comparison):
// the same operations on each, so four in lanes have the bits of one at a time.

/// value as V: itself for a Real, in every lane for Lanes.
template <class V>
[[gnu::always_inline]] inline V splat_as(Real value) {
  if constexpr (std::is_same_v<V, Lanes>)
    return splat(value);
  else
    return value;
}

/// The square root, of one value or lane by lane.
[[gnu::always_inline]] inline Real square_root(Real x) {
  return std::sqrt(x);
}
[[gnu::always_inline]] inline Lanes square_root(const Lanes& x) {
  return lane_sqrt(x);
}

/// Whether x is finite, or lane by lane (a mask).
inline bool finite_value(Real x) {
  return is_finite(x);
}
inline LaneMask finite_value(const Lanes& x) {
  return lane_abs(x) < splat(k_infinity);
}

/// Whether both hold, or lane by lane.
inline bool both(bool a, bool b) {
  return a && b;
}
inline LaneMask both(const LaneMask& a, const LaneMask& b) {
  return a & b;
}

}  // namespace impulse
