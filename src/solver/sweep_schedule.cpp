#include "solver/sweep_schedule.h"

#include "core/buffer_turns.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace impulse {

void SweepSchedule::find_units(const RowStore& rows, std::span<const std::uint32_t> group_of,
                               std::span<const std::uint8_t> moves,
                               std::span<const KeptRows> kept) {
  units_.clear();
  unit_body_begin_.assign(1, 0);
  unit_bodies_.clear();
  unit_self_contained_.clear();
  const auto in_unit = [&](std::size_t i) { return group_of[i] != k_row_in_block; };
  // The open unit: rows [begin, end), which must reach `needed` to hold its friction rows' normal
  // rows (all of them: a friction row's normal rows follow each other).
  std::uint32_t begin = 0, end = 0, needed = 0;
  bool open = false;
  KeptUnits again(kept, last_units_, last_unit_self_contained_);
  const std::size_t blocks = rows.block_begin.size() - 1;
  for (std::size_t block = 0; block < blocks;) {
    const std::uint32_t row = rows.block_begin[block];
    if (!open) {
      const KeptUnits::Run taken = again.units_at(row);
      if (taken.count > 0) {
        // In one piece: the units' rows and their bodies move by one amount each (unsigned sums,
        // which may wrap).
        const std::uint32_t moved_rows = row - last_units_[taken.first].begin;
        const std::uint32_t moved_bodies =
            std::uint32_t(unit_bodies_.size()) - last_unit_body_begin_[taken.first];
        for (std::size_t k = taken.first; k < taken.first + taken.count; ++k) {
          units_.push_back({last_units_[k].begin + moved_rows, last_units_[k].end + moved_rows});
          unit_body_begin_.push_back(last_unit_body_begin_[k + 1] + moved_bodies);
        }
        unit_bodies_.insert(
            unit_bodies_.end(), last_unit_bodies_.begin() + last_unit_body_begin_[taken.first],
            last_unit_bodies_.begin() + last_unit_body_begin_[taken.first + taken.count]);
        unit_self_contained_.insert(unit_self_contained_.end(), taken.count, 1);
        // On at the end of the last one's last block.
        block = std::size_t(std::lower_bound(rows.block_begin.begin() + std::ptrdiff_t(block),
                                             rows.block_begin.begin() + std::ptrdiff_t(blocks),
                                             units_.back().end) -
                            rows.block_begin.begin());
        continue;
      }
      begin = row;
      needed = 0;
      open = true;
    }
    end = rows.block_begin[++block];
    const std::size_t units_held = units_.size();
    for (std::uint32_t i = row; i < end; ++i) {
      const std::int32_t normal = rows.normal_row[i];
      if (!in_unit(i) || normal < 0) continue;
      const auto normal_at = std::uint32_t(normal);
      needed = std::max(needed, normal_at + rows.normal_count[i]);
      if (normal_at >= begin) continue;
      while (!units_.empty() && units_.back().end > normal_at) {  // take earlier units back in
        begin = std::min(begin, units_.back().begin);
        units_.pop_back();
      }
      begin = std::min(begin, normal_at);
    }
    if (units_.size() < units_held) {  // their bodies go with them
      unit_body_begin_.resize(units_.size() + 1);
      unit_bodies_.resize(unit_body_begin_.back());
      unit_self_contained_.resize(units_.size());
    }
    if (end < needed) continue;
    open = false;
    std::uint32_t first = begin, after = end;
    while (first < after && !in_unit(first))
      ++first;
    while (after > first && !in_unit(after - 1))
      --after;
    if (first == after) continue;
    units_.push_back({first, after});
    add_unit_bodies(rows, group_of, moves, first, after);
    unit_body_begin_.push_back(std::uint32_t(unit_bodies_.size()));
    unit_self_contained_.push_back(begin == first && after > row ? 1 : 0);
  }
}

SweepSchedule::KeptUnits::Run SweepSchedule::KeptUnits::units_at(std::uint32_t row) {
  while (run_ < kept_.size() && kept_[run_].end <= row)
    ++run_;
  if (run_ == kept_.size() || kept_[run_].begin > row) return {};
  const std::uint32_t from = row - kept_[run_].begin + kept_[run_].before;
  const std::uint32_t kept_end = kept_[run_].end - kept_[run_].begin + kept_[run_].before;
  while (unit_reached_ < units_.size() && units_[unit_reached_].begin < from)
    ++unit_reached_;
  const auto found_again = [&](std::size_t k) {
    return self_contained_[k] != 0 && units_[k].end <= kept_end;
  };
  if (unit_reached_ == units_.size() || units_[unit_reached_].begin != from ||
      !found_again(unit_reached_))
    return {};
  // Each unit after it that begins where it ends is met at that block start with no unit open.
  std::size_t end = unit_reached_ + 1;
  while (end < units_.size() && units_[end].begin == units_[end - 1].end && found_again(end))
    ++end;
  const Run found{unit_reached_, end - unit_reached_};
  unit_reached_ = end;
  return found;
}

