// The schedule that lets threads share a Gauss-Seidel sweep (solver/sweep_schedule.h): every unit
// once, units that run at once move no common body, small problems keep the stored order, and the
// pgs solve gives the same bits on any number of threads.

#include "solver/sweep_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "core/task_pool.h"
#include "row_problem.h"
#include "same_solution.h"
#include "solver/pgs_solver.h"
#include "solver/residual.h"

namespace impulse {
namespace {

using testing::RowProblem;

// A wall of width x height boxes on the ground (body 0), each contact a normal row along the
// contact's axis with two friction rows after it. Contacts are listed body by body, as the contact
// manager lists pairs; every other one is an explicit block, the others are rows of their own,
// whose friction rows' normal row lies in another block. With a seed, the boxes are numbered in a
// shuffled order (as a pile's bodies end up, wherever they were created) and the contacts listed
// by their lower body number, as the contact manager does. Contact `missing` (in listing order, if
// any) is left out, the others listed as they would be.
void add_wall(RowProblem& p, int width, int height, unsigned seed, int missing = -1) {
  const auto first = std::uint32_t(p.masses.size());
  for (int k = 0; k < width * height; ++k)
    p.add_body(1 + Real(k % 7) * Real(0.25), {Real(k % 3) * Real(0.1), Real(-1), 0});
  std::vector<std::uint32_t> number(std::size_t(width * height));
  std::iota(number.begin(), number.end(), first);
  if (seed != 0) std::shuffle(number.begin(), number.end(), std::mt19937(seed));
  const auto body = [&](int x, int y) { return number[std::size_t(y * width + x)]; };
  struct Contact {
    std::uint32_t a, b;
    Vec3 n;
  };
  std::vector<Contact> contacts;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      contacts.push_back({body(x, y), y == 0 ? 0 : body(x, y - 1), Vec3::unit_y()});
      if (x > 0) contacts.push_back({body(x, y), body(x - 1, y), Vec3::unit_x()});
    }
  }
  if (seed != 0) {
    std::stable_sort(contacts.begin(), contacts.end(), [](const Contact& c, const Contact& d) {
      return std::min(c.a, c.b) < std::min(d.a, d.b);
    });
  }
  int contact = 0;
  const auto add_contact = [&](std::uint32_t a, std::uint32_t b, const Vec3& n) {
    const bool blocked = contact % 2 == 0;
    if (contact++ == missing) return;
    if (blocked) p.rows.begin_block();
    RowSpec normal;
    normal.body_a = a;
    normal.body_b = b;
    normal.j_lin_a = n;
    normal.j_lin_b = -n;
    normal.lo = 0;
    normal.bias = Real(0.01);
    const auto normal_row = std::int32_t(p.rows.add(normal));
    for (const Vec3& t : {cross(n, Vec3::unit_z()), Vec3::unit_z()}) {
      RowSpec f;
      f.body_a = a;
      f.body_b = b;
      f.j_lin_a = t;
      f.j_lin_b = -t;
      f.j_ang_a = cross(n * Real(-0.5), t);
      f.j_ang_b = -cross(n * Real(0.5), t);
      f.normal_row = normal_row;
      f.mu = Real(0.5);
      p.rows.add(f);
    }
    if (blocked) p.rows.end_block();
  };
  for (const Contact& c : contacts)
    add_contact(c.a, c.b, c.n);
}

RowProblem wall(int width, int height, unsigned seed = 0, int missing = -1) {
  RowProblem p;
  p.add_body(0);
  add_wall(p, width, height, seed, missing);
  p.rows.prepare(p.masses);
  return p;
}

// `count` walls on the same ground: as many islands, listed one after another.
RowProblem walls(int count, int width, int height) {
  RowProblem p;
  p.add_body(0);
  for (int k = 0; k < count; ++k)
    add_wall(p, width, height, 0);
  p.rows.prepare(p.masses);
  return p;
}

struct Built {
  std::vector<std::uint32_t> group_of;
  std::vector<std::uint8_t> moves;
  SweepSchedule schedule;
};

// Builds b's schedule for p's rows, after whatever it was built for before; kept as
// SweepSchedule::build takes it, in_block the rows of the equality block.
void build_for(Built& b, const RowProblem& p, std::span<const KeptRows> kept = {},
               std::span<const std::uint32_t> in_block = {}) {
  const auto moves = [&](std::uint32_t body) { return p.masses[body].inv_mass > 0; };
  b.group_of.assign(p.rows.size(), k_no_row_group);
  for (const std::uint32_t i : in_block)
    b.group_of[i] = k_row_in_block;
  b.moves.clear();
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    b.moves.push_back(
        std::uint8_t((moves(p.rows.body_a[i]) ? 1 : 0) | (moves(p.rows.body_b[i]) ? 2 : 0)));
  b.schedule.build(p.rows, b.group_of, b.moves, p.masses.size(), kept);
}

