// Units visited four at a time (solver/unit_batches.h): a pgs solve visits its contact manifolds in
// batches (of four, or of three with a lane repeated) and gives, to the bit, the impulses and
// velocities of the same solve visiting them one at a time in stored order (a solver without
// batches: PgsSolver::set_batched).

#include "solver/unit_batches.h"

#include <gtest/gtest.h>

#include <random>

#include "core/task_pool.h"
#include "manifold_rows.h"
#include "row_problem.h"
#include "same_solution.h"
#include "solver/pgs_solver.h"

namespace impulse {
namespace {

using testing::add_manifold;
using testing::columns;
using testing::RowProblem;

// One layout solved twice: `batched` solves `first`, so that its layout holds, then `second`;
// a fresh solver without batches solves `second` too, unit by unit in stored order. Returns second
// as each left it: {batched's, the fresh solver's}. solve(solver, problem) solves a problem.
template <class Solve>
std::pair<RowProblem, RowProblem> held_and_fresh(PgsSolver& batched, RowProblem first,
                                                 RowProblem second, const Solve& solve) {
  solve(batched, first);
  RowProblem reference = second;
  solve(batched, second);
  PgsSolver fresh;
  fresh.set_batched(false);
  solve(fresh, reference);
  return {std::move(second), std::move(reference)};
}

// Makes row i move nothing (J zero: zero inverse effective mass) in a form the compact lanes keep:
// body a's linear part -0, minus body b's bit for bit, as a contact row's.
void make_inert(RowStore& rows, std::size_t i) {
  std::array<Lanes, 4>& jacobian = rows.coefficients[i].jacobian;
  jacobian = {};
  jacobian[0] = -jacobian[2];
}

// Whether row i is in a batch that the solve visits in lanes (not from the store).
bool visited_in_lanes(const UnitBatches& batches, std::size_t i) {
  for (std::size_t k = 0; k < batches.batch_count(); ++k) {
    const UnitBatch& batch = batches.batch(k);
    for (std::size_t u = 0; u < batch.units; ++u) {
      if (i >= batch.first[u] && i < batch.first[u] + batch.shape.rows())
        return !batches.from_store(k);
    }
  }
  return false;
}

// Manifolds of 1, 2 or 4 points between random pairs of 200 bodies (body 0 and every eleventh
// static), in random order: units that share a body lie anywhere in the stored order, so the
// levels move units both back and forth across others.
RowProblem random_manifolds(unsigned seed, bool patch, Real bias = 1) {
  RowProblem p;
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  constexpr std::uint32_t k_bodies = 200;
  for (std::uint32_t k = 0; k < k_bodies; ++k) {
    const bool fixed = k % 11 == 0;
    p.add_body(fixed ? 0 : 1 + Real(k % 5) * Real(0.3),
               {Real(value(random)) * Real(0.3), Real(value(random)) * Real(0.5) - 1,
                Real(value(random)) * Real(0.2)});
    p.velocities.back().angular = {Real(value(random)), 0, Real(value(random))};
  }
  for (int m = 0; m < 400; ++m) {
    const auto a = std::uint32_t(1 + random() % (k_bodies - 1));
    auto b = std::uint32_t(random() % k_bodies);
    if (b == a) b = 0;
    const int points[] = {1, 2, 2, 4, 4, 4};
    add_manifold(p, a, b, points[random() % 6], patch, bias);
  }
  p.rows.prepare(p.masses);
  return p;
}

// A solve and its relax solve (solve_again, after the biases change) on a layout the solver
// held from its last solve visit most manifolds four at a time; a solver without batches visits
// them unit by unit in stored order. Per-point and patch friction, over-relaxed, on one thread (the
// parts' units batched together) and three (part by part: 48 columns, so that patch friction's rows
// too are enough to share): the same bits and residuals, and the numbers of the second problem, not
// the first's, are the ones packed.
TEST(UnitBatches, ASolveInBatchesGivesTheBitsOfTheSolveUnitByUnit) {
  for (const bool patch : {false, true}) {
    for (const int threads : {1, 3}) {
      TaskPool pool(threads);
      SolverSettings settings = testing::iterations(40);
      settings.sor = Real(1.2);
      settings.record_residuals = true;
      const auto solve_twice = [&](PgsSolver& solver, RowProblem& p) {
        SolveStats stats;
        solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
        for (std::size_t i = 0; i < p.rows.size(); ++i)
          p.rows.bias[i] *= Real(0.5);
        solver.solve_again(p.rows, {p.velocities, p.masses, &pool}, settings, stats, false);
        return stats;
      };
      PgsSolver batched;
      RowProblem first = columns(48, 6, patch);
      solve_twice(batched, first);
      EXPECT_TRUE(batched.batches().built());  // in the solve that found the layout

      // The second problem's normal rows are soft: the same layout, other numbers in every field
      // a packed row holds.
      const auto second = [&] {
        RowProblem p = columns(48, 6, patch, Real(2));
        for (std::size_t i = 0; i < p.rows.size(); ++i)
          p.rows.softness[i] = p.rows.normal_row[i] < 0 ? Real(0.002) : Real(0);
        p.rows.prepare(p.masses);
        return p;
      };
      RowProblem reference = second();
      PgsSolver unit_by_unit;
      unit_by_unit.set_batched(false);
      const SolveStats reference_stats = solve_twice(unit_by_unit, reference);
      RowProblem again = second();
      const SolveStats stats = solve_twice(batched, again);
      ASSERT_TRUE(batched.batches().built());
      // The 48 ground contacts share no body, nor do the contacts of one row of boxes.
      EXPECT_GE(batched.batches().batch_count(), 24u) << threads << " threads";
      // One thread visits every part: their units are batched together, as part 0's steps.
      const UnitBatches& batches = batched.batches();
      ASSERT_GE(batches.parts(), 2u);
      EXPECT_EQ(batches.parts_merged(), threads == 1);
      for (std::size_t part = 1; part < batches.parts(); ++part)
        EXPECT_EQ(batches.part(part).empty(), threads == 1) << "part " << part;
      EXPECT_TRUE(batched.batches().visited_in_lanes());
      EXPECT_TRUE(testing::same_solution(reference, again));
      // The residual is measured over every row, a batch's too (its packed rows are its lanes').
      EXPECT_EQ(stats.initial_residual, reference_stats.initial_residual);
      EXPECT_EQ(stats.residuals, reference_stats.residuals);
      EXPECT_EQ(stats.complementarity_error, reference_stats.complementarity_error);
      // And the solves did their work: no contact point still closes.
      EXPECT_LT(stats.final_residual, Real(0.1));  // relative
      const RowStore& rows = again.rows;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows.normal_row[i] >= 0) continue;
        const BodyVelocity& va = again.velocities[rows.body_a[i]];
        const BodyVelocity& vb = again.velocities[rows.body_b[i]];
        const Real closing = dot(rows.j_lin_a(i), va.linear) + dot(rows.j_ang_a(i), va.angular) +
                             dot(rows.j_lin_b(i), vb.linear) + dot(rows.j_ang_b(i), vb.angular);
        EXPECT_GT(closing, Real(-0.02)) << "row " << i;
      }
    }
  }
}

