#pragma once
// Turns fuzzer bytes into values. Past the end every read gives zero, so any input is a complete
// recipe. Numbers are usually drawn from a range the engine is meant to simulate well; one read
// in sixteen takes four raw bytes instead (any float: NaN, inf, huge, denormal), and raw_reads()
// counts those, so that a caller knows when what the world accepted left the sane ranges.

#include <impulse/math.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace impulse::fuzz {

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  std::uint8_t byte() { return pos_ < bytes_.size() ? bytes_[pos_++] : 0; }

  /// A value in [0, count).
  std::size_t pick(std::size_t count) { return byte() % count; }

  bool flag() { return byte() & 1; }

  /// Uniform in [lo, hi] at 8-bit resolution, or (rarely) any float.
  Real number(Real lo, Real hi) {
    const std::uint8_t b = byte();
    if (b >= 0xf0) return raw();
    return lo + (hi - lo) * Real(b) / Real(0xef);
  }

  Vec3 vec(Real lo, Real hi) {
    const Real x = number(lo, hi), y = number(lo, hi), z = number(lo, hi);
    return {x, y, z};
  }

  /// A rotation, not normalised: the world normalises (and refuses a zero quaternion).
  Quat quat() {
    const Real x = number(-1, 1), y = number(-1, 1), z = number(-1, 1), w = number(-1, 1);
    return {x, y, z, w};
  }

  /// How many raw floats were handed out so far.
  std::size_t raw_reads() const { return raw_reads_; }

 private:
  Real raw() {
    ++raw_reads_;
    std::uint32_t bits = 0;
    for (int i = 0; i < 4; ++i)
      bits = bits << 8 | byte();
    return Real(std::bit_cast<float>(bits));
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  std::size_t raw_reads_ = 0;
};

}  // namespace impulse::fuzz
