#include "solver/sweep_schedule.h"

#include <algorithm>
#include <bit>

namespace impulse {

void SweepSchedule::find_units(const RowStore& rows, std::span<const std::uint32_t> group_of) {
  units_.clear();
  const auto in_unit = [&](std::size_t i) { return group_of[i] != k_row_in_block; };
  // The open unit: rows [begin, end), which must reach `needed` to hold its friction rows' normal
  // rows.
  std::uint32_t begin = 0, end = 0, needed = 0;
  bool open = false;
  for (std::size_t block = 0; block + 1 < rows.block_begin.size(); ++block) {
    if (!open) {
      begin = rows.block_begin[block];
      needed = 0;
      open = true;
    }
    end = rows.block_begin[block + 1];
    for (std::uint32_t i = rows.block_begin[block]; i < end; ++i) {
      const std::int32_t normal = rows.normal_row[i];
      if (!in_unit(i) || normal < 0) continue;
      const auto row = std::uint32_t(normal);
      needed = std::max(needed, row + 1);
      if (row >= begin) continue;
      while (!units_.empty() && units_.back().end > row) {  // take earlier units back in
        begin = std::min(begin, units_.back().begin);
        units_.pop_back();
      }
      begin = std::min(begin, row);
    }
    if (end < needed) continue;
    open = false;
    std::uint32_t first = begin, last = end;
    while (first < last && !in_unit(first))
      ++first;
    while (last > first && !in_unit(last - 1))
      --last;
    if (first < last) units_.push_back({first, last});
  }
}

void SweepSchedule::build(const RowStore& rows, std::span<const std::uint32_t> group_of,
                          std::span<const std::uint8_t> moves, std::size_t bodies) {
  find_units(rows, group_of);
  const auto each_moving_body = [&](RowUnit unit, auto&& visit) {
    for (std::uint32_t i = unit.begin; i < unit.end; ++i) {
      if (group_of[i] == k_row_in_block) continue;
      if (moves[i] & 1) visit(rows.body_a[i]);
      if (moves[i] & 2) visit(rows.body_b[i]);
    }
  };
  // Parts: each body belongs to the part of the first unit that moves it.
  const std::size_t n = units_.size();
  parts_ = std::clamp(n / k_min_units_per_part, std::size_t(1), k_parts);
  owner_.assign(bodies, k_parts);
  unit_part_.resize(n);
  std::array<std::uint32_t, k_parts> part_count{};
  for (std::size_t k = 0; k < n; ++k) {
    const auto part = std::uint8_t(k * parts_ / n);
    bool interior = true;
    each_moving_body(units_[k], [&](std::uint32_t body) {
      if (owner_[body] == k_parts) owner_[body] = part;
      interior = interior && owner_[body] == part;
    });
    unit_part_[k] = interior ? part : std::uint8_t(k_parts);
    if (interior) ++part_count[part];
  }
  // The boundary units' colours: the lowest colour none of their bodies has taken.
  body_colours_.assign(bodies, 0);
  unit_colour_.clear();
  std::array<std::uint32_t, k_max_colours> colour_count{};
  std::size_t colours = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (unit_part_[k] != k_parts) continue;
    std::uint64_t taken = 0;
    each_moving_body(units_[k], [&](std::uint32_t body) { taken |= body_colours_[body]; });
    const auto colour = std::uint8_t(std::countr_one(taken));  // k_max_colours when all taken
    unit_colour_.push_back(colour);
    if (colour == k_max_colours) continue;
    each_moving_body(
        units_[k], [&](std::uint32_t body) { body_colours_[body] |= std::uint64_t(1) << colour; });
    ++colour_count[colour];
    colours = std::max(colours, std::size_t(colour) + 1);
  }
  // Gathered by part and by colour, in stored order within each.
  part_begin_[0] = 0;
  for (std::size_t p = 0; p < k_parts; ++p)
    part_begin_[p + 1] = part_begin_[p] + part_count[p];
  colour_begin_.assign(colours + 1, 0);
  for (std::size_t c = 0; c < colours; ++c)
    colour_begin_[c + 1] = colour_begin_[c] + colour_count[c];
  interior_.resize(part_begin_[k_parts]);
  boundary_.resize(colour_begin_[colours]);
  last_.clear();
  std::array<std::uint32_t, k_parts> part_next{};
  std::array<std::uint32_t, k_max_colours> colour_next{};
  std::size_t boundary_unit = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint8_t part = unit_part_[k];
    if (part != k_parts) {
      interior_[part_begin_[part] + part_next[part]++] = units_[k];
      continue;
    }
    const std::uint8_t colour = unit_colour_[boundary_unit++];
    if (colour == k_max_colours)
      last_.push_back(units_[k]);
    else
      boundary_[colour_begin_[colour] + colour_next[colour]++] = units_[k];
  }
}

}  // namespace impulse