// Batches built part by part for three threads, then a relax solve (solve_again) given a pool of
// one: it visits them part by part as they were built, with the bits of a solver without batches
// on one thread (whose unbatched sweeps take the parts' interiors merged).
TEST(UnitBatches, ARelaxSolveOnFewerThreadsThanItsSolveVisitsEveryPartsBatches) {
  const SolverSettings settings = testing::iterations(20);
  const auto solve_then_relax = [&](PgsSolver& solver, RowProblem& p, int solve_threads) {
    TaskPool pool(solve_threads), one(1);
    SolveStats stats;
    solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      p.rows.bias[i] *= Real(0.5);
    solver.solve_again(p.rows, {p.velocities, p.masses, &one}, settings, stats, false);
  };
  RowProblem batched_problem = columns(48, 6, false), reference = columns(48, 6, false);
  PgsSolver batched;
  solve_then_relax(batched, batched_problem, 3);
  ASSERT_TRUE(batched.batches().built());
  ASSERT_GE(batched.batches().parts(), 2u);
  ASSERT_FALSE(batched.batches().parts_merged());
  PgsSolver unit_by_unit;
  unit_by_unit.set_batched(false);
  solve_then_relax(unit_by_unit, reference, 1);
  EXPECT_TRUE(testing::same_solution(reference, batched_problem));
}

