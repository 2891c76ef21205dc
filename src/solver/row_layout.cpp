#include "solver/row_layout.h"

#include <algorithm>
#include <array>

namespace impulse {

namespace {

// What take_kinds found in its rows.
struct KindsTaken {
  std::uint32_t differ;  // the bits where any row's kind differs from what kinds held
  std::uint32_t free;    // bit 0: some row's bounds are -infinity and infinity, not friction
};

// Rows [begin, end)'s kinds (their bounds: lo 0, lo -infinity, hi infinity; cone and disc flags;
// usability) into kinds. Through restrict pointers: a byte store may alias any column, and without
// them every row reloads its fields and the loop is not vectorised.
KindsTaken take_kinds(const RowStore& rows, std::size_t begin, std::size_t end,
                      std::uint8_t* __restrict kinds) {
  const Real* __restrict lo = rows.lo.data();
  const Real* __restrict hi = rows.hi.data();
  const std::uint8_t* __restrict cone = rows.cone.data();
  const Real* __restrict disc_step = rows.disc_step.data();
  const Real* __restrict inv_eff_mass = rows.inv_eff_mass.data();
  const std::int32_t* __restrict normal_row = rows.normal_row.data();
  std::uint32_t differ = 0, free = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const auto kind = std::uint8_t(
        std::uint32_t(lo[i] == 0) | std::uint32_t(lo[i] == -k_infinity) << 1 |
        std::uint32_t(hi[i] == k_infinity) << 2 | std::uint32_t(cone[i] != 0) << 3 |
        std::uint32_t(disc_step[i] > 0) << 4 | std::uint32_t(inv_eff_mass[i] > 0) << 5);
    differ |= std::uint32_t(kind ^ kinds[i]);
    free |= std::uint32_t(kind >> 1) & std::uint32_t(kind >> 2) & std::uint32_t(normal_row[i] < 0);
    kinds[i] = kind;
  }
  return {differ, free};
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
  const std::size_t chunks = chunks_on(pool, n, k_chunks, k_parallel_rows);
  std::array<bool, k_chunks> chunk_same{}, chunk_free{};
  run_chunks(pool, n, chunks, k_parallel_rows,
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
               const KindsTaken taken = take_kinds(rows, begin, end, kinds_.data());
               chunk_same[chunk] = ids_same && taken.differ == 0;
               chunk_free[chunk] = taken.free != 0;
             });
  const auto used = [&](const auto& flags) { return std::span(flags).first(chunks); };
  same = same && std::ranges::all_of(used(chunk_same), [](bool x) { return x; });
  free_rows_ = std::ranges::any_of(used(chunk_free), [](bool x) { return x; });
  block_begin_ = rows.block_begin;
  taken_ = true;
  return same;
}

}  // namespace impulse