Built schedule_of(const RowProblem& p) {
  Built b;
  build_for(b, p);
  return b;
}

std::vector<RowUnit> all_units(const SweepSchedule& s) {
  std::vector<RowUnit> units;
  for (std::size_t part = 0; part < s.parts(); ++part)
    units.insert(units.end(), s.interior(part).begin(), s.interior(part).end());
  for (std::size_t c = 0; c < s.colours(); ++c)
    units.insert(units.end(), s.colour(c).begin(), s.colour(c).end());
  units.insert(units.end(), s.last().begin(), s.last().end());
  return units;
}

std::set<std::uint32_t> moving_bodies(const RowProblem& p, std::span<const RowUnit> units) {
  std::set<std::uint32_t> bodies;
  for (const RowUnit unit : units) {
    for (std::uint32_t i = unit.begin; i < unit.end; ++i) {
      for (const std::uint32_t body : {p.rows.body_a[i], p.rows.body_b[i]}) {
        if (p.masses[body].inv_mass > 0) bodies.insert(body);
      }
    }
  }
  return bodies;
}

TEST(SweepSchedule, EveryRowIsInOneUnitWithTheNormalRowsItsFrictionFollows) {
  const RowProblem p = wall(20, 10);
  const Built b = schedule_of(p);
  std::vector<RowUnit> units = all_units(b.schedule);
  std::sort(units.begin(), units.end(), [](RowUnit x, RowUnit y) { return x.begin < y.begin; });
  std::uint32_t next = 0;
  for (const RowUnit unit : units) {
    EXPECT_EQ(unit.begin, next);
    ASSERT_LT(unit.begin, unit.end);
    for (std::uint32_t i = unit.begin; i < unit.end; ++i) {
      const std::int32_t normal = p.rows.normal_row[i];
      if (normal < 0) continue;
      EXPECT_GE(std::uint32_t(normal), unit.begin) << "row " << i;
      EXPECT_LT(std::uint32_t(normal), unit.end) << "row " << i;
    }
    next = unit.end;
  }
  EXPECT_EQ(next, p.rows.size());
  EXPECT_EQ(units.size(), b.schedule.units());
  EXPECT_EQ(units.size(), 20u * 10u + 19u * 10u);  // a contact per unit
}

TEST(SweepSchedule, UnitsThatRunAtOnceMoveNoCommonBody) {
  const RowProblem p = wall(20, 10);
  const Built b = schedule_of(p);
  ASSERT_EQ(b.schedule.parts(), 2u);
  const std::set<std::uint32_t> first = moving_bodies(p, b.schedule.interior(0));
  const std::set<std::uint32_t> second = moving_bodies(p, b.schedule.interior(1));
  for (const std::uint32_t body : first)
    EXPECT_EQ(second.count(body), 0u) << "body " << body;
  ASSERT_GT(b.schedule.colours(), 0u);  // the wall's two halves meet in boundary units
  for (std::size_t c = 0; c < b.schedule.colours(); ++c) {
    std::set<std::uint32_t> seen;
    for (const RowUnit unit : b.schedule.colour(c)) {
      for (const std::uint32_t body : moving_bodies(p, std::span(&unit, 1)))
        EXPECT_TRUE(seen.insert(body).second) << "colour " << c << ", body " << body;
    }
  }
  // Each part keeps the stored order.
  for (std::size_t part = 0; part < 2; ++part) {
    const std::span<const RowUnit> units = b.schedule.interior(part);
    EXPECT_TRUE(std::is_sorted(units.begin(), units.end(),
                               [](RowUnit x, RowUnit y) { return x.begin < y.begin; }));
  }
}

std::size_t rows_of(std::span<const RowUnit> units) {
  std::size_t rows = 0;
  for (const RowUnit unit : units)
    rows += unit.end - unit.begin;
  return rows;
}

// The boundary units all fall to the later part (their bodies are met first in the earlier one),
// so a cut at half the units leaves part 1 short by the boundary (the wall: 585 rows against 525,
// 60 in the boundary). The cut is placed where the larger interior plus the boundary is smallest,
// which here balances the interiors to a unit (3 rows).
TEST(SweepSchedule, TheCutBalancesThePartsInteriorsCountedInRows) {
  const RowProblem p = wall(20, 10);
  const Built b = schedule_of(p);
  ASSERT_EQ(b.schedule.parts(), 2u);
  const std::size_t first = rows_of(b.schedule.interior(0));
  const std::size_t second = rows_of(b.schedule.interior(1));
  EXPECT_LE(std::max(first, second) - std::min(first, second), 3u)
      << first << " and " << second << " rows";
}

