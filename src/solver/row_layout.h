#pragma once
// What the structure of a pgs solve depends on, row by row: which rows form groups, which join the
// equality block, how a sweep visits each row and which bodies it moves, the sweep's units and
// schedule. All of it follows from the rows' bodies, blocks, friction links and kinds of bounds
// and from which bodies move, never from the numbers in the Jacobians. A resting stack's contacts
// give the same layout step after step, so PgsSolver keeps that structure while the layout holds
// and prepares only the numbers again (the box pile's changing contacts rebuild it).

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

 private:
  // Per row, as last taken: its bodies and friction links (compared a chunk of rows at a time, as
  // memory) and its kind of bounds, cone, disc and usability (row_layout.cpp). Whether its bodies
  // move is theirs: movable_.
  std::vector<std::uint32_t> body_a_, body_b_;
  std::vector<std::int32_t> normal_row_;
  std::vector<std::uint8_t> normal_count_;
  std::vector<std::uint8_t> kinds_;
  std::vector<std::uint32_t> block_begin_;
  std::vector<std::uint8_t> movable_;  // per body
  bool taken_ = false;
  bool free_rows_ = false;
};

}  // namespace impulse
