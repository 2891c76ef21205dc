#pragma once
// What the structure of a pgs solve depends on, row by row: which rows form groups, which join the
// equality block, how a sweep visits each row and which bodies it moves, the sweep's units and
// schedule. All of it follows from the rows' bodies, blocks, friction links and kinds of bounds
// and from which bodies move, never from the numbers in the Jacobians. A resting stack's contacts
// give the same layout step after step, so PgsSolver keeps that structure while the layout holds
// and prepares only the numbers again. On a change the layout before is kept too: its blocks (a
// manifold, a joint) mostly come back in the new one with other rows around them, and a block
// that comes back alike keeps the structure found for it (BlockMatch), and the schedule takes its
// units from the last build (SweepSchedule, whose parts are cut from the rows alone).

#include "constraints/rows.h"
#include "core/task_pool.h"

#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

class RowLayout {
 public:
  /// Takes the layout of the prepared rows and the bodies' masses; returns whether it is the
  /// layout taken last time (false the first time). Keeps its storage: no allocation once
  /// warmed up.
  bool update(const RowStore& rows, std::span<const SolverBodyMass> masses, TaskPool* pool);

  /// Whether body k moves (SolverBodyMass::movable), as of the last update.
  bool movable(std::uint32_t body) const { return movable_[body] != 0; }
  /// The number of bodies, as of the last update.
  std::size_t bodies() const { return movable_.size(); }
  /// Whether some row other than friction has the bounds -infinity and infinity (an equality, as
  /// a joint's point rows are), as of the last update.
  bool free_rows() const { return free_rows_; }

  /// Consecutive blocks of a new layout alike to consecutive blocks of the layout before (their
  /// rows' bodies, kinds and friction links, these relative to the rows): none, or as many
  /// blocks as match and the row where the ones before begin.
  struct AlikeBlocks {
    std::uint32_t blocks = 0;
    std::uint32_t before = 0;
  };
  /// Finds, from block to block of a new layout in order, blocks of the layout before whose rows
  /// are alike: where the structure found for those rows holds. A few blocks ahead of the last
  /// ones found are tried, since a manifold that came or went shifts the ones after it.
  class BlockMatch {
   public:
    /// The blocks from `block` on alike to blocks before; blocks are asked for in order, from
    /// past the last ones matched.
    AlikeBlocks match(std::uint32_t block);

   private:
    friend class RowLayout;
    explicit BlockMatch(const RowLayout& layout) : layout_(&layout) {}
    const RowLayout* layout_;
    std::uint32_t next_ = 0;  // the first block before not yet matched
  };
  /// A match over the last update's new layout; it finds nothing when the update kept the layout,
  /// was the first, or changed which bodies move (a row's visit names that).
  BlockMatch blocks_before() const { return BlockMatch(*this); }

 private:
  // Per row of a layout: its bodies and friction links (compared a chunk of rows at a time, as
  // memory), its kind of bounds, cone, disc and usability (row_layout.cpp), and its blocks.
  struct Columns {
    std::vector<std::uint32_t> body_a, body_b;
    std::vector<std::int32_t> normal_row;
    std::vector<std::uint8_t> normal_count;
    std::vector<std::uint8_t> kinds;
    std::vector<std::uint32_t> block_begin;
  };
  /// Whether rows [begin, end) of now_ are alike to rows [before, before + end - begin) of
  /// before_ (friction links relative to begin and before).
  bool rows_alike(std::uint32_t begin, std::uint32_t end, std::uint32_t before) const;
  /// Whether block `block` of now_ and block `before` of before_ have as many rows and the same
  /// first row's bodies: worth comparing whole.
  bool blocks_may_match(std::uint32_t block, std::uint32_t before) const;

  Columns now_;     // as last taken
  Columns before_;  // the layout before now_'s (a scratch for the kinds while a layout holds)
  std::vector<std::uint8_t> movable_;  // per body
  bool taken_ = false;
  bool free_rows_ = false;
  bool before_matches_ = false;  // BlockMatch may match now_'s blocks to before_'s
};

}  // namespace impulse
