// pgs's equality block (solver/equality_block.h): the bilateral rows solved exactly, once per
// sweep while other rows change the velocities, and not again once nothing else does.

#include <gtest/gtest.h>

#include "row_problem.h"
#include "same_solution.h"
#include "solver/equality_block.h"
#include "solver/pgs_solver.h"

namespace impulse {
namespace {

using testing::add_ball_rows;
using testing::add_chain;
using testing::RowProblem;
using testing::same_bits;

// A chain of `links` bodies hanging from the world (body 0): nothing but joints.
RowProblem hanging_chain(int links) {
  RowProblem p;
  p.add_body(0);
  add_chain(p, links);
  p.rows.prepare(p.masses);
  return p;
}

// `count` chains of `links` links hanging from the world (body 0, added first); their last links.
std::vector<std::uint32_t> chains_from_the_world(RowProblem& p, int count, int links) {
  p.add_body(0);
  std::vector<std::uint32_t> ends;
  for (int chain = 0; chain < count; ++chain)
    ends.push_back(add_chain(p, links));
  return ends;
}

TEST(EqualityBlock, JointsAloneAreSolvedInTheFirstSweepAndLeftAloneAfter) {
  RowProblem once = hanging_chain(30), ten = once;
  SolveStats stats;
  PgsSolver().solve(once.rows, once.bodies(), testing::iterations(1), stats);
  PgsSolver().solve(ten.rows, ten.bodies(), testing::iterations(10), stats);
  for (std::size_t i = 0; i < once.rows.size(); ++i) {
    ASSERT_TRUE(same_bits(once.rows.lambda[i], ten.rows.lambda[i])) << "row " << i;
    // Solved: every joint row's velocity error is gone, to rounding.
    const BodyVelocity &a = ten.velocities[ten.rows.body_a[i]],
                       &b = ten.velocities[ten.rows.body_b[i]];
    const Real jv = dot(ten.rows.j_lin_a(i), a.linear) + dot(ten.rows.j_ang_a(i), a.angular) +
                    dot(ten.rows.j_lin_b(i), b.linear) + dot(ten.rows.j_ang_b(i), b.angular);
    EXPECT_NEAR(jv, 0, 1e-4) << "row " << i;
  }
}

// A solve of joints alone is exact (last_solve_exact), which lets a step skip its relax solve:
// solving the same rows again from the free velocities and the first solve's impulses, as the
// relax solve does, gives the first solve's velocities again. Over-relaxed, or with a one-sided
// row among the joints, a solve is not exact.
TEST(EqualityBlock, ASolveOfJointsAloneIsExactAndSolvingItAgainChangesNothing) {
  RowProblem p = hanging_chain(30);
  const std::vector<BodyVelocity> free = p.velocities;
  PgsSolver solver;
  SolveStats stats;
  solver.solve(p.rows, p.bodies(), testing::iterations(10), stats);
  EXPECT_TRUE(solver.last_solve_exact());
  const std::vector<BodyVelocity> solved = p.velocities;
  p.velocities = free;
  solver.solve_again(p.rows, p.bodies(), testing::iterations(2), stats, false);
  for (std::size_t k = 0; k < solved.size(); ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      EXPECT_NEAR(p.velocities[k].linear[axis], solved[k].linear[axis], 1e-5) << "body " << k;
      EXPECT_NEAR(p.velocities[k].angular[axis], solved[k].angular[axis], 1e-5) << "body " << k;
    }
  }

  SolverSettings over_relaxed = testing::iterations(10);
  over_relaxed.sor = Real(1.2);
  RowProblem q = hanging_chain(30);
  solver.solve(q.rows, q.bodies(), over_relaxed, stats);
  EXPECT_FALSE(solver.last_solve_exact());