// The warm start of a batch's four units in lanes adds what the warm start unit by unit adds, in
// the same order: per-point friction, whole and compact lanes, one thread and two (parts warm
// started part by part), every row starting from an impulse; a row that moves nothing (the first
// friction row of every third manifold, J = 0, zero inverse effective mass) has its impulse
// dropped and adds nothing in either. The zero J's linear part on body a is -0, minus body b's bit
// for bit as a contact's, so that the compact lanes keep its batch too.
TEST(UnitBatches, ABatchWarmStartsInLanesWithTheBitsOfOneUnitAtATime) {
  for (const bool compact : {false, true}) {
    for (const int threads : {1, 2}) {
      TaskPool pool(threads);
      const SolverSettings settings = testing::iterations(10);
      const auto problem = [](Real bias) {
        RowProblem p = columns(48, 6, false, bias);
        const std::size_t rows_per_manifold = 12;  // 4 points: 8 friction rows, 4 normal
        for (std::size_t i = 0; i < p.rows.size(); ++i) {
          p.rows.lambda[i] = Real(0.01) * bias * Real(1 + i % 7);
          if (i % (3 * rows_per_manifold) == 0) make_inert(p.rows, i);
        }
        p.rows.prepare(p.masses);
        return p;
      };
      const auto solve = [&](PgsSolver& solver, RowProblem& p) {
        SolveStats stats;
        solver.set_compact_batches_above(compact ? 0 : std::size_t(1) << 30);
        solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
      };
      PgsSolver batched;
      const auto [again, reference] = held_and_fresh(batched, problem(1), problem(2), solve);
      ASSERT_TRUE(batched.batches().built());
      ASSERT_GE(batched.batches().parts(), 2u);
      EXPECT_EQ(batched.batches().compact(), compact);
      EXPECT_TRUE(batched.batches().visited_in_lanes());
      EXPECT_TRUE(visited_in_lanes(batched.batches(), 0));
      EXPECT_EQ(again.rows.inv_eff_mass[0], 0);
      EXPECT_TRUE(testing::same_solution(reference, again)) << compact << " " << threads;
    }
  }
}

// The compact form of the lanes (each row's B without its linear parts, found from J and the
// bodies' inverse masses at the visit, and J without body a's linear part, minus body b's as a
// contact's) and the whole form give the bits of the solve unit by unit; so does a batch the
// compact form cannot hold, which it leaves to the one-at-a-time visit from the store: one with a
// body held to a plane (a linear response that is no multiple of J), or with a row whose linear J
// on its two bodies are not opposite (not a contact's: here on the ground, which does not move).
TEST(UnitBatches, TheCompactFormGivesTheBitsOfTheWholeOneAndLeavesToTheStoreWhatItCannotHold) {
  constexpr std::uint32_t k_held = 7;  // a box of the first row, on the ground (body 0)
  enum class Odd { none, plane, jacobian };
  for (const bool compact : {false, true}) {
    for (const Odd odd : {Odd::none, Odd::plane, Odd::jacobian}) {
      TaskPool pool(1);
      SolverSettings settings = testing::iterations(20);
      const auto problem = [&](Real bias) {
        RowProblem p = columns(16, 4, false, bias);
        if (odd == Odd::plane) {
          p.masses[k_held].plane_normal = Vec3::unit_z();
          p.velocities[k_held].linear.z = 0;
        }
        for (std::size_t i = 0; odd == Odd::jacobian && i < p.rows.size(); ++i) {
          if (p.rows.body_a[i] == k_held && p.rows.body_b[i] == 0)
            p.rows.coefficients[i].jacobian[2] += lanes_of({Real(0.25), 0, 0});
        }
        p.rows.prepare(p.masses);
        return p;
      };
      PgsSolver batched;
      batched.set_compact_batches_above(compact ? 0 : ~std::size_t(0));
      RowProblem first = problem(1);
      SolveStats stats;
      batched.solve(first.rows, {first.velocities, first.masses, &pool}, settings, stats);
      RowProblem reference = problem(2), again = problem(2);
      PgsSolver unit_by_unit;
      unit_by_unit.set_batched(false);
      unit_by_unit.solve(reference.rows, {reference.velocities, reference.masses, &pool}, settings,
                         stats);
      batched.solve(again.rows, {again.velocities, again.masses, &pool}, settings, stats);
      const UnitBatches& batches = batched.batches();
      ASSERT_TRUE(batches.built());
      EXPECT_EQ(batches.compact(), compact);
      EXPECT_TRUE(batches.visited_in_lanes());
      std::size_t from_store = 0;
      for (std::size_t k = 0; k < batches.batch_count(); ++k)
        from_store += batches.from_store(k) ? 1 : 0;
      // The held box's two manifolds (with the ground, with the box on it), its odd one.
      const std::size_t odd_batches = odd == Odd::plane ? 2 : odd == Odd::jacobian ? 1 : 0;
      EXPECT_EQ(from_store, compact ? odd_batches : 0) << compact << int(odd);
      EXPECT_TRUE(testing::same_solution(reference, again)) << compact << int(odd);
      // The plane held the body: its contacts' impulses moved it only within the plane.
      if (odd == Odd::plane) {
        EXPECT_EQ(again.velocities[k_held].linear.z, 0);
      }
    }
  }
}

