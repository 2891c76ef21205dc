#pragma once
// Per-item flag bytes tested eight at a time: one 8-byte load and a mask, for passes over rows that
// skip the runs of items a flag rules out (most of a pyramid's rows are a batch's).

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace impulse {

/// Bytes per test of eight_have.
constexpr std::size_t k_flag_bytes = 8;

/// Whether each of the eight bytes from `bytes` has every bit of `bits` set.
inline bool eight_have(const std::uint8_t* bytes, std::uint8_t bits) {
  const std::uint64_t mask = std::uint64_t(bits) * 0x0101010101010101u;
  std::uint64_t word;
  std::memcpy(&word, bytes, sizeof word);
  return (word & mask) == mask;
}

}  // namespace impulse