// Six walls on one ground are six islands, listed one after another: each is a part of its own
// (the cuts between them add no boundary unit), so six threads could sweep them at once; a single
// wall, one island, keeps its two parts (no cut inside it leaves two sides sharing no body).
TEST(SweepSchedule, IslandsOneAfterAnotherGetAPartEachWithNoBoundary) {
  const RowProblem p = walls(6, 10, 5);
  const Built b = schedule_of(p);
  ASSERT_EQ(b.schedule.parts(), 6u);
  EXPECT_EQ(b.schedule.colours(), 0u);
  EXPECT_TRUE(b.schedule.last().empty());
  std::set<std::uint32_t> seen;
  for (std::size_t part = 0; part < 6; ++part) {
    EXPECT_EQ(b.schedule.interior(part).size(), 10u * 5u + 9u * 5u) << "part " << part;
    for (const std::uint32_t body : moving_bodies(p, b.schedule.interior(part)))
      EXPECT_TRUE(seen.insert(body).second) << "part " << part << ", body " << body;
  }
  EXPECT_EQ(schedule_of(wall(20, 10)).schedule.parts(), 2u);
}

// The serial units (the last colours and the units past them) are visited by the member whose
// own run of parts holds part 1: the boundary units lie in part 1's range and move its bodies. A
// wall's two parts on two threads: member 1's. Six islands' parts on two or three threads:
// member 0's, whose run holds parts 0 and 1; on four to six, member 1's, whose run starts at
// part 1; on seven, member 2's (members 0 and 1 both start at part 0).
TEST(SweepSchedule, TheSerialUnitsGoToTheMemberHoldingPart1) {
  const Built wall_of_two = schedule_of(wall(20, 10));
  ASSERT_EQ(wall_of_two.schedule.parts(), 2u);
  EXPECT_EQ(wall_of_two.schedule.member_holding_part_1(1), 0u);
  EXPECT_EQ(wall_of_two.schedule.member_holding_part_1(2), 1u);
  const Built islands = schedule_of(walls(6, 10, 5));
  ASSERT_EQ(islands.schedule.parts(), 6u);
  const std::size_t expected[] = {0, 0, 0, 1, 1, 1, 2};  // for 1 to 7 members
  for (std::size_t members = 1; members <= 7; ++members) {
    const std::size_t m = islands.schedule.member_holding_part_1(members);
    EXPECT_EQ(m, expected[members - 1]) << members << " members";
    EXPECT_LE(islands.schedule.first_part_of(m, members), 1u) << members << " members";
    if (m + 1 < members) {
      EXPECT_GT(islands.schedule.first_part_of(m + 1, members), 1u) << members << " members";
    }
  }
}

// A colour of a few units would be a phase of its own that every thread waits out: the last
// colours, when that small, are visited with the serial units instead.
TEST(SweepSchedule, TheLastColoursOfFewUnitsGoToTheSerialUnits) {
  for (const unsigned seed : {0u, 7u, 11u}) {
    const RowProblem p = wall(20, 10, seed);
    const Built b = schedule_of(p);
    ASSERT_GT(b.schedule.colours(), 0u) << "seed " << seed;
    EXPECT_GE(b.schedule.colour(b.schedule.colours() - 1).size(),
              SweepSchedule::k_min_units_per_colour)
        << "seed " << seed;
  }
}

// One body that every unit moves (a hub: a platform with 200 boxes on it): no cut makes a shorter
// sweep than one thread's, since every unit after any cut would be a boundary unit. One part, no
// colour, the stored order.
TEST(SweepSchedule, AHubThatEveryUnitMovesMakesOnePart) {
  RowProblem p;
  const std::uint32_t hub = p.add_body(10);
  for (int k = 0; k < 200; ++k) {
    const std::uint32_t box = p.add_body(1, {0, Real(-1), 0});
    p.rows.begin_block();
    RowSpec normal;
    normal.body_a = box;
    normal.body_b = hub;
    normal.j_lin_a = Vec3::unit_y();
    normal.j_lin_b = -Vec3::unit_y();
    normal.lo = 0;
    p.rows.add(normal);
    p.rows.end_block();
  }
  p.rows.prepare(p.masses);
  const Built b = schedule_of(p);
  EXPECT_EQ(b.schedule.parts(), 1u);
  EXPECT_EQ(b.schedule.colours(), 0u);
  EXPECT_EQ(b.schedule.interior(0).size(), 200u);
}