// A one-point manifold's normal row is a row alone (row_visit::fixed_bounds), not a group; such
// units are batched too, by their own shape, and their lanes give the bits of the solve unit by
// unit: per-point and patch friction, whole and compact lanes, one thread and two, over-relaxed,
// soft normal rows, every row warm started, a lone row that moves nothing (J = 0, zero inverse
// effective mass, kept in lanes) dropping its impulse; a solve and its relax solve, with their
// residuals.
TEST(UnitBatches, OnePointManifoldsAreBatchedWithTheBitsOfOneUnitAtATime) {
  for (const bool patch : {false, true}) {
    for (const bool compact : {false, true}) {
      for (const int threads : {1, 2}) {
        TaskPool pool(threads);
        SolverSettings settings = testing::iterations(20);
        settings.sor = Real(1.2);
        settings.record_residuals = true;
        std::size_t inert = 0;  // the first lone row, made inert
        const auto problem = [&](Real bias) {
          RowProblem p = columns(48, 6, patch, bias, 4);
          RowStore& rows = p.rows;
          const auto normal = [&](std::size_t i) {
            return i < rows.size() && rows.normal_row[i] < 0;
          };
          for (std::size_t i = 0; i < rows.size(); ++i) {
            rows.lambda[i] = Real(0.01) * bias * Real(1 + i % 7);
            if (normal(i)) rows.softness[i] = Real(0.002);
          }
          for (inert = 1; !(normal(inert) && !normal(inert - 1) && !normal(inert + 1)); ++inert) {
          }
          make_inert(rows, inert);
          rows.prepare(p.masses);
          return p;
        };
        SolveStats stats, relax_stats, batched_stats, batched_relax_stats;
        const auto solve = [&](PgsSolver& solver, RowProblem& p) {
          solver.set_compact_batches_above(compact ? 0 : std::size_t(1) << 30);
          solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
          for (std::size_t i = 0; i < p.rows.size(); ++i)
            p.rows.bias[i] *= Real(0.5);
          solver.solve_again(p.rows, {p.velocities, p.masses, &pool}, settings, relax_stats, false);
        };
        PgsSolver batched;
        RowProblem first = problem(1);
        solve(batched, first);
        RowProblem again = problem(2), reference = problem(2);
        solve(batched, again);
        batched_stats = stats;
        batched_relax_stats = relax_stats;
        PgsSolver unit_by_unit;
        unit_by_unit.set_batched(false);
        solve(unit_by_unit, reference);
        const UnitBatches& batches = batched.batches();
        ASSERT_TRUE(batches.built());
        EXPECT_EQ(batches.compact(), compact);
        EXPECT_TRUE(batches.visited_in_lanes());
        // Eight columns of one-point manifolds in each of six levels: two batches a level, each
        // visited in lanes.
        std::size_t lone = 0;
        for (std::size_t k = 0; k < batches.batch_count(); ++k) {
          const bool in_lanes = batches.batch(k).shape.lone_row && !batches.from_store(k);
          lone += in_lanes ? batches.batch(k).units : 0;
        }
        EXPECT_GE(lone, 40u) << patch << compact << threads;
        EXPECT_TRUE(visited_in_lanes(batches, inert));
        EXPECT_EQ(again.rows.inv_eff_mass[inert], 0);
        EXPECT_EQ(again.rows.lambda[inert], 0);
        EXPECT_TRUE(testing::same_solution(reference, again)) << patch << compact << threads;
        EXPECT_EQ(batched_stats.residuals, stats.residuals);
        EXPECT_EQ(batched_relax_stats.residuals, relax_stats.residuals);
      }
    }
  }
}

