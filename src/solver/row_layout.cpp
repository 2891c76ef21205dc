#include "solver/row_layout.h"

#include <algorithm>
#include <array>

namespace impulse {

RowLayout::Key RowLayout::key_of(const RowStore& rows, std::size_t i,
                                 const std::vector<std::uint8_t>& movable) {
  const Real lo = rows.lo[i], hi = rows.hi[i];
  const std::uint32_t flags =
      (lo == 0 ? 1u : 0u) | (lo == -k_infinity ? 2u : 0u) | (hi == k_infinity ? 4u : 0u) |
      (rows.cone[i] != 0 ? 8u : 0u) | (rows.disc_first(i) ? 16u : 0u) |
      (rows.inv_eff_mass[i] > 0 ? 32u : 0u) | (movable[rows.body_a[i]] != 0 ? 64u : 0u) |
      (movable[rows.body_b[i]] != 0 ? 128u : 0u);
  return {rows.body_a[i], rows.body_b[i], rows.normal_row[i], flags};
}

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
               bool equal = true;
               for (std::size_t i = begin; i < end; ++i) {
                 const Key key = key_of(rows, i, movable_);
                 equal = equal && keys_[i] == key;
                 keys_[i] = key;
               }
               chunk_same[chunk] = equal;
             });
  same = same && std::all_of(chunk_same.begin(), chunk_same.end(), [](bool x) { return x; });
  block_begin_ = rows.block_begin;
  taken_ = true;
  return same;
}

}  // namespace impulse