// Listed by body number with the numbers shuffled, a cut of the stored order leaves part 1 almost
// no interior (part 0 has met nearly every body first); the parts are then cut along the reach
// from body to body instead: two regions of the wall, each with nearly half the units.
TEST(SweepSchedule, ABodyOrderUnrelatedToPlaceStillGivesEachPartNearlyHalfTheUnits) {
  const RowProblem p = wall(20, 10, 7);
  const Built b = schedule_of(p);
  ASSERT_EQ(b.schedule.parts(), 2u);
  const std::size_t units = b.schedule.units();
  for (std::size_t part = 0; part < 2; ++part)
    EXPECT_GT(b.schedule.interior(part).size(), units * 2 / 5) << "part " << part;
  const std::set<std::uint32_t> first = moving_bodies(p, b.schedule.interior(0));
  const std::set<std::uint32_t> second = moving_bodies(p, b.schedule.interior(1));
  for (const std::uint32_t body : first)
    EXPECT_EQ(second.count(body), 0u) << "body " << body;
  EXPECT_EQ(all_units(b.schedule).size(), units);
}

// One thread visits every part's interior in one pass, the parts merged in stored order: each
// unit once, and on a wall cut along the reach the parts' units interleave in the rows.
TEST(SweepSchedule, TheMergedInteriorsAreEveryPartsUnitsInStoredOrder) {
  const Built b = schedule_of(wall(20, 10, 7));
  ASSERT_EQ(b.schedule.parts(), 2u);
  const std::span<const RowUnit> merged = b.schedule.interiors_in_stored_order();
  const std::span<const RowUnit> by_part = b.schedule.interiors(0, b.schedule.parts());
  ASSERT_EQ(merged.size(), by_part.size());
  const auto begins = [](std::span<const RowUnit> units) {
    std::vector<std::uint32_t> out;
    for (const RowUnit unit : units)
      out.push_back(unit.begin);
    return out;
  };
  const std::vector<std::uint32_t> merged_begins = begins(merged);
  std::vector<std::uint32_t> part_begins = begins(by_part);
  EXPECT_TRUE(std::is_sorted(merged_begins.begin(), merged_begins.end()));
  EXPECT_FALSE(std::is_sorted(part_begins.begin(), part_begins.end()));  // the parts interleave
  std::sort(part_begins.begin(), part_begins.end());
  EXPECT_EQ(merged_begins, part_begins);
}

TEST(SweepSchedule, ASmallProblemKeepsTheStoredOrder) {
  const RowProblem p = wall(6, 5);
  const Built b = schedule_of(p);
  EXPECT_EQ(b.schedule.parts(), 1u);
  EXPECT_EQ(b.schedule.colours(), 0u);
  const std::span<const RowUnit> units = b.schedule.interior(0);
  ASSERT_EQ(units.size(), b.schedule.units());
  for (std::size_t k = 1; k < units.size(); ++k)
    EXPECT_EQ(units[k].begin, units[k - 1].end);
}

// The problem (a wall by default) solved on 1 to 4 threads: the same iterations, impulses and
// velocities to the bit.
// stats: the one-thread solve's.
void expect_same_bits_on_any_number_of_threads(
    const SolverSettings& settings, SolveStats& stats,
    const std::function<RowProblem()>& problem = [] { return wall(20, 10); }) {
  RowProblem one = problem();
  TaskPool pool1(1);
  PgsSolver solver;
  solver.solve(one.rows, {one.velocities, one.masses, &pool1}, settings, stats);
  for (const int threads : {2, 3, 4}) {
    RowProblem many = problem();
    TaskPool pool(threads);
    PgsSolver other;
    SolveStats other_stats;
    other.solve(many.rows, {many.velocities, many.masses, &pool}, settings, other_stats);
    EXPECT_EQ(other_stats.iterations, stats.iterations);
    EXPECT_TRUE(testing::same_solution(one, many)) << threads << " threads";
  }
}

// Where each unit of the schedule runs, by its first row: its part, or -1 for the boundary (the
// colours and the units after them).
std::map<std::uint32_t, int> places_of(const SweepSchedule& s) {
  std::map<std::uint32_t, int> places;
  for (std::size_t part = 0; part < s.parts(); ++part) {
    for (const RowUnit unit : s.interior(part))
      places[unit.begin] = int(part);
  }
  for (std::size_t c = 0; c < s.colours(); ++c) {
    for (const RowUnit unit : s.colour(c))
      places[unit.begin] = -1;
  }
  for (const RowUnit unit : s.last())
    places[unit.begin] = -1;
  return places;
}