// A solve that measures no residual and has no equality block reads no impulse change, and its
// batches do not follow them (UnitBatches::visit): the same bits as a solve that measures its
// final residual, whose batches do, with the largest change recorded only there.
TEST(UnitBatches, ASolveThatReadsNoChangeGivesTheBitsOfOneThatDoes) {
  SolverSettings measuring = testing::iterations(10);  // the final residual
  measuring.sor = Real(1.2);
  SolverSettings quiet = measuring;
  quiet.measure_residuals = false;
  PgsSolver reading, not_reading;
  for (int solve = 0; solve < 3; ++solve) {
    RowProblem a = columns(24, 6, false, Real(1 + solve)), b = a;
    SolveStats stats_a, stats_b;
    reading.solve(a.rows, a.bodies(), measuring, stats_a);
    not_reading.solve(b.rows, b.bodies(), quiet, stats_b);
    EXPECT_TRUE(testing::same_solution(a, b)) << "solve " << solve;
    EXPECT_EQ(stats_a.units_batched, stats_b.units_batched);
    EXPECT_FALSE(stats_a.residuals.empty());
    EXPECT_TRUE(stats_b.residuals.empty());
  }
  EXPECT_TRUE(reading.batches().visited_in_lanes());
  EXPECT_TRUE(not_reading.batches().visited_in_lanes());
}

// A solve reports whether its layout changed (the structure found anew, and batches built for it)
// and how many units its batches hold; the relax solve on the same rows the same. A solver
// without batches reports none.
TEST(UnitBatches, ASolveReportsWhetherItsLayoutChangedAndTheUnitsItBatched) {
  const SolverSettings settings = testing::iterations(10);
  PgsSolver solver;
  SolveStats stats;
  const auto expect_batched = [&](const char* what) {
    ASSERT_TRUE(solver.batches().built()) << what;
    EXPECT_EQ(stats.units_batched, solver.batches().units()) << what;
    EXPECT_GE(stats.units_batched, 3 * solver.batches().batch_count()) << what;  // 3 or 4 each
    EXPECT_GT(stats.units_batched, 0u) << what;
  };
  RowProblem first = columns(24, 6, false);
  solver.solve(first.rows, first.bodies(), settings, stats);
  EXPECT_TRUE(stats.layout_changed);
  expect_batched("first");
  EXPECT_LE(stats.units_batched, 24u * 6u);  // one a manifold at most

  RowProblem held = columns(24, 6, false, Real(2));  // the same layout, other numbers
  solver.solve(held.rows, held.bodies(), settings, stats);
  EXPECT_FALSE(stats.layout_changed);
  expect_batched("held");
  SolveStats relax;
  solver.solve_again(held.rows, held.bodies(), settings, relax, false);
  EXPECT_FALSE(relax.layout_changed);
  EXPECT_EQ(relax.units_batched, stats.units_batched);

  RowProblem shorter = columns(24, 5, false);  // a row of boxes fewer
  solver.solve(shorter.rows, shorter.bodies(), settings, stats);
  EXPECT_TRUE(stats.layout_changed);
  expect_batched("shorter");
  EXPECT_LE(stats.units_batched, 24u * 5u);

  PgsSolver alone;
  alone.set_batched(false);
  RowProblem again = columns(24, 6, false);
  for (int solve = 0; solve < 2; ++solve) {
    alone.solve(again.rows, again.bodies(), settings, stats);
    EXPECT_EQ(stats.units_batched, 0u);
    EXPECT_FALSE(alone.batches().built());
  }
}

