#include "solver/row_layout.h"

#include <algorithm>
#include <array>

namespace impulse {

namespace {

// Row i's layout: its bodies, its friction link, and flags for its kind of bounds (lo 0, lo
// -infinity, hi infinity), cone and disc, usability, and whether each body moves.
[[gnu::always_inline]] inline std::array<std::uint32_t, 4> key_of(
    const RowStore& rows, std::size_t i, const std::vector<std::uint8_t>& movable) {
  const Real lo = rows.lo[i], hi = rows.hi[i];
  const std::uint32_t a = rows.body_a[i], b = rows.body_b[i];
  const std::uint32_t flags =
      std::uint32_t(lo == 0) | std::uint32_t(lo == -k_infinity) << 1 |
      std::uint32_t(hi == k_infinity) << 2 | std::uint32_t(rows.cone[i] != 0) << 3 |
      std::uint32_t(rows.disc_step[i] > 0) << 4 | std::uint32_t(rows.inv_eff_mass[i] > 0) << 5 |
      std::uint32_t(movable[a]) << 6 | std::uint32_t(movable[b]) << 7;
  return {a, b, std::uint32_t(rows.normal_row[i]), flags};
}

}  // namespace

bool RowLayout::update(const RowStore& rows, std::span<const SolverBodyMass> masses,
                       TaskPool* pool) {
  bool same = taken_ && keys_.size() == rows.size() && movable_.size() == masses.size() &&
              block_begin_ == rows.block_begin;
  movable_.resize(masses.size());
  for (std::size_t k = 0; k < masses.size(); ++k) {
    const std::uint8_t moves = masses[k].movable() ? 1 : 0;
    same = same && movable_[k] == moves;
    movable_[k] = moves;
  }
  keys_.resize(rows.size());
  constexpr std::size_t k_chunks = 16, k_parallel_rows = 2048;
  std::array<bool, k_chunks> chunk_same{};
  run_chunks(pool, rows.size(), k_chunks, k_parallel_rows,
             [&](std::size_t chunk, std::size_t begin, std::size_t end) {
               // Any difference, or-ed up without a branch per row (std::array's == calls memcmp).
               std::uint32_t differ = 0;
               for (std::size_t i = begin; i < end; ++i) {
                 const Key key = key_of(rows, i, movable_);
                 Key& kept = keys_[i];
                 differ |= (kept[0] ^ key[0]) | (kept[1] ^ key[1]) | (kept[2] ^ key[2]) |
                           (kept[3] ^ key[3]);
                 kept = key;
               }
               chunk_same[chunk] = differ == 0;
             });
  same = same && std::all_of(chunk_same.begin(), chunk_same.end(), [](bool x) { return x; });
  block_begin_ = rows.block_begin;
  taken_ = true;
  return same;
}

}  // namespace impulse