// Units that run at once move no common body: the parts' interiors, and the units of a colour.
void expect_units_apart(const RowProblem& p, const SweepSchedule& s) {
  std::map<std::uint32_t, std::size_t> part_of_body;
  for (std::size_t part = 0; part < s.parts(); ++part) {
    for (const std::uint32_t body : moving_bodies(p, s.interior(part)))
      EXPECT_TRUE(part_of_body.emplace(body, part).second) << "body " << body;
  }
  for (std::size_t c = 0; c < s.colours(); ++c) {
    std::set<std::uint32_t> seen;
    for (const RowUnit unit : s.colour(c)) {
      for (const std::uint32_t body : moving_bodies(p, std::span(&unit, 1)))
        EXPECT_TRUE(seen.insert(body).second) << "colour " << c << ", body " << body;
    }
  }
}

// A layout change mostly brings the last layout's units back (RowLayout::BlockMatch finds them),
// and the units are taken from the last build there; the parts and colours are those a fresh
// build gives, so the sweep's order follows from the rows alone (a solver built anew, as after a
// restore, gives the same bits). Parts patched from the last build's once left a unit where it ran.
TEST(SweepSchedule, ALayoutChangeGivesThePlacesAFreshBuildGives) {
  constexpr int k_missing = 137;  // a contact (three rows) in the wall's middle
  constexpr auto k_gone = std::uint32_t(3 * k_missing);
  const RowProblem whole = wall(20, 10), without = wall(20, 10, 0, k_missing);
  Built b = schedule_of(whole);
  ASSERT_EQ(b.schedule.parts(), 2u);
  // The contact goes: every unit left is one from before, a contact's rows later.
  const std::array<KeptRows, 2> gone{
      KeptRows{0, k_gone, 0}, KeptRows{k_gone, std::uint32_t(without.rows.size()), k_gone + 3}};
  build_for(b, without, gone);
  EXPECT_EQ(places_of(b.schedule), places_of(schedule_of(without).schedule));
  expect_units_apart(without, b.schedule);
  // And comes back.
  const std::array<KeptRows, 2> back{
      KeptRows{0, k_gone, 0}, KeptRows{k_gone + 3, std::uint32_t(whole.rows.size()), k_gone}};
  build_for(b, whole, back);
  EXPECT_EQ(places_of(b.schedule), places_of(schedule_of(whole).schedule));
  expect_units_apart(whole, b.schedule);
}

std::vector<RowUnit> units_in_row_order(const SweepSchedule& s) {
  std::vector<RowUnit> units = all_units(s);
  std::sort(units.begin(), units.end(), [](RowUnit x, RowUnit y) { return x.begin < y.begin; });
  return units;
}

void expect_same_units(std::span<const RowUnit> taken, std::span<const RowUnit> read) {
  ASSERT_EQ(taken.size(), read.size());
  for (std::size_t k = 0; k < taken.size(); ++k) {
    EXPECT_EQ(taken[k].begin, read[k].begin) << "unit " << k;
    EXPECT_EQ(taken[k].end, read[k].end) << "unit " << k;
  }
}

// A unit on kept rows is taken from the last build with its bodies rather than read again: the
// units are those the rows give read afresh, whatever the kept rows (a contact gone, the rows
// kept in two runs split at every seventh block, among units of several blocks, rows of the
// equality block between), and units that run at once still move no common body (the bodies
// taken are the units' own).
TEST(SweepSchedule, UnitsTakenFromTheLastBuildAreTheOnesTheirRowsGive) {
  constexpr int k_missing = 137;
  constexpr auto k_gone = std::uint32_t(3 * k_missing);
  const RowProblem whole = wall(20, 10), without = wall(20, 10, 0, k_missing);
  const auto n = std::uint32_t(whole.rows.size());
  // Every 13th row in the equality block: friction rows whose normal row is in it, normal rows
  // without their friction, units trimmed at either end. The same rows of the wall without the
  // contact.
  std::vector<std::uint32_t> in_block, in_block_without;
  for (std::uint32_t i = 5; i < n; i += 13) {
    in_block.push_back(i);
    if (i < k_gone || i >= k_gone + 3) in_block_without.push_back(i < k_gone ? i : i - 3);
  }
  const std::array<KeptRows, 2> gone{KeptRows{0, k_gone, 0}, KeptRows{k_gone, n - 3, k_gone + 3}};
  for (const bool marked : {false, true}) {
    const auto marks = [&](const std::vector<std::uint32_t>& rows) {
      return marked ? std::span(rows) : std::span<const std::uint32_t>();
    };
    Built b, fresh, fresh_without;
    build_for(b, whole, {}, marks(in_block));
    build_for(fresh, whole, {}, marks(in_block));
    build_for(fresh_without, without, {}, marks(in_block_without));
    build_for(b, without, gone, marks(in_block_without));
    expect_same_units(units_in_row_order(b.schedule), units_in_row_order(fresh_without.schedule));
    expect_units_apart(without, b.schedule);
    // The whole wall again, then kept in two runs split at every 7th block.
    build_for(b, whole, {}, marks(in_block));
    for (std::size_t block = 1; block + 1 < whole.rows.block_begin.size(); block += 7) {
      const std::uint32_t split = whole.rows.block_begin[block];
      const std::array<KeptRows, 2> halves{KeptRows{0, split, 0}, KeptRows{split, n, split}};
      build_for(b, whole, halves, marks(in_block));
      expect_same_units(units_in_row_order(b.schedule), units_in_row_order(fresh.schedule));
      expect_units_apart(whole, b.schedule);
    }
  }
}