// Four columns: three of four-point manifolds, one of two-point ones (another shape), so each row
// of boxes makes a batch of three, its last lane repeating its first unit. Those batches are
// visited in lanes, and the solve keeps the bits of the solve unit by unit: the repeated unit is
// solved once (its group, when the all-rows solve leaves it, visited alone once).
TEST(UnitBatches, ABatchOfThreeRepeatsItsFirstUnitAndKeepsTheBits) {
  for (const bool patch : {false, true}) {
    SolverSettings settings = testing::iterations(40);
    settings.sor = Real(1.2);
    const auto solve = [&](PgsSolver& solver, RowProblem& p) {
      SolveStats stats;
      solver.solve(p.rows, {p.velocities, p.masses, nullptr}, settings, stats);
    };
    PgsSolver batched;
    const auto [again, reference] =
        held_and_fresh(batched, columns(4, 5, patch), columns(4, 5, patch, Real(2)), solve);
    const UnitBatches& batches = batched.batches();
    ASSERT_TRUE(batches.built());
    ASSERT_EQ(batches.batch_count(), 5u);
    for (std::size_t k = 0; k < batches.batch_count(); ++k) {
      const UnitBatch& batch = batches.batch(k);
      EXPECT_EQ(batch.units, 3u);
      EXPECT_EQ(batch.first[3], batch.first[0]);
      EXPECT_NE(batch.first[2], batch.first[0]);
    }
    EXPECT_TRUE(batches.visited_in_lanes());
    EXPECT_TRUE(testing::same_solution(reference, again)) << (patch ? "patch" : "coulomb");
  }
}

// Six columns on the ground, their four-point manifolds stored row by row: four columns one box
// high, then two of two boxes. By their earliest levels the first level holds six units (a batch
// and two alone) and the second two (alone); nothing after a one-box column's manifold moves its
// box, so it may wait a level, and the two levels fill two batches of four with none alone. The
// bits stay those of the solve unit by unit.
TEST(UnitBatches, UnitsWaitALevelToFillABatch) {
  const auto problem = [](Real bias) {
    RowProblem p;
    p.add_body(0);
    std::array<std::uint32_t, 6> bottom{};
    for (std::size_t c = 0; c < bottom.size(); ++c) {
      bottom[c] = p.add_body(1 + Real(c) * Real(0.1), {Real(0.1) * Real(c), -1, 0});
      add_manifold(p, bottom[c], 0, 4, false, bias);
    }
    for (std::size_t c = 4; c < bottom.size(); ++c)
      add_manifold(p, p.add_body(1, {0, Real(-1.5), 0}), bottom[c], 4, false, bias);
    p.rows.prepare(p.masses);
    return p;
  };
  const SolverSettings settings = testing::iterations(10);
  PgsSolver batched;
  const auto [again, reference] =
      held_and_fresh(batched, problem(1), problem(2), [&](PgsSolver& solver, RowProblem& p) {
        SolveStats stats;
        solver.solve(p.rows, p.bodies(), settings, stats);
      });
  const UnitBatches& batches = batched.batches();
  ASSERT_TRUE(batches.built());
  EXPECT_EQ(batches.batch_count(), 2u);
  EXPECT_EQ(batches.units(), 8u);
  EXPECT_TRUE(batches.visited_in_lanes());
  EXPECT_TRUE(testing::same_solution(reference, again));
}

