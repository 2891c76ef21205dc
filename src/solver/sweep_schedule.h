#pragma once
// The order in which a projected Gauss-Seidel sweep visits its rows when they are not shuffled,
// arranged so that several threads can share a sweep and give the same bits as one thread.
//
// Rows are visited in units (RowUnit: a manifold's rows, a joint's limit and motor rows, a custom
// constraint's), each on one thread in stored order. The stored order is a good Gauss-Seidel order
// for stacks (the contact manager lists pairs body by body, so an impulse travels through a
// structure within one sweep), and a plain graph colouring, which interleaves the whole structure,
// measured much worse on it (pyramid and tower drift 4x and 5x as far, docs/performance.md). So
// the sweep keeps the stored order where it can: the units are cut into two parts, consecutive
// in the order, each body belongs to the first part that moves it, and a part's interior units
// (those whose moving bodies all belong to it) are visited in stored order, the parts at once on
// different threads. The cut is placed where the larger interior plus the boundary (below) has
// the fewest rows: the boundary units all fall to the later part, so a cut at half the units
// leaves it short. Where the stored order is unrelated to place (a pile, whose bodies' numbers
// say nothing of where they lie), every cut leaves a large boundary; the units are then ordered
// along a breadth-first reach over shared bodies and cut there instead, which makes the parts
// regions. A part whose interior units fall into pieces sharing no moving body (islands, one
// after another in the order) is split there, up to k_max_parts parts: that adds no boundary and
// changes no bit, and gives more threads a part each. The boundary units, which move bodies of
// two parts, follow, coloured (no two units of a colour move the same body; greedy, in stored
// order) and each colour shared among the threads. Boundary units beyond k_max_colours colours,
// and those of the last colours when these are small, are visited last on one thread.
//
// A new layout (a manifold came or went) is cut whole again. Parts kept from the layouts before
// (a unit that came back kept its part, a new one joined the part owning its bodies) cost the pile
// and the ragdolls two thirds of a cut's time, but made the order a function of the history: a
// world restored from a snapshot, whose solver builds its schedule anew, left the bits of the one
// stepped on (the tower by its 10th step restored before every step). The units themselves are
// taken from the last build where their rows are kept (KeptUnits): the units a scan finds again,
// and only the other rows are read.
//
// The parts are cut by the rows alone, never by thread count or by the layouts before, so the
// visiting order and the results are the same on one thread or many, and after a restore.

#include "constraints/rows.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

/// Marks a row of the equality block (PgsSolver solves it apart, so it is in no unit).
constexpr std::uint32_t k_row_in_block = ~std::uint32_t(0) - 1;

/// Rows [begin, end) of the store, visited in order on one thread (rows of the equality block
/// among them are skipped).
struct RowUnit {
  std::uint32_t begin, end;
};

/// Rows [begin, end) of the store alike to the rows from `before` of the last build's (whole
/// blocks: RowLayout::BlockMatch): a unit there that was a unit at the rows moved back is taken
/// again rather than found (KeptUnits).
struct KeptRows {
  std::uint32_t begin, end, before;
};

class SweepSchedule {
 public:
  /// At most this many parts: two cut where the sweep is shortest, then more where a part falls
  /// into pieces that share no moving body (islands), so a world of many islands has a part for
  /// each of up to this many threads.
  static constexpr std::size_t k_max_parts = 8;
  /// Two parts from twice this many units on; an island split leaves each side at least this many
  /// interior units.
  static constexpr std::size_t k_min_units_per_part = 64;
  static constexpr std::size_t k_max_colours = 64;
  /// The last colours of fewer units than this are visited with the units past k_max_colours.
  static constexpr std::size_t k_min_units_per_colour = 4;