// A unit is taken from the last build only where all its rows are kept: one that went on past
// them (its friction row in a block of its own, gone) is read again.
TEST(SweepSchedule, AUnitGoingPastTheKeptRowsIsReadAgain) {
  const auto problem = [](bool friction) {
    RowProblem p;
    p.add_body(0);
    p.add_body(1);
    p.add_body(1);
    p.add_contact_y(1, 0);
    if (friction)
      p.add_friction_x(1, 0, 0);
    else
      p.add_contact_y(2, 0);
    p.rows.prepare(p.masses);
    return p;
  };
  Built b;
  build_for(b, problem(true));
  expect_same_units(units_in_row_order(b.schedule), std::array{RowUnit{0, 2}});
  const std::array<KeptRows, 1> normal_kept{KeptRows{0, 1, 0}};
  build_for(b, problem(false), normal_kept);
  expect_same_units(units_in_row_order(b.schedule), std::array{RowUnit{0, 1}, RowUnit{1, 2}});
}

// A custom friction row may be bounded by a row of the equality block: its unit then reaches
// back over the rows before it (taking in a unit among them), so what its own rows gave last time
// says nothing of what they give now, and it is read again.
TEST(SweepSchedule, AUnitReachingIntoTheEqualityBlockIsReadAgain) {
  // Rows 0 and 1 a block, row 0 in the equality block; row 2 friction bounded by row 0. Last
  // time row 1 was in the equality block too, now it is not: a unit of its own before row 2's.
  RowProblem p;
  p.add_body(0);
  p.add_body(1);
  p.add_body(1);
  p.rows.begin_block();
  p.add_contact_y(1, 0);
  p.add_contact_y(2, 0);
  p.rows.end_block();
  p.add_friction_x(1, 0, 0);
  p.rows.prepare(p.masses);
  Built b;
  build_for(b, p, {}, std::array<std::uint32_t, 2>{0, 1});
  expect_same_units(units_in_row_order(b.schedule), std::array{RowUnit{2, 3}});
  const std::array<KeptRows, 1> friction_kept{KeptRows{2, 3, 2}};
  build_for(b, p, friction_kept, std::array<std::uint32_t, 1>{0});
  expect_same_units(units_in_row_order(b.schedule), std::array{RowUnit{1, 3}});
}

// A custom friction row may be bounded by a later row: its unit stays open until that row, and
// closes past its own last row where the rows between are in the equality block. Where the row
// it closed with is not kept, the unit is read again.
TEST(SweepSchedule, AUnitClosedPastItsLastRowIsReadAgain) {
  // Each row a block: row 0 a normal row, row 1 friction bounded by row 2, row 2 a normal row.
  // Last time row 2 was in the equality block (row 1's unit closed with it, ending before it);
  // now it is not, and rows 0 and 1 alone are kept.
  RowProblem p;
  p.add_body(0);
  p.add_body(1);
  p.add_contact_y(1, 0);
  p.add_friction_x(1, 0, 2);
  p.add_contact_y(1, 0);
  p.rows.prepare(p.masses);
  Built b;
  build_for(b, p, {}, std::array<std::uint32_t, 1>{2});
  expect_same_units(units_in_row_order(b.schedule), std::array{RowUnit{0, 1}, RowUnit{1, 2}});
  const std::array<KeptRows, 1> first_two{KeptRows{0, 2, 0}};
  build_for(b, p, first_two);
  expect_same_units(units_in_row_order(b.schedule), std::array{RowUnit{0, 1}, RowUnit{1, 3}});
}