void SweepSchedule::add_unit_bodies(const RowStore& rows, std::span<const std::uint32_t> group_of,
                                    std::span<const std::uint8_t> moves, std::uint32_t begin,
                                    std::uint32_t end) {
  // The rows of a unit mostly share their bodies (a manifold's pair): a body the unit's last two
  // already name is not named again. Others may repeat, which the passes allow. The last two are
  // held here (k_none while the unit names fewer).
  constexpr std::uint32_t k_none = ~std::uint32_t(0);
  std::uint32_t last = k_none, before_last = k_none;
  const auto add = [&](std::uint32_t body) {
    if (body == last || body == before_last) return;
    unit_bodies_.push_back(body);
    before_last = std::exchange(last, body);
  };
  for (std::uint32_t i = begin; i < end; ++i) {
    if (group_of[i] == k_row_in_block) continue;
    if (moves[i] & 1) add(rows.body_a[i]);
    if (moves[i] & 2) add(rows.body_b[i]);
  }
}

void SweepSchedule::order_by_reach(std::size_t bodies) {
  const std::size_t n = units_.size();
  // Each body's units (a unit that names the body twice is listed twice: harmless, the search
  // skips units already reached).
  body_unit_begin_.assign(bodies + 1, 0);
  for (std::size_t k = 0; k < n; ++k)
    for (const std::uint32_t body : bodies_of(k))
      ++body_unit_begin_[body + 1];
  for (std::size_t b = 0; b < bodies; ++b)
    body_unit_begin_[b + 1] += body_unit_begin_[b];
  body_units_.resize(body_unit_begin_[bodies]);
  body_unit_fill_.assign(body_unit_begin_.begin(), body_unit_begin_.end() - 1);
  for (std::size_t k = 0; k < n; ++k)
    for (const std::uint32_t body : bodies_of(k))
      body_units_[body_unit_fill_[body]++] = std::uint32_t(k);
  // Breadth first; a body's units are queued when it is first met. Without branches on what was
  // met (each unit is written at the queue's end, which moves on only if the unit is new): the
  // tests went either way at random and a pile's search waited on them.
  reached_.assign(n, 0);
  body_met_.assign(bodies, 0);
  reach_order_.resize(n + 1);  // one past the units: a write that does not join the queue
  std::size_t tail = 0;
  for (std::size_t start = 0; start < n; ++start) {
    if (reached_[start] != 0) continue;
    reached_[start] = 1;
    reach_order_[tail++] = std::uint32_t(start);
    for (std::size_t head = tail - 1; head < tail; ++head) {
      for (const std::uint32_t body : bodies_of(reach_order_[head])) {
        // A body met before has its units queued already: an empty range.
        const std::uint32_t end =
            body_met_[body] != 0 ? body_unit_begin_[body] : body_unit_begin_[body + 1];
        body_met_[body] = 1;
        for (std::uint32_t u = body_unit_begin_[body]; u < end; ++u) {
          const std::uint32_t unit = body_units_[u];
          reach_order_[tail] = unit;
          tail += reached_[unit] ^ 1;
          reached_[unit] = 1;
        }
      }
    }
  }
  reach_order_.resize(n);
}

