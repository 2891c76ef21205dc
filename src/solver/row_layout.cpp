#include "solver/row_layout.h"

#include "core/buffer_turns.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace impulse {

namespace {

// What take_kinds found in its rows.
struct KindsTaken {
  std::uint32_t differ;  // the bits where any row's kind differs from what kinds held
  std::uint32_t free;    // bit 0: some row's bounds are -infinity and infinity, not friction
};

// Rows [begin, end)'s kinds (their bounds: lo 0, lo -infinity, hi infinity; cone and disc flags;
// usability) into kinds; with k_compare, the bits where they differ from held's. Through restrict
// pointers: a byte store may alias any column, and without them every row reloads its fields and
// the loop is not vectorised.
template <bool k_compare>
KindsTaken take_kinds(const RowStore& rows, std::size_t begin, std::size_t end,
                      const std::uint8_t* __restrict held, std::uint8_t* __restrict kinds) {
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
    if constexpr (k_compare) differ |= std::uint32_t(kind ^ held[i]);
    free |= std::uint32_t(kind >> 1) & std::uint32_t(kind >> 2) & std::uint32_t(normal_row[i] < 0);
    kinds[i] = kind;
  }
  return {differ, free};
}

}  // namespace

bool RowLayout::update(const RowStore& rows, std::span<const SolverBodyMass> masses,
                       TaskPool* pool) {
  const std::size_t n = rows.size();
  bool movability_same = taken_ && movable_.size() == masses.size();
  movable_.resize(masses.size());
  for (std::size_t k = 0; k < masses.size(); ++k) {
    const std::uint8_t moves = masses[k].movable() ? 1 : 0;
    movability_same = movability_same && movable_[k] == moves;
    movable_[k] = moves;
  }
  // The rows are compared with now_'s where their counts allow, and their kinds taken into
  // before_'s, which become now_'s on a change: the layout before stays whole for BlockMatch.
  const bool comparable = taken_ && now_.kinds.size() == n && now_.block_begin == rows.block_begin;
  before_.kinds.resize(n);
  share_room(before_.kinds, now_.kinds);
  constexpr std::size_t k_chunks = 16, k_parallel_rows = 2048;
  const std::size_t chunks = chunks_on(pool, n, k_chunks, k_parallel_rows);
  std::array<bool, k_chunks> chunk_same{}, chunk_free{};
  run_chunks(
      pool, n, chunks, k_parallel_rows, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
        // The ids as memory, compared at once; the kinds or-ed up without a branch per row.
        const auto equal = [&](const auto& kept, const auto& column) {
          return std::equal(column.begin() + std::ptrdiff_t(begin),
                            column.begin() + std::ptrdiff_t(end),
                            kept.begin() + std::ptrdiff_t(begin));
        };
        std::uint8_t* taken_kinds = before_.kinds.data();
        if (!comparable) {
          chunk_free[chunk] = take_kinds<false>(rows, begin, end, nullptr, taken_kinds).free;
          return;
        }
        const bool ids_same = equal(now_.body_a, rows.body_a) && equal(now_.body_b, rows.body_b) &&
                              equal(now_.normal_row, rows.normal_row) &&
                              equal(now_.normal_count, rows.normal_count);
        const KindsTaken taken = take_kinds<true>(rows, begin, end, now_.kinds.data(), taken_kinds);
        chunk_same[chunk] = ids_same && taken.differ == 0;
        chunk_free[chunk] = taken.free != 0;
      });
  const auto used = [&](const auto& flags) { return std::span(flags).first(chunks); };
  const bool same = comparable && movability_same &&
                    std::ranges::all_of(used(chunk_same), [](bool x) { return x; });
  free_rows_ = std::ranges::any_of(used(chunk_free), [](bool x) { return x; });
  before_matches_ = !same && taken_ && movability_same;
  if (!same) {
    // Each column's storage passes between the two: no allocation once warmed up.
    std::swap(now_.kinds, before_.kinds);
    const auto take = [](auto& now, auto& before, const auto& column) {
      std::swap(now, before);
      now.assign(column.begin(), column.end());
      share_room(now, before);
    };
    take(now_.body_a, before_.body_a, rows.body_a);
    take(now_.body_b, before_.body_b, rows.body_b);
    take(now_.normal_row, before_.normal_row, rows.normal_row);
    take(now_.normal_count, before_.normal_count, rows.normal_count);
    take(now_.block_begin, before_.block_begin, rows.block_begin);
  }
  taken_ = true;
  return same;
}

bool RowLayout::rows_alike(std::uint32_t begin, std::uint32_t end, std::uint32_t before) const {
  const auto equal = [&](const auto& now, const auto& was) {
    return std::equal(now.begin() + begin, now.begin() + end, was.begin() + before);
  };
  if (!equal(now_.body_a, before_.body_a) || !equal(now_.body_b, before_.body_b) ||
      !equal(now_.kinds, before_.kinds) || !equal(now_.normal_count, before_.normal_count))
    return false;
  // The friction links relative to the rows' first, or-ed up without a branch per row (a link is
  // never INT32_MIN rows behind).
  const auto link = [](std::int32_t normal_row, std::uint32_t first) {
    return normal_row < 0 ? std::numeric_limits<std::int32_t>::min()
                          : normal_row - std::int32_t(first);
  };
  const std::int32_t* now = now_.normal_row.data() + begin;
  const std::int32_t* was = before_.normal_row.data() + before;
  std::int32_t differ = 0;
  for (std::size_t k = 0; k < end - begin; ++k)
    differ |= link(now[k], begin) ^ link(was[k], before);
  return differ == 0;
}

bool RowLayout::blocks_may_match(std::uint32_t block, std::uint32_t before) const {
  const std::uint32_t begin = now_.block_begin[block], first = before_.block_begin[before];
  return now_.block_begin[block + 1] - begin == before_.block_begin[before + 1] - first &&
         begin < now_.block_begin[block + 1] && now_.body_a[begin] == before_.body_a[first] &&
         now_.body_b[begin] == before_.body_b[first];
}

RowLayout::AlikeBlocks RowLayout::BlockMatch::match(std::uint32_t block) {
  // A manifold that went, or a few, are passed over; one that came matches nothing.
  constexpr std::uint32_t k_look_ahead = 8;
  const RowLayout& layout = *layout_;
  if (!layout.before_matches_) return {};
  const auto blocks = std::uint32_t(layout.now_.block_begin.size() - 1);
  const auto blocks_before = std::uint32_t(layout.before_.block_begin.size() - 1);
  std::uint32_t first = next_;
  while (first < blocks_before && first < next_ + k_look_ahead &&
         !layout.blocks_may_match(block, first))
    ++first;
  if (first == blocks_before || first == next_ + k_look_ahead) return {};
  std::uint32_t count = 1;
  while (block + count < blocks && first + count < blocks_before &&
         layout.blocks_may_match(block + count, first + count))
    ++count;
  // The rows of the run compared at once; where they differ (a contact point changed its kind),
  // the run's alike blocks before the first that differs.
  const auto rows_from = [&](std::uint32_t b, std::uint32_t k) {
    return layout.rows_alike(layout.now_.block_begin[b], layout.now_.block_begin[b + k],
                             layout.before_.block_begin[first + (b - block)]);
  };
  if (!rows_from(block, count)) {
    std::uint32_t alike = 0;
    while (alike < count && rows_from(block + alike, 1))
      ++alike;
    count = alike;
  }
  next_ = first + std::max(count, std::uint32_t(1));
  if (count == 0) return {};
  return {count, layout.before_.block_begin[first]};
}

}  // namespace impulse
