// RowLayout (solver/row_layout.h) and the structure PgsSolver keeps by it: the layout holds only
// while the rows' bodies, blocks, friction links and kinds of bounds and the bodies' motion do,
// and a solve that kept its structure ends in the same bits as a fresh solver's.

#include "solver/row_layout.h"

#include <gtest/gtest.h>

#include <limits>

#include "row_problem.h"
#include "same_solution.h"
#include "solver/pgs_solver.h"

namespace impulse {
namespace {

using testing::RowProblem;

// A column of boxes on the ground (body 0), each contact a block of four points (or `points`, up
// to five) as the contact writer lays them out: two friction rows per point, then the normal rows
// (four of them a group), and two bilateral rows (an equality block) holding the two lowest boxes
// together sideways. `shift` changes the numbers (levers, velocities, biases), never the layout;
// `missing` (1 to boxes) leaves box `missing`'s contact with the one below out.
RowProblem column(int boxes, Real shift, int points = 4, int missing = 0) {
  RowProblem p;
  p.add_body(0);
  for (int k = 1; k <= boxes; ++k)
    p.add_body(1 + Real(k) * Real(0.1), {shift * Real(0.1), Real(-1) - shift, 0});
  for (int k = 1; k <= boxes; ++k) {
    if (k == missing) continue;
    const auto a = std::uint32_t(k), b = std::uint32_t(k - 1);
    p.rows.begin_block();
    const auto first = std::int32_t(p.rows.size());
    const Vec3 corners[] = {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}, {0, 0, 0}};
    const auto lever = [&](int c) { return corners[c] * (Real(0.5) + shift * Real(0.01)); };
    for (int c = 0; c < points; ++c) {
      for (const Vec3& t : {Vec3::unit_x(), Vec3::unit_z()}) {
        RowSpec f;
        f.body_a = a;
        f.body_b = b;
        f.j_lin_a = t;
        f.j_ang_a = cross(lever(c), t);
        f.j_lin_b = -t;
        f.normal_row = first + 2 * points + c;
        f.mu = Real(0.5);
        p.rows.add(f);
      }
    }
    for (int c = 0; c < points; ++c) {
      RowSpec n;
      n.body_a = a;
      n.body_b = b;
      n.j_lin_a = Vec3::unit_y();
      n.j_ang_a = cross(lever(c), Vec3::unit_y());
      n.j_lin_b = -Vec3::unit_y();
      n.lo = 0;
      n.bias = Real(0.01) * (1 + shift);
      p.rows.add(n);
    }
    p.rows.end_block();
  }
  for (const Vec3& axis : {Vec3::unit_x(), Vec3::unit_z()}) {
    RowSpec joint;
    joint.body_a = 2;
    joint.body_b = 1;
    joint.j_lin_a = axis;
    joint.j_lin_b = -axis;
    p.rows.add(joint);
  }
  return p;
}

// Prepared for a solve, with body `still` (if any) made immovable.
RowProblem prepared(RowProblem p, int still = -1) {
  if (still >= 0) p.masses[std::size_t(still)] = SolverBodyMass{};
  p.rows.prepare(p.masses);
  return p;
}

// The column with its lowest contact's first normal row able to pull (lo -1): no group's row.
RowProblem pulling(RowProblem p) {
  p.rows.lo[8] = Real(-1);
  return prepared(std::move(p));
}

// The column with its two joint rows bounded below (lo -1): no row is an equality.
RowProblem without_equalities(RowProblem p) {
  p.rows.lo[p.rows.size() - 1] = p.rows.lo[p.rows.size() - 2] = Real(-1);
  return prepared(std::move(p));
}

TEST(RowLayout, TellsWhetherSomeRowBesidesFrictionIsFreeBothWays) {
  RowLayout layout;
  const RowProblem column_with_joint = prepared(column(3, 0));
  ASSERT_EQ(column_with_joint.rows.lo[0], -k_infinity);  // friction rows are free both ways
  layout.update(column_with_joint.rows, column_with_joint.masses, nullptr);
  EXPECT_TRUE(layout.free_rows());
  const RowProblem contacts_only = without_equalities(column(3, 0));
  layout.update(contacts_only.rows, contacts_only.masses, nullptr);
  EXPECT_FALSE(layout.free_rows());
}

TEST(RowLayout, HoldsWhileOnlyTheNumbersChange) {
  RowLayout layout;
  const auto update = [&](const RowProblem& p) { return layout.update(p.rows, p.masses, nullptr); };
  EXPECT_FALSE(update(prepared(column(5, 0))));  // nothing taken before
  EXPECT_TRUE(update(prepared(column(5, 0))));
  EXPECT_TRUE(update(prepared(column(5, Real(0.7)))));
  EXPECT_FALSE(update(prepared(column(6, 0))));     // more rows and a body
  EXPECT_FALSE(update(prepared(column(5, 0), 3)));  // a body stops moving
  EXPECT_FALSE(update(prepared(column(5, 0))));     // and moves again
  EXPECT_FALSE(update(pulling(column(5, 0))));      // a row's kind of bounds changes
  RowProblem bounded = column(5, 0);
  bounded.rows.lo[bounded.rows.size() - 1] = Real(-1);  // a joint row gets a bound
  EXPECT_FALSE(update(prepared(std::move(bounded))));
}

// A new layout's blocks (the contacts, then each joint row alone) matched to the layout before's.
struct Matched {
  std::uint32_t block, blocks, before;
  bool operator==(const Matched&) const = default;
};
std::vector<Matched> matched_blocks(const RowLayout& layout, const RowStore& rows) {
  std::vector<Matched> found;
  RowLayout::BlockMatch match = layout.blocks_before();
  for (std::uint32_t block = 0; block + 1 < rows.block_begin.size();) {
    const RowLayout::AlikeBlocks alike = match.match(block);
    if (alike.blocks > 0) found.push_back({block, alike.blocks, alike.before});
    block += std::max(alike.blocks, std::uint32_t(1));
  }
  return found;
}

TEST(RowLayout, MatchesANewLayoutsBlocksToTheAlikeOnesBefore) {
  // Contacts of 12 rows each (four points), then two joint rows of a block each.
  RowLayout layout;
  const auto update = [&](const RowProblem& p) {
    layout.update(p.rows, p.masses, nullptr);
    return matched_blocks(layout, p.rows);
  };
  EXPECT_TRUE(update(prepared(column(5, 0))).empty());          // nothing before
  EXPECT_TRUE(update(prepared(column(5, Real(0.4)))).empty());  // the layout held
  // The third contact gone: the two before it and the rest after it, 12 rows later before.
  EXPECT_EQ(update(prepared(column(5, 0, 4, 3))), (std::vector<Matched>{{0, 2, 0}, {2, 4, 36}}));
  // And back: the new third contact matches nothing.
  EXPECT_EQ(update(prepared(column(5, 0))), (std::vector<Matched>{{0, 2, 0}, {3, 4, 24}}));
  // The lowest contact's first normal row may pull (another kind of bounds): the rest matches.
  EXPECT_EQ(update(pulling(column(5, 0))), (std::vector<Matched>{{1, 6, 12}}));
  // Another number of points in a contact, a body that stops moving: nothing matches.
  EXPECT_EQ(update(prepared(column(5, 0, 3))), (std::vector<Matched>{{5, 2, 60}}));
  EXPECT_TRUE(update(prepared(column(5, 0, 3), 3)).empty());
}

// Solves p with `kept` (which solved something before) and a fresh copy with a new solver; the
// impulses and velocities must agree to the bit, and the groups found.
void expect_same_bits_as_a_fresh_solver(PgsSolver& kept, const RowProblem& p) {
  const SolverSettings settings = testing::iterations(10);
  RowProblem with_kept = p, with_fresh = p;
  SolveStats stats;
  kept.solve(with_kept.rows, with_kept.bodies(), settings, stats);
  PgsSolver fresh;
  fresh.solve(with_fresh.rows, with_fresh.bodies(), settings, stats);
  EXPECT_TRUE(testing::same_solution(with_kept, with_fresh));
  ASSERT_EQ(kept.groups().size(), fresh.groups().size());
  for (std::size_t g = 0; g < fresh.groups().size(); ++g) {
    EXPECT_EQ(kept.groups()[g].first, fresh.groups()[g].first);
    EXPECT_EQ(kept.groups()[g].count, fresh.groups()[g].count);
  }
  Real pushing = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    pushing = std::max(pushing, with_kept.rows.lambda[i]);
  EXPECT_GT(pushing, 0);  // the column pushes: a solve that did something
}

TEST(RowLayout, APgsSolveThatKeptItsStructureEndsInTheSameBitsAsAFreshOne) {
  PgsSolver kept;
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(5, 0)));
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(5, Real(0.7))));     // kept
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(5, Real(0.7)), 3));  // found again
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(5, Real(0.3)), 3));  // kept
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(4, Real(0.3))));     // found again
  expect_same_bits_as_a_fresh_solver(kept, pulling(column(4, Real(0.3))));      // found again
  expect_same_bits_as_a_fresh_solver(kept, pulling(column(4, Real(0.5))));      // kept
  // The equality block left without a row, then found again.
  expect_same_bits_as_a_fresh_solver(kept, without_equalities(column(4, Real(0.5))));
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(4, Real(0.5))));
}