  /// group_of: per row, k_row_in_block for a row of the equality block; moves: per row, bit 0 if
  /// its body a moves, bit 1 if its body b does (higher bits are ignored). A unit is a block of
  /// rows, grown to the blocks holding the normal rows its friction rows follow, so a unit never
  /// reads another's impulses. kept: the rows alike to the last build's, in order.
  void build(const RowStore& rows, std::span<const std::uint32_t> group_of,
             std::span<const std::uint8_t> moves, std::size_t bodies,
             std::span<const KeptRows> kept = {});

  std::size_t units() const { return interior_.size() + boundary_.size() + last_.size(); }
  /// The rows the units span (the equality block's among them included).
  std::size_t rows() const { return total_rows_; }
  /// How many parts the units were cut into (one for a small problem: stored order throughout).
  std::size_t parts() const { return parts_; }
  /// Part p's interior units, in stored order.
  std::span<const RowUnit> interior(std::size_t part) const { return interiors(part, part + 1); }
  /// The interior units of parts [first, end), part after part.
  std::span<const RowUnit> interiors(std::size_t first, std::size_t end) const {
    return std::span(interior_).subspan(part_begin_[first], part_begin_[end] - part_begin_[first]);
  }
  /// Every part's interior units merged in stored order: one thread visiting the parts one after
  /// another gives the same bits visiting these (no two parts' interiors move a body in common, and
  /// each part's stay in its order), in one forward pass over the rows rather than one per part.
  std::span<const RowUnit> interiors_in_stored_order() const { return interiors_stored_; }
  std::size_t colours() const { return colour_begin_.size() - 1; }
  /// The boundary units of colour c.
  std::span<const RowUnit> colour(std::size_t c) const {
    return std::span(boundary_).subspan(colour_begin_[c], colour_begin_[c + 1] - colour_begin_[c]);
  }
  /// Boundary units past the last colour, in stored order.
  std::span<const RowUnit> last() const { return last_; }
  /// With the parts shared by `members` threads, member m's own run of parts starts here (it then
  /// helps with the others': PhasedWork::run_preferring).
  std::size_t first_part_of(std::size_t m, std::size_t members) const {
    return m * parts_ / members;
  }
  /// The member whose own run holds part 1, the later side of the cut, in whose range the boundary
  /// units lie: visiting them there keeps that part's bodies in its core's cache. 0 with one part.
  std::size_t member_holding_part_1(std::size_t members) const {
    std::size_t m = 0;
    while (m + 1 < members && first_part_of(m + 1, members) <= 1)
      ++m;
    return m;
  }

 private:
  /// The units and each one's moving bodies (of its rows outside the equality block), found once
  /// for the passes below; a body may be named more than once. A last build's unit on kept rows
  /// is taken with its bodies where its rows would give it again (KeptUnits), the other rows read.
  void find_units(const RowStore& rows, std::span<const std::uint32_t> group_of,
                  std::span<const std::uint8_t> moves, std::span<const KeptRows> kept);
  /// Appends the moving bodies of rows [begin, end) (those outside the equality block) to
  /// unit_bodies_, as a unit starting at `begin` names them.
  void add_unit_bodies(const RowStore& rows, std::span<const std::uint32_t> group_of,
                       std::span<const std::uint8_t> moves, std::uint32_t begin, std::uint32_t end);
  /// The last build's units that find_units' scan would find again, met in row order. A unit that
  /// its rows alone gave (self-contained) and whose rows, from its first block to the end of the
  /// block it closed with, are all kept (RowLayout::BlockMatch: the same bodies, kinds and friction
  /// links, the same bodies moving), is found again from a block start where no unit is open:
  /// the scan over those rows gives it back and closes it there. Most of a pile's units at a new
  /// layout are taken so.
  class KeptUnits {
   public:
    /// units and self_contained: the last build's units_ and unit_self_contained_.
    KeptUnits(std::span<const KeptRows> kept, std::span<const RowUnit> units,
              std::span<const std::uint8_t> self_contained)
        : kept_(kept), units_(units), self_contained_(self_contained) {}
    /// Units [first, first + count) of the last build.
    struct Run {
      std::size_t first = 0, count = 0;
    };
    /// The last build's units found again from the block starting at `row` with no unit open:
    /// the one there and those after it, each beginning where the one before ends (none where the
    /// first is not found again); rows are asked for in increasing order.
    Run units_at(std::uint32_t row);

