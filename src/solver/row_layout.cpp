#include "solver/row_layout.h"

#include <algorithm>
#include <array>

namespace impulse {

namespace {

// Row i's kind: its bounds (lo 0, lo -infinity, hi infinity), cone and disc flags, usability.
[[gnu::always_inline]] inline std::uint8_t kind_of(const RowStore& rows, std::size_t i) {
  const Real lo = rows.lo[i], hi = rows.hi[i];
  return std::uint8_t(std::uint32_t(lo == 0) | std::uint32_t(lo == -k_infinity) << 1 |
                      std::uint32_t(hi == k_infinity) << 2 | std::uint32_t(rows.cone[i] != 0) << 3 |
                      std::uint32_t(rows.disc_step[i] > 0) << 4 |
                      std::uint32_t(rows.inv_eff_mass[i] > 0) << 5);
}

}  // namespace

bool RowLayout::update(const RowStore& rows, std::span<const SolverBodyMass> masses,
                       TaskPool* pool) {
  const std::size_t n = rows.size();
  bool same = taken_ && kinds_.size() == n && movable_.size() == masses.size() &&
              block_begin_ == rows.block_begin;
  movable_.resize(masses.size());
  for (std::size_t k = 0; k < masses.size(); ++k) {
    const std::uint8_t moves = masses[k].movable() ? 1 : 0;
    same = same && movable_[k] == moves;
    movable_[k] = moves;
  }
  body_a_.resize(n);
  body_b_.resize(n);
  normal_row_.resize(n);
  normal_count_.resize(n);
  kinds_.resize(n);
  constexpr std::size_t k_chunks = 16, k_parallel_rows = 2048;
  std::array<bool, k_chunks> chunk_same{};
  run_chunks(pool, n, k_chunks, k_parallel_rows,
             [&](std::size_t chunk, std::size_t begin, std::size_t end) {
               // The ids as memory (compared at once, copied only where they differ); the kinds
               // or-ed up without a branch per row.
               bool ids_same = true;
               const auto keep = [&](auto& kept, const auto& column) {
                 const auto from = column.begin() + begin, to = column.begin() + end;
                 const auto at = kept.begin() + std::ptrdiff_t(begin);
                 if (std::equal(from, to, at)) return;
                 std::copy(from, to, at);
                 ids_same = false;
               };
               keep(body_a_, rows.body_a);
               keep(body_b_, rows.body_b);
               keep(normal_row_, rows.normal_row);
               keep(normal_count_, rows.normal_count);
               std::uint32_t differ = 0;
               for (std::size_t i = begin; i < end; ++i) {
                 const std::uint8_t kind = kind_of(rows, i);
                 differ |= std::uint32_t(kind ^ kinds_[i]);
                 kinds_[i] = kind;
               }
               chunk_same[chunk] = ids_same && differ == 0;
             });
  same = same && std::all_of(chunk_same.begin(), chunk_same.end(), [](bool x) { return x; });
  block_begin_ = rows.block_begin;
  taken_ = true;
  return same;
}

}  // namespace impulse
