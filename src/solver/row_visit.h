#pragma once
// How a pgs sweep visits each row (PgsSolver, UnitBatches), worked out once per solve.

#include "constraints/rows.h"

#include <cstdint>

namespace impulse {

// How a sweep visits each row, worked out once per solve so that a visit reads one byte rather
// than the group, disc and bound tests: bits 0 and 1 say which bodies move (body a, body b; a body
// that does not move is not written, so units of one colour may share it while they run at once),
// the bits above say what the visit is.
namespace row_visit {
constexpr std::uint8_t a_moves = 1, b_moves = 2;
// Bits 2 to 4: the kind of visit (below); bits 5 to 7: how many normal rows bound a friction row
// (RowStore::normal_count, at most k_max_normal_count).
constexpr std::uint8_t kind_mask = 7 << 2;
constexpr unsigned normal_count_shift = 5;
constexpr std::uint8_t fixed_bounds = 0 << 2;  // a row alone, bounds lo and hi
constexpr std::uint8_t friction = 1 << 2;      // a row alone, bounds mu times its normal rows
constexpr std::uint8_t disc_pair = 2 << 2;     // the first row of a disc pair: both rows
constexpr std::uint8_t group = 3 << 2;         // the first row of a group: all of it
constexpr std::uint8_t none = 4 << 2;          // visited with another row, or in the equality block
// Consecutive friction rows of one block between the same two bodies with as many normal rows each
// (a manifold's) are visited as a run in stored order, the bodies' velocities held in registers
// from the first row to the last: the same iteration as one by one, rounded differently
// (visit_friction_run). A shuffled sweep visits them one by one.
constexpr std::uint8_t friction_run = 5 << 2;   // the first row of a run: all of it
constexpr std::uint8_t friction_more = 6 << 2;  // a later row of a run
// Whether a row visited so is a later row of a friction run.
constexpr bool later_in_run(std::uint8_t visit) {
  return (visit & kind_mask) == friction_more;
}
constexpr std::size_t normal_count(std::uint8_t visit) {
  return visit >> normal_count_shift;
}
static_assert(k_max_normal_count < 1 << (8 - normal_count_shift));
}  // namespace row_visit

}  // namespace impulse