  RowProblem with_contact = hanging_chain(30);
  with_contact.add_contact_y(30, 0);
  with_contact.rows.prepare(with_contact.masses);
  solver.solve(with_contact.rows, with_contact.bodies(), testing::iterations(10), stats);
  EXPECT_FALSE(solver.last_solve_exact());
}

// Three chains hanging from the world are three components of the block (the world moves nothing),
// each with its own chain's rows. A contact changes the rows' layout but not the block: still the
// three. A joint between two chains' last links makes those two one. One block prepared in turn,
// as a solver keeps it from step to step.
TEST(EqualityBlock, ChainsJoinedOnlyThroughTheWorldAreSeparateComponents) {
  RowProblem p;
  const std::vector<std::uint32_t> ends = chains_from_the_world(p, 3, 4);
  RowLayout layout;
  EqualityBlock block;
  const auto components_of = [&](RowProblem& problem) {
    problem.rows.prepare(problem.masses);
    const bool same_layout = layout.update(problem.rows, problem.masses, nullptr);
    EXPECT_TRUE(block.prepare(problem.rows, layout, same_layout));
    std::vector<std::vector<std::uint32_t>> components;
    for (std::size_t k = 0; k < block.components(); ++k)
      components.emplace_back(block.component_rows(k).begin(), block.component_rows(k).end());
    return components;
  };
  const auto rows_from = [](std::uint32_t begin, std::uint32_t end) {
    std::vector<std::uint32_t> rows;
    for (std::uint32_t k = begin; k < end; ++k)
      rows.push_back(k);
    return rows;
  };
  const std::vector<std::vector<std::uint32_t>> three = components_of(p);
  ASSERT_EQ(three.size(), 3u);
  for (std::uint32_t chain = 0; chain < 3; ++chain)  // a chain's 4 joints of 3 rows
    EXPECT_EQ(three[chain], rows_from(12 * chain, 12 * (chain + 1))) << "chain " << chain;

  p.add_contact_y(ends[1], 0);
  EXPECT_EQ(components_of(p), three);

  add_ball_rows(p, ends[2], ends[0], {Real(0.5), 0, 0}, {Real(0.5), 0, 0});
  const std::vector<std::vector<std::uint32_t>> two = components_of(p);
  ASSERT_EQ(two.size(), 2u);
  std::vector<std::uint32_t> joined = rows_from(0, 12);
  for (std::uint32_t k = 24; k < 39; ++k)  // chain 2's rows and the new joint's
    joined.push_back(k);
  EXPECT_EQ(two[0], joined);
  EXPECT_EQ(two[1], rows_from(12, 24));
}

// Chains of one length factor alike: the first k_lanes share a batch in lanes, the next two
// another (its last lanes repeating its first chain), and a longer chain is a batch of its own;
// without lanes each chain is one. Solved either way, with a heavier link in one chain (other
// values in its lane) and a contact on another's end that the sweeps change between the block's
// solves, and then again as the relax solve does: the same bits.
TEST(EqualityBlock, ComponentsThatFactorAlikeSolveInLanesWithTheBitsOfTheirSolvesAlone) {
  RowProblem p;
  constexpr auto k_lanes = std::uint32_t(BlockLdlt::k_lanes);
  const std::vector<std::uint32_t> ends = chains_from_the_world(p, k_lanes + 2, 4);
  add_chain(p, 5);
  p.masses[ends[2]] = {Real(0.25), Mat33::diagonal(Vec3::splat(Real(0.625)))};  // 4 kg
  const std::uint32_t contact = p.add_contact_y(ends[4], 0, Real(0.5));
  p.rows.prepare(p.masses);

  RowLayout layout;
  layout.update(p.rows, p.masses, nullptr);
  EqualityBlock block;
  ASSERT_TRUE(block.prepare(p.rows, layout));
  ASSERT_EQ(block.batches(), 3u);
  EXPECT_EQ(block.batch_begin(1), k_lanes);
  EXPECT_EQ(block.batch_begin(2), k_lanes + 2);
  EXPECT_TRUE(block.in_lanes(0));
  EXPECT_TRUE(block.in_lanes(1));
  EXPECT_FALSE(block.in_lanes(2));
  block.set_lanes(false);
  ASSERT_TRUE(block.prepare(p.rows, layout, true));
  EXPECT_EQ(block.batches(), k_lanes + 3);

  RowProblem lanes = p, alone = p;
  PgsSolver with_lanes, without_lanes;
  without_lanes.set_block_lanes(false);
  SolveStats stats;
  for (auto& [solver, problem] :
       {std::pair{&with_lanes, &lanes}, std::pair{&without_lanes, &alone}}) {
    solver->solve(problem->rows, problem->bodies(), testing::iterations(10), stats);
    solver->solve_again(problem->rows, problem->bodies(), testing::iterations(2), stats, true);
  }
  EXPECT_TRUE(testing::same_solution(lanes, alone));
  EXPECT_GT(lanes.rows.lambda[contact], 0);  // the contact pushed, between the block's solves
}

}  // namespace
}  // namespace impulse