std::size_t SweepSchedule::cut_parts(std::size_t bodies) {
  const std::size_t n = units_.size();
  // Cut at position c, every unit before c is part 0's interior (its bodies are met first there),
  // and a unit at p >= c is part 1's interior exactly when the earliest position that meets any of
  // its bodies (`earliest`, at most p) is c or later. So one pass that finds each unit's earliest
  // gives every cut's interiors: part 1's at c is the rows of the units whose earliest is >= c.
  first_met_.assign(bodies, std::uint32_t(n));  // per body: the first position that moves it
  rows_by_earliest_.assign(n, 0);
  earliest_.resize(n);
  for (std::size_t position = 0; position < n; ++position) {
    const std::uint32_t k = reach_order_[position];
    auto earliest = std::uint32_t(position);
    for (const std::uint32_t body : bodies_of(k)) {
      // Positions only grow: the least is the first (a min, not a test that goes either way).
      first_met_[body] = std::min(first_met_[body], std::uint32_t(position));
      earliest = std::min(earliest, first_met_[body]);
    }
    earliest_[position] = earliest;
    rows_by_earliest_[earliest] += rows_of(k);
  }
  const std::size_t total = total_rows_;
  // The cut whose sweep on two threads is shortest: the larger interior, then the boundary,
  // counted whole (its colours are shared, but each is a phase that every thread waits out, and
  // its units move bodies that both threads' caches hold).
  cut_ = n;
  std::size_t best = total;
  if (parts_ > 1) {
    std::size_t before = 0, earlier = 0;  // rows of units before c; of units whose earliest < c
    for (std::size_t c = 1; c < n; ++c) {
      before += rows_of(reach_order_[c - 1]);
      earlier += rows_by_earliest_[c - 1];
      const std::size_t later = total - earlier;
      const std::size_t cost = std::max(before, later) + (total - before - later);
      if (cost < best) {
        best = cost;
        cut_ = c;
      }
    }
  }
  unit_part_.resize(n);
  for (std::size_t position = 0; position < n; ++position) {
    unit_part_[reach_order_[position]] = position < cut_               ? 0
                                         : earliest_[position] >= cut_ ? 1
                                                                       : k_boundary;
  }
  return best;
}

void SweepSchedule::split_at_islands() {
  const std::size_t n = units_.size();
  const auto rows_at = [&](std::size_t position) { return rows_of(reach_order_[position]); };
  const auto interior = [&](std::size_t position) {
    return unit_part_[reach_order_[position]] != k_boundary;
  };
  // The parts as ranges of positions in the order; a part's boundary units (all in part 1's
  // range) stay boundary whatever the split.
  struct Range {
    std::size_t begin, end, rows;
    bool final;  // no clean cut left in it
  };
  std::array<Range, k_max_parts> ranges{};
  std::size_t count = 0;
  for (const auto& [begin, end] : {std::pair{std::size_t(0), cut_}, std::pair{cut_, n}}) {
    std::size_t rows = 0;
    for (std::size_t p = begin; p < end; ++p)
      rows += interior(p) ? rows_at(p) : 0;
    ranges[count++] = {begin, end, rows, false};
  }
  while (count < k_max_parts) {
    std::size_t r = count;
    for (std::size_t q = 0; q < count; ++q) {
      if (!ranges[q].final && (r == count || ranges[q].rows > ranges[r].rows)) r = q;
    }
    if (r == count) break;
    Range* largest = &ranges[r];
    // Position c is a clean cut when every interior unit from c on meets its bodies first at c
    // or later: the units before c and after it then share no moving body. Of the clean cuts
    // leaving each side k_min_units_per_part interior units, the one nearest half the rows.
    const std::size_t begin = largest->begin, end = largest->end, rows = largest->rows;
    std::size_t earliest_after = end, rows_after = 0, units_after = 0;
    std::size_t split = 0, best = rows, split_rows_after = 0;
    std::size_t units = 0;
    for (std::size_t p = begin; p < end; ++p)
      units += interior(p) ? 1 : 0;
    for (std::size_t c = end - 1; c > begin; --c) {
      if (interior(c)) {
        earliest_after = std::min(earliest_after, std::size_t(earliest_[c]));
        rows_after += rows_at(c);
        ++units_after;
      }
      const bool clean = earliest_after >= c;
      const bool large_enough =
          units_after >= k_min_units_per_part && units - units_after >= k_min_units_per_part;
      const std::size_t imbalance =
          std::max(rows_after, rows - rows_after) - std::min(rows_after, rows - rows_after);
      if (clean && large_enough && imbalance < best) {
        best = imbalance;
        split = c;
        split_rows_after = rows_after;
      }
    }
    if (split == 0) {
      largest->final = true;
      continue;
    }
    // The ranges stay in the order's direction (one thread then visits the pieces in turn where
    // it visited the part whole; they share no moving body, so no bit changes).
    for (std::size_t q = count; q > r + 1; --q)
      ranges[q] = ranges[q - 1];
    ++count;
    ranges[r] = {begin, split, rows - split_rows_after, false};
    ranges[r + 1] = {split, end, split_rows_after, false};
  }
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t p = ranges[r].begin; p < ranges[r].end; ++p) {
      if (interior(p)) unit_part_[reach_order_[p]] = std::uint8_t(r);
    }
  }
  parts_ = count;
}