// Eight boxes on the ground, two batches of four in compact lanes: the first box is held to a
// plane, which the compact form cannot hold, so its batch is visited unit by unit from the
// solver's own packed rows, couplings and groups, which it unpacks from the lanes; in the other
// batch two boxes fly up (idle manifolds) and two press down. Unmeasured, and with soft normal
// rows in the second problem (other numbers in every packed field): a fresh solver's bits.
TEST(UnitBatches, ABatchVisitedUnitByUnitUnpacksItsRows) {
  const auto boxes = [](Real softness) {
    RowProblem p;
    p.add_body(0);
    for (int k = 0; k < 8; ++k) {
      p.add_body(1 + Real(k) * Real(0.1),
                 {Real(0.1) * Real(k % 3), k % 4 < 2 ? Real(3) : Real(-1), Real(0)});
      p.velocities.back().angular = {Real(0.3) * Real(k % 2), 0, Real(-0.2)};
    }
    p.masses[1].plane_normal = Vec3::unit_z();
    p.velocities[1].linear.z = 0;
    for (std::uint32_t k = 0; k < 8; ++k)
      add_manifold(p, 1 + k, 0, 4, false, Real(2));
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      p.rows.softness[i] = p.rows.normal_row[i] < 0 ? softness : Real(0);
    p.rows.prepare(p.masses);
    return p;
  };
  SolverSettings settings = testing::iterations(20);
  settings.measure_residuals = false;  // a measure would unpack every batch at the start
  SolveStats stats;
  PgsSolver batched, fresh;
  batched.set_compact_batches_above(0);
  fresh.set_batched(false);
  RowProblem first = boxes(0);
  batched.solve(first.rows, {first.velocities, first.masses, nullptr}, settings, stats);
  RowProblem again = boxes(Real(0.002)), reference = boxes(Real(0.002));
  batched.solve(again.rows, {again.velocities, again.masses, nullptr}, settings, stats);
  fresh.solve(reference.rows, {reference.velocities, reference.masses, nullptr}, settings, stats);
  const UnitBatches& batches = batched.batches();
  ASSERT_TRUE(batches.built());
  ASSERT_EQ(batches.batch_count(), 2u);
  EXPECT_TRUE(batches.from_store(0));
  EXPECT_FALSE(batches.from_store(1));
  EXPECT_TRUE(batches.visited_in_lanes());
  EXPECT_FALSE(fresh.batches().built());
  EXPECT_TRUE(testing::same_solution(reference, again));
}

// Random graphs of manifolds, where levels reorder units across each other in both directions
// (the columns keep their stored order level by level): batched, the same bits as unit by unit,
// on one thread (the parts merged) and two, under both friction models; with residuals measured
// and without (two threads then pack, warm start and sweep in one team).
TEST(UnitBatches, LevelsKeepTheBitsOfTheStoredOrderOnRandomGraphs) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    for (const bool patch : {false, true}) {
      for (const auto& [threads, measured] :
           {std::pair{1, true}, std::pair{2, true}, std::pair{2, false}}) {
        TaskPool pool(threads);
        SolverSettings settings = testing::iterations(20);
        settings.measure_residuals = measured;
        const auto solve = [&](PgsSolver& solver, RowProblem& p) {
          SolveStats stats;
          solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
        };
        PgsSolver batched, unit_by_unit;
        unit_by_unit.set_batched(false);
        RowProblem first = random_manifolds(seed, patch);
        solve(batched, first);
        RowProblem again = random_manifolds(seed, patch, Real(2));
        RowProblem reference = random_manifolds(seed, patch, Real(2));
        solve(batched, again);
        solve(unit_by_unit, reference);
        const UnitBatches& batches = batched.batches();
        ASSERT_TRUE(batches.built());
        EXPECT_GE(batches.batch_count(), 20u);
        // The boundary's colours are batched too, each as one level.
        std::size_t coloured = 0;
        for (std::size_t c = 0; c < batches.colours(); ++c) {
          for (const SweepStep& step : batches.colour(c))
            coloured += step.batch != SweepStep::k_alone ? 1 : 0;
        }
        EXPECT_GT(coloured, 0u) << "seed " << seed;
        EXPECT_TRUE(testing::same_solution(reference, again))
            << "seed " << seed << (patch ? " patch " : " coulomb ") << threads << " threads"
            << (measured ? ", measured" : "");
      }
    }
  }
}