namespace impulse {
namespace {

// `after` solved by a solver that solved `before` first: expects a fresh solver's bits on it, and
// returns it solved.
testing::RowProblem solved_after(testing::RowProblem before, testing::RowProblem after) {
  const SolverSettings settings = testing::iterations(10);
  PgsSolver reused, fresh;
  SolveStats stats;
  testing::RowProblem reference = after;
  reused.solve(before.rows, before.bodies(), settings, stats);
  reused.solve(after.rows, after.bodies(), settings, stats);
  fresh.solve(reference.rows, reference.bodies(), settings, stats);
  EXPECT_TRUE(testing::same_solution(reference, after));
  return after;
}

// Two chains joined only through a body x that neither of the rows naming it can move (their
// Jacobians are zero on x): while x moves, one component; held still, two, with the same terms of
// A (the same pattern). A solver that solved the split block then solves the joined one with a
// fresh solver's bits: its terms are grouped anew by component (EqualityBlock::group_terms).
testing::RowProblem chains_through(bool x_moves) {
  testing::RowProblem p;
  p.add_body(0);
  const std::uint32_t a = testing::add_chain(p, 3), b = testing::add_chain(p, 3);
  const std::uint32_t x = p.add_body(x_moves ? 1 : 0);
  for (const std::uint32_t end : {a, b}) {
    RowSpec row;  // a bilateral row on the chain's end alone, naming x
    row.body_a = end;
    row.body_b = x;
    row.j_lin_a = Vec3::unit_x();
    p.rows.add(row);
  }
  p.rows.prepare(p.masses);
  return p;
}

TEST(EqualityBlock, ComponentsJoinedUnderTheSamePatternGiveAFreshSolversBits) {
  for (const bool x_moves : {true, false}) {
    testing::RowProblem p = chains_through(x_moves);
    RowLayout layout;
    layout.update(p.rows, p.masses, nullptr);
    EqualityBlock block;
    ASSERT_TRUE(block.prepare(p.rows, layout));
    EXPECT_EQ(block.components(), x_moves ? 1u : 2u);
  }
  // Split, then joined: the joined component's terms are the two split ones' together.
  solved_after(chains_through(false), chains_through(true));
}

// A body held to kinematic partners (moving, but not by the solve) by a ball joint to k1 and a
// rotation lock to k1, or to k2 once `swapped`: the same pattern of moving bodies either way.
testing::RowProblem held_to_kinematic(bool swapped) {
  testing::RowProblem p;
  p.add_body(0);
  const std::uint32_t held = p.add_body(1, {0, -1, 0});
  const std::uint32_t k1 = p.add_body(0, {1, 0, 0}), k2 = p.add_body(0, {-1, 0, 0});
  p.velocities[k1].angular = {0, 0, 2};
  p.velocities[k2].angular = {1, 0, -2};
  testing::add_ball_rows(p, held, k1, {Real(-0.5), 0, 0}, {Real(0.5), 0, 0});
  p.rows.begin_block();
  for (const Vec3& axis : {Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z()}) {
    RowSpec row;
    row.body_a = held;
    row.body_b = swapped ? k2 : k1;
    row.j_ang_a = axis;
    row.j_ang_b = -axis;
    p.rows.add(row);
  }
  p.rows.end_block();
  p.rows.prepare(p.masses);
  return p;
}

// The block's visit holds a run's two bodies' velocities at once (EqualityBlock::pair_runs); when
// a partner that does not move changes, the runs are cut anew, and a solver that solved the old
// rows gives a fresh solver's bits.
TEST(EqualityBlock, ARunFollowsAPartnerThatDoesNotMoveWhenItChanges) {
  const testing::RowProblem again = solved_after(held_to_kinematic(false), held_to_kinematic(true));
  // The lock holds the body's spin to k2's: (1, 0, -2) rad/s.
  EXPECT_NEAR(again.velocities[1].angular.x, 1, 1e-4);
  EXPECT_NEAR(again.velocities[1].angular.z, -2, 1e-4);
}

}  // namespace
}  // namespace impulse