void SweepSchedule::cut_whole(std::size_t bodies) {
  // Parts: the units cut along an order (cut_parts); each body belongs to the part of the first
  // unit in that order that moves it. The stored order first (it keeps a stack's bottom-to-top
  // order in each part); the breadth-first order over shared bodies when its best cut still makes
  // a long sweep (a pile, whose pairs are listed by body index: part 0 meets nearly every body
  // first), if its parts then make a shorter one.
  const std::size_t n = units_.size();
  parts_ = n >= 2 * k_min_units_per_part ? 2 : 1;
  const auto stored_order = [&] {
    reach_order_.resize(n);
    for (std::size_t k = 0; k < n; ++k)
      reach_order_[k] = std::uint32_t(k);
  };
  stored_order();
  const std::size_t stored_cost = cut_parts(bodies);
  if (parts_ > 1 && 4 * stored_cost > 5 * total_rows_ / 2) {  // over 1.25 times half the rows
    order_by_reach(bodies);
    if (cut_parts(bodies) >= stored_cost) {
      stored_order();
      cut_parts(bodies);
    }
  }
  // No cut made a shorter sweep than one thread's (every unit meets a body of the first, a hub;
  // the reach then did no better, so the order is the stored one): one part.
  if (cut_ == n) parts_ = 1;
  if (parts_ > 1) split_at_islands();
}

void SweepSchedule::build(const RowStore& rows, std::span<const std::uint32_t> group_of,
                          std::span<const std::uint8_t> moves, std::size_t bodies,
                          std::span<const KeptRows> kept) {
  std::swap(units_, last_units_);
  std::swap(unit_body_begin_, last_unit_body_begin_);
  std::swap(unit_bodies_, last_unit_bodies_);
  std::swap(unit_self_contained_, last_unit_self_contained_);
  find_units(rows, group_of, moves, kept);
  const std::size_t n = units_.size();
  total_rows_ = 0;
  for (std::uint32_t unit = 0; unit < n; ++unit)
    total_rows_ += rows_of(unit);
  cut_whole(bodies);
  share_room(units_, last_units_);
  share_room(unit_body_begin_, last_unit_body_begin_);
  share_room(unit_bodies_, last_unit_bodies_);
  share_room(unit_self_contained_, last_unit_self_contained_);
  // The boundary units' colours: the lowest colour none of their bodies has taken.
  body_colours_.assign(bodies, 0);
  unit_colour_.clear();
  std::array<std::uint32_t, k_max_colours> colour_count{};
  std::size_t colours = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (unit_part_[k] != k_boundary) continue;
    std::uint64_t taken = 0;
    for (const std::uint32_t body : bodies_of(k))
      taken |= body_colours_[body];
    const auto colour = std::uint8_t(std::countr_one(taken));  // k_max_colours when all taken
    unit_colour_.push_back(colour);
    if (colour == k_max_colours) continue;
    for (const std::uint32_t body : bodies_of(k))
      body_colours_[body] |= std::uint64_t(1) << colour;
    ++colour_count[colour];
    colours = std::max(colours, std::size_t(colour) + 1);
  }
  // The last colours of a few units each join the serial units: a phase every thread waits out
  // costs more than one thread visiting them.
  while (colours > 0 && colour_count[colours - 1] < k_min_units_per_colour)
    --colours;
  // Gathered by part and by colour, in stored order within each.
  std::array<std::uint32_t, k_max_parts> part_count{};
  for (const std::uint8_t part : unit_part_) {
    if (part != k_boundary) ++part_count[part];
  }
  part_begin_[0] = 0;
  for (std::size_t p = 0; p < k_max_parts; ++p)
    part_begin_[p + 1] = part_begin_[p] + part_count[p];
  colour_begin_.assign(colours + 1, 0);
  for (std::size_t c = 0; c < colours; ++c)
    colour_begin_[c + 1] = colour_begin_[c] + colour_count[c];
  interior_.resize(part_begin_[k_max_parts]);
  boundary_.resize(colour_begin_[colours]);
  last_.clear();
  interiors_stored_.clear();
  std::array<std::uint32_t, k_max_parts> part_next{};
  std::array<std::uint32_t, k_max_colours> colour_next{};
  std::size_t boundary_unit = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint8_t part = unit_part_[k];
    if (part != k_boundary) {
      interior_[part_begin_[part] + part_next[part]++] = units_[k];
      interiors_stored_.push_back(units_[k]);
      continue;
    }
    const std::uint8_t colour = unit_colour_[boundary_unit++];
    if (colour >= colours)
      last_.push_back(units_[k]);
    else
      boundary_[colour_begin_[colour] + colour_next[colour]++] = units_[k];
  }
}

}  // namespace impulse