// A new layout whose blocks mostly come back from the one before keeps their structure
// (RowLayout::BlockMatch): the same bits as a solver that finds it all.
TEST(RowLayout, APgsSolveThatKeptSomeBlocksStructureEndsInTheSameBitsAsAFreshOne) {
  PgsSolver kept;
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(6, 0)));
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(6, Real(0.2), 4, 4)));  // one went
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(6, Real(0.4), 4, 2)));  // and another
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(6, Real(0.6))));        // came back
  expect_same_bits_as_a_fresh_solver(kept, pulling(column(6, Real(0.6))));         // a kind
  expect_same_bits_as_a_fresh_solver(kept, pulling(column(6, Real(0.6), 3, 5)));   // three points
  // Without the equality block the rows' visits differ: nothing is kept.
  expect_same_bits_as_a_fresh_solver(kept, without_equalities(column(6, Real(0.6), 3, 2)));
  expect_same_bits_as_a_fresh_solver(kept, without_equalities(column(6, Real(0.6), 3)));
}

// What a solver keeps per row from a solve with a broken row (a Jacobian gone non-finite) must not
// reach the next solve's rows at that index: row 24 is a later row of a friction run with five
// points per contact, the first of one with four.
TEST(RowLayout, APgsSolveAfterOneWithABrokenRowEndsInTheSameBitsAsAFreshOne) {
  PgsSolver kept;
  RowProblem broken = column(5, 0, 5);
  broken.rows.coefficients[24].jacobian[1] =
      lanes_of(Vec3::splat(std::numeric_limits<Real>::quiet_NaN()));
  broken = prepared(std::move(broken));
  SolveStats stats;
  kept.solve(broken.rows, broken.bodies(), testing::iterations(10), stats);
  expect_same_bits_as_a_fresh_solver(kept, prepared(column(5, 0)));
}

}  // namespace
}  // namespace impulse