// A solver keeps its structure through layout changes (the units and blocks that come back); a
// solver on one thread, one on several, and a new one at each layout (as after a restore), given
// the same layouts in turn, give the same bits.
TEST(SweepSchedule, PgsGivesTheSameBitsOnAnyNumberOfThreadsThroughLayoutChanges) {
  const SolverSettings settings = testing::iterations(10);
  TaskPool pool1(1), pool2(2);
  PgsSolver one, two;
  for (int step = 0; step < 12; ++step) {
    // A contact goes and another comes at each step, as a pile's do.
    const auto problem = [&] { return wall(20, 10, 0, step % 3 == 2 ? -1 : 40 + 11 * step); };
    RowProblem a = problem(), b = problem(), c = problem();
    SolveStats stats_one, stats_two, stats_new;
    one.solve(a.rows, {a.velocities, a.masses, &pool1}, settings, stats_one);
    two.solve(b.rows, {b.velocities, b.masses, &pool2}, settings, stats_two);
    PgsSolver anew;
    anew.solve(c.rows, {c.velocities, c.masses, &pool1}, settings, stats_new);
    EXPECT_TRUE(stats_one.layout_changed);
    EXPECT_TRUE(testing::same_solution(a, b)) << "step " << step;
    EXPECT_TRUE(testing::same_solution(a, c)) << "step " << step;
  }
}

// A solve says how many threads shared its sweeps: a large wall as many as the pool has (up to its
// parts), a small one (one part) none but the caller.
TEST(SweepSchedule, ASolveReportsTheThreadsThatSharedItsSweeps) {
  const SolverSettings settings = testing::iterations(10);
  for (const auto& [width, height, threads, sharing] :
       {std::array{20, 10, 1, 1}, std::array{20, 10, 2, 2}, std::array{6, 5, 2, 1}}) {
    RowProblem p = wall(width, height);
    TaskPool pool(threads);
    PgsSolver solver;
    SolveStats stats;
    solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
    EXPECT_EQ(stats.threads, std::size_t(sharing)) << width << " x " << height << ", " << threads;
  }
}

// And a real solve: the residual falls tenfold.
TEST(SweepSchedule, PgsGivesTheSameBitsOnAnyNumberOfThreads) {
  SolveStats stats;
  SolverSettings settings = testing::iterations(100);
  settings.record_residuals = true;  // the initial residual is measured with every iteration's
  expect_same_bits_on_any_number_of_threads(settings, stats);
  EXPECT_LT(stats.final_residual, Real(0.1) * stats.initial_residual);
}

// Unbatched, one thread visits the parts' interiors merged in stored order, several a part each:
// the same bits, on a wall whose parts (cut along the reach) interleave in the rows.
TEST(SweepSchedule, PgsUnbatchedGivesTheSameBitsOnOneThreadAsOnTwo) {
  const SolverSettings settings = testing::iterations(30);
  std::array<RowProblem, 2> problems{wall(20, 10, 7), wall(20, 10, 7)};
  for (std::size_t k = 0; k < problems.size(); ++k) {
    TaskPool pool(int(k) + 1);
    PgsSolver solver;
    solver.set_batched(false);
    SolveStats stats;
    solver.solve(problems[k].rows, {problems[k].velocities, problems[k].masses, &pool}, settings,
                 stats);
    EXPECT_EQ(stats.threads, k + 1);
  }
  EXPECT_TRUE(testing::same_solution(problems[0], problems[1]));
}

// Islands: six walls (six parts, no boundary), and three wide walls, cut inside the middle one and
// split at the two others' edges (four parts, with colours shared among up to four threads).
TEST(SweepSchedule, PgsGivesTheSameBitsOnAnyNumberOfThreadsOverManyIslands) {
  for (const auto& [count, width, height] : {std::array{6, 10, 5}, std::array{3, 20, 10}}) {
    SolveStats stats;
    SolverSettings settings = testing::iterations(100);
    settings.record_residuals = true;
    expect_same_bits_on_any_number_of_threads(settings, stats,
                                              [&] { return walls(count, width, height); });
    EXPECT_LT(stats.final_residual, Real(0.1) * stats.initial_residual);
  }
  const Built three = schedule_of(walls(3, 20, 10));
  EXPECT_EQ(three.schedule.parts(), 4u);
  EXPECT_GT(three.schedule.colours(), 0u);
}