// A shuffled solve visits the rows in a new order every sweep, never in batches, so it builds none
// even on a layout that held; the first solve in stored order after it builds them and gives the
// bits of a fresh solver's solve unit by unit; and a shuffled solve after that leaves them unused.
TEST(UnitBatches, AShuffledSolveBuildsNoBatches) {
  SolverSettings shuffled = testing::iterations(10);
  shuffled.shuffle = true;
  PgsSolver solver;
  for (int k = 0; k < 2; ++k) {
    RowProblem p = columns(24, 6, false);
    SolveStats stats;
    solver.solve(p.rows, {p.velocities, p.masses, nullptr}, shuffled, stats);
  }
  EXPECT_FALSE(solver.batches().built());

  const SolverSettings in_order = testing::iterations(40);
  RowProblem again = columns(24, 6, false, Real(2)), reference = columns(24, 6, false, Real(2));
  SolveStats stats;
  solver.solve(again.rows, {again.velocities, again.masses, nullptr}, in_order, stats);
  PgsSolver fresh;
  fresh.set_batched(false);
  fresh.solve(reference.rows, {reference.velocities, reference.masses, nullptr}, in_order, stats);
  ASSERT_TRUE(solver.batches().built());
  EXPECT_TRUE(solver.batches().visited_in_lanes());
  EXPECT_TRUE(testing::same_solution(reference, again));

  // Built batches are not packed for a shuffled solve, so the in-order solve_again after it
  // visits unit by unit: a fresh solver's shuffled solve and solve_again, to the bit.
  RowProblem stale = columns(24, 6, false, Real(3)), fresh_problem = columns(24, 6, false, Real(3));
  const auto shuffled_then_in_order = [&](PgsSolver& s, RowProblem& p) {
    s.solve(p.rows, {p.velocities, p.masses, nullptr}, shuffled, stats);
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      p.rows.bias[i] *= Real(0.5);
    s.solve_again(p.rows, {p.velocities, p.masses, nullptr}, in_order, stats, false);
  };
  shuffled_then_in_order(solver, stale);
  PgsSolver fresh_again;
  shuffled_then_in_order(fresh_again, fresh_problem);
  EXPECT_TRUE(solver.batches().built());
  EXPECT_TRUE(testing::same_solution(fresh_problem, stale));
}

// The other way round: an in-order solve packs a batch's rows and groups only in its lanes, and a
// shuffled solve_again after it visits every row alone. Its second problem's normal rows are soft
// (other numbers in every packed field than the first problem's): the in-order solve and shuffled
// solve_again of a fresh solver without batches, to the bit.
TEST(UnitBatches, AShuffledSolveAgainAfterBatchesReadsEveryRowAfresh) {
  SolverSettings shuffled = testing::iterations(10);
  shuffled.shuffle = true;
  SolverSettings in_order = testing::iterations(40);
  in_order.measure_residuals = false;  // a measure would unpack every batch already
  const auto soft = [] {
    RowProblem p = columns(24, 6, false, Real(2));
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      p.rows.softness[i] = p.rows.normal_row[i] < 0 ? Real(0.002) : Real(0);
    p.rows.prepare(p.masses);
    return p;
  };
  SolveStats stats;
  const auto in_order_then_shuffled = [&](PgsSolver& s, RowProblem& p) {
    s.solve(p.rows, {p.velocities, p.masses, nullptr}, in_order, stats);
    for (std::size_t i = 0; i < p.rows.size(); ++i)
      p.rows.bias[i] *= Real(0.5);
    s.solve_again(p.rows, {p.velocities, p.masses, nullptr}, shuffled, stats, false);
  };
  PgsSolver batched;
  RowProblem first = columns(24, 6, false);
  batched.solve(first.rows, {first.velocities, first.masses, nullptr}, in_order, stats);
  RowProblem again = soft(), reference = soft();
  in_order_then_shuffled(batched, again);
  ASSERT_TRUE(batched.batches().built());
  EXPECT_TRUE(batched.batches().visited_in_lanes());
  PgsSolver fresh;
  fresh.set_batched(false);
  in_order_then_shuffled(fresh, reference);
  EXPECT_FALSE(fresh.batches().built());
  EXPECT_TRUE(testing::same_solution(reference, again));
}

}  // namespace
}  // namespace impulse