   private:
    std::span<const KeptRows> kept_;
    std::span<const RowUnit> units_;
    std::span<const std::uint8_t> self_contained_;
    std::size_t run_ = 0, unit_reached_ = 0;  // the kept rows and the last build's unit reached
  };
  std::span<const std::uint32_t> bodies_of(std::uint32_t unit) const {
    return std::span(unit_bodies_)
        .subspan(unit_body_begin_[unit], unit_body_begin_[unit + 1] - unit_body_begin_[unit]);
  }
  /// How many rows a unit (an index into units_) spans.
  std::size_t rows_of(std::uint32_t unit) const { return units_[unit].end - units_[unit].begin; }
  /// Cuts reach_order_ into parts_ (one or two) parts where the sweep is shortest: unit_part_,
  /// earliest_ and cut_. Returns that sweep's rows (the larger interior, then the boundary).
  std::size_t cut_parts(std::size_t bodies);
  /// Splits the parts further where no interior unit after a position moves a body met before it
  /// (the order passes from one island to another), the largest part first, until k_max_parts.
  void split_at_islands();
  /// reach_order_: the units in breadth-first order over the moving bodies they share.
  void order_by_reach(std::size_t bodies);
  /// The parts found whole: the cut searched for along an order, the parts split at islands;
  /// unit_part_ and parts_.
  void cut_whole(std::size_t bodies);

  /// unit_part_'s mark for a boundary unit.
  static constexpr std::uint8_t k_boundary = k_max_parts;

  std::vector<RowUnit> interior_, boundary_, last_;
  std::vector<RowUnit> interiors_stored_;  // interiors_in_stored_order
  std::array<std::uint32_t, k_max_parts + 1> part_begin_{};
  std::size_t parts_ = 1;
  std::vector<std::uint32_t> colour_begin_{0};
  // Scratch, kept so a warmed-up solver allocates nothing.
  std::vector<RowUnit> units_;
  std::vector<std::uint32_t> unit_body_begin_, unit_bodies_;  // bodies per unit (bodies_of)
  // Per unit: 1 where it is self-contained (KeptUnits): no friction row of it (or of the units it
  // took back in) reaches before its first row, and its last row lies in the block it closed
  // with. A custom friction row may reach into the equality block, back before the unit or
  // forward past its rows, which then close it later.
  std::vector<std::uint8_t> unit_self_contained_;
  std::vector<std::uint32_t> reach_order_;  // the units in the order parts are cut from
  std::vector<std::uint32_t> body_unit_begin_, body_unit_fill_, body_units_;  // units per body
  std::vector<std::uint8_t> reached_, body_met_;  // per unit, per body: met by the search
  std::vector<std::uint32_t> first_met_;  // per body: the first position in the order that moves it
  std::vector<std::uint32_t> earliest_;   // per position: the earliest position meeting its bodies
  std::vector<std::uint32_t> rows_by_earliest_;  // per position: rows of the units earliest there
  std::vector<std::uint64_t> body_colours_;      // per body: the colours its boundary units took
  std::vector<std::uint8_t> unit_part_;          // per unit: its part, or k_boundary
  std::vector<std::uint8_t> unit_colour_;        // per boundary unit: its colour, or k_max_colours
  // Kept from build to build: the last build's units, their bodies and self-containment
  // (KeptUnits).
  std::vector<RowUnit> last_units_;
  std::vector<std::uint32_t> last_unit_body_begin_, last_unit_bodies_;
  std::vector<std::uint8_t> last_unit_self_contained_;
  std::size_t cut_ = 0;         // cut_parts' cut: part 1 starts at this position (n: no cut)
  std::size_t total_rows_ = 0;  // the units' rows
};

}  // namespace impulse