// Nothing measured between the steps of a solve: several threads then pack the inputs, warm start
// and sweep in one team (PgsSolver::iterate), one thread in turn; the same bits, with and
// without the equality block's components, and on islands (parts with no boundary, so no units
// past the colours); every sweep counted.
TEST(SweepSchedule, PgsGivesTheSameBitsOnAnyNumberOfThreadsWhenNothingIsMeasured) {
  SolverSettings settings = testing::iterations(40);
  settings.measure_residuals = false;
  SolveStats stats;
  expect_same_bits_on_any_number_of_threads(settings, stats);
  EXPECT_EQ(stats.iterations, 40);
  ASSERT_TRUE(schedule_of(walls(6, 10, 5)).schedule.last().empty());
  expect_same_bits_on_any_number_of_threads(settings, stats, [] { return walls(6, 10, 5); });
  EXPECT_EQ(stats.iterations, 40);
  expect_same_bits_on_any_number_of_threads(settings, stats, [] {
    RowProblem p = wall(20, 10);
    for (int chain = 0; chain < 4; ++chain)
      testing::add_chain(p, 6);
    p.rows.prepare(p.masses);
    return p;
  });
  EXPECT_EQ(stats.iterations, 40);
}

// A wall with chains hanging beside it from the world: the equality block's components (one a
// chain), each solved by one of the threads between sweeps, give the same bits too.
TEST(SweepSchedule, PgsGivesTheSameBitsOnAnyNumberOfThreadsWithTheEqualityBlocksComponents) {
  SolveStats stats;
  expect_same_bits_on_any_number_of_threads(testing::iterations(20), stats, [] {
    RowProblem p = wall(20, 10);
    for (int chain = 0; chain < 4; ++chain)
      testing::add_chain(p, 6);
    p.rows.prepare(p.masses);
    return p;
  });
}

// Seventy chains of eleven links beside the wall: seventy components of 33 rows, a run each, more
// than the 64 slices the block's runs are shared out in. The same bits on any number of threads,
// and every chain held: its joints' rows end with no velocity error (the links fall at 1 m/s, so a
// component left out of the slices would keep that).
TEST(SweepSchedule, PgsSolvesEveryComponentOfAnEqualityBlockOfMoreRunsThanSlices) {
  const auto problem = [] {
    RowProblem p = wall(20, 10);
    for (int chain = 0; chain < 70; ++chain)
      testing::add_chain(p, 11);
    p.rows.prepare(p.masses);
    return p;
  };
  SolverSettings settings = testing::iterations(10);
  settings.measure_residuals = false;
  SolveStats stats;
  expect_same_bits_on_any_number_of_threads(settings, stats, problem);
  RowProblem p = problem();
  TaskPool pool(2);
  PgsSolver solver;
  solver.solve(p.rows, {p.velocities, p.masses, &pool}, settings, stats);
  std::size_t bilateral = 0;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const bool friction = p.rows.normal_row[i] >= 0;  // bounded by its normal rows instead
    if (friction || p.rows.lo[i] > -k_infinity || p.rows.hi[i] < k_infinity) continue;
    ++bilateral;
    EXPECT_LT(std::abs(row_error(p.rows, i, p.velocities)), Real(1e-4)) << "row " << i;
  }
  EXPECT_EQ(bilateral, 70u * 11u * 3u);
}

// A shuffled wall's boundary: two colours large enough to share and a small one after them, which
// the first member visits alone between sweeps, in its place in the order: the same bits, and
// every unit still visited (the residual falls tenfold).
TEST(SweepSchedule, PgsGivesTheSameBitsOnAnyNumberOfThreadsWithItsSmallColoursOnOne) {
  const auto problem = [] { return wall(30, 20, 3); };
  const Built built = schedule_of(problem());
  ASSERT_EQ(built.schedule.colours(), 3u);
  EXPECT_GE(built.schedule.colour(1).size(), 16u);
  EXPECT_LT(built.schedule.colour(2).size(), 16u);
  SolverSettings settings = testing::iterations(400);
  settings.measure_residuals = false;  // one team for the whole solve
  SolveStats stats;
  expect_same_bits_on_any_number_of_threads(settings, stats, problem);
  settings.record_residuals = true;  // a team a sweep, the residual measured between them
  expect_same_bits_on_any_number_of_threads(settings, stats, problem);
  EXPECT_LT(stats.final_residual, Real(0.1) * stats.initial_residual);
}

TEST(SweepSchedule, PgsStopsOnItsToleranceAtTheSameIterationOnAnyNumberOfThreads) {
  SolverSettings settings = testing::iterations(1000);
  settings.tolerance = Real(0.05);
  SolveStats stats;
  expect_same_bits_on_any_number_of_threads(settings, stats);
  EXPECT_GT(stats.iterations, 1);
  EXPECT_LT(stats.iterations, 1000);  // it stopped on the tolerance
}

}  // namespace
}  // namespace impulse
