// Heavy bodies on light ones (solver/ratio_islands.h): pgs's sweeps pass a heavy body's load
// through a light one too slowly, so an island with a mass ratio past twenty is solved exactly
// after them. Each case below crushed or threw the light bodies with the sweeps alone
// (docs/solvers.md, "Mass ratios").

#include <impulse/constraint.h>
#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/bodies.h"
#include "support/optimised.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_dt = Real(1) / 60;
constexpr Real k_g = Real(9.81);

World world_without_sleep(SolverType solver = SolverType::pgs) {
  WorldSettings settings;
  settings.sleeping = false;
  settings.solver.type = solver;
  return World(settings);
}

BodyId add_box(World& world, const Vec3& half, const Vec3& position, Real mass,
               const Vec3& velocity = Vec3::zero()) {
  BodySettings box = body_of(Box{half}, position);
  box.mass = mass;
  box.linear_velocity = velocity;
  return world.create_body(box);
}

BodyId add_unit_box(World& world, Real y, Real mass) {
  return add_box(world, {Real(0.5), Real(0.5), Real(0.5)}, {0, y, 0}, mass);
}

// A column of `count` 1 kg unit boxes standing on a ground box, and a unit box of `heavy_mass` on
// top of it.
struct Column {
  std::vector<BodyId> boxes;  // bottom first
  BodyId heavy;
};

Column add_column(World& world, int count, Real heavy_mass) {
  world.create_body(ground_box());
  Column column;
  for (int i = 0; i < count; ++i)
    column.boxes.push_back(add_unit_box(world, Real(0.5) + Real(i), 1));
  column.heavy = add_unit_box(world, Real(0.5) + Real(count), heavy_mass);
  return column;
}

void run(World& world, int steps) {
  for (int i = 0; i < steps; ++i)
    world.step(k_dt);
}

// A column of unit boxes of these masses (bottom first) on a ground box, 10 s under `solver`: each
// box within the slop of each contact under it of its place and not moved sideways, the column one
// mass-ratio island solved exactly.
void expect_column_stands(const std::vector<Real>& masses, SolverType solver) {
  World world = world_without_sleep(solver);
  world.create_body(ground_box());
  std::vector<BodyId> boxes;
  for (std::size_t k = 0; k < masses.size(); ++k)
    boxes.push_back(add_unit_box(world, Real(0.5) + Real(k), masses[k]));
  run(world, 600);
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const Vec3 p = world.position(boxes[k]);
    EXPECT_NEAR(p.y, Real(0.5) + Real(k), Real(k + 1) * WorldSettings{}.solver.slop)
        << masses.size() << " boxes, box " << k;
    EXPECT_NEAR(p.x, 0, Real(0.001)) << masses.size() << " boxes, box " << k;
  }
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 1u);
}

// The normal impulses of the last step's contacts between a and b (either way round).
Real normal_impulse_between(const World& world, BodyId a, BodyId b) {
  Real sum = 0;
  for (const DebugContact& c : world.debug_contacts()) {
    if ((c.body_a == a && c.body_b == b) || (c.body_a == b && c.body_b == a))
      sum += c.normal_impulse;
  }
  return sum;
}

// A random passive chain (scripts/sweep.py chains, seed 5084): a 0.54 kg capsule on a six_dof to
// a post, with a linear axis free, then 1.5, 0.6, 5, 16.6 and 1 kg links. Its light links pass a
// limit in the swings, and the whole chain becomes a mass-ratio island. The exact solve of such an
// island gave the links up to 1080 J in a step (a light link's limit, decoupled from its joint's
// rows, asking 15.8 of the velocity along a direction its rows nearly lack), and the push-outs of
// the limits kept their speed: the chain rose to 2.5 times its starting energy. Now an exact change
// that gives more energy than a push could is left to the sweeps, and a passed limit's push-out,
// like a contact's, moves the links but leaves them no speed (docs/solvers.md): the chain only
// loses energy.
TEST(RatioIslands, APassiveChainWithLightLinksUnderAHeavyLoadGainsNoEnergy) {
  SKIP_UNLESS_OPTIMISED();  // the swings that pass the limits are the optimised build's
  World world = build_world(
      load_scene(std::string(IMPULSE_TEST_DATA_DIR) + "/chain_light_links_heavy_load.json"));
  const double start = world.kinetic_energy() + world.potential_energy();
  double most = start;
  std::size_t islands = 0;
  for (int i = 0; i < 600; ++i) {
    world.step(k_dt);
    most = std::max(most, world.kinetic_energy() + world.potential_energy());
    islands += world.last_step_stats().solve.ratio_islands_solved +
               world.last_step_stats().solve.ratio_islands_left;
  }
  EXPECT_GT(islands, 0u);
  EXPECT_LE(most, start * (1 + 1e-3));
}

TEST(RatioIslands, AThousandKilogramBoxRestsOnAOneKilogramBox) {
  World world = world_without_sleep();
  const BodyId ground = world.create_body(ground_box());
  const BodyId light = add_unit_box(world, Real(0.5), 1);
  const BodyId heavy = add_unit_box(world, Real(1.5), 1000);
  run(world, 600);
  // The sweeps alone: the light box pressed 0.25 m into the ground, both thrown off.
  EXPECT_NEAR(world.position(light).y, Real(0.5), Real(0.001));
  EXPECT_NEAR(world.position(heavy).y, Real(1.5), Real(0.001));
  EXPECT_NEAR(world.position(heavy).x, 0, Real(0.001));
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 1u);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_left, 0u);
  // Each contact carries the weight above it, a step's worth.
  EXPECT_NEAR(normal_impulse_between(world, light, heavy), 1000 * k_g * k_dt, Real(0.2));
  EXPECT_NEAR(normal_impulse_between(world, ground, light), 1001 * k_g * k_dt, Real(0.2));
}

TEST(RatioIslands, TheSolvesFinalFiguresAreTheIslandsExactResult) {
  WorldSettings settings;
  settings.sleeping = false;
  settings.solver.measure_residuals = true;
  World world(settings);
  add_column(world, 8, 1000);
  world.step(k_dt);
  const SolveStats& solve = world.last_step_stats().solve;
  ASSERT_EQ(solve.ratio_islands_solved, 1u);
  // The sweeps' last iteration measured 0.36 and 0.029 m/s; the island's impulses in double,
  // applied in float, leave a few 1e-4 and 1e-5.
  EXPECT_LT(solve.final_residual, Real(1e-3));
  EXPECT_LT(solve.complementarity_error, Real(1e-4));
}

TEST(RatioIslands, AColumnOfFourUnitBoxesHoldsOneThirtyTimesHeavier) {
  World world = world_without_sleep();
  const Column column = add_column(world, 4, 30);
  run(world, 300);
  // The sweeps alone: the heavy box 46 mm low, rocking; the column fell within 10 s.
  for (std::size_t k = 0; k < column.boxes.size(); ++k) {
    EXPECT_NEAR(world.position(column.boxes[k]).y, Real(0.5) + Real(k), Real(0.002)) << "box " << k;
    EXPECT_NEAR(world.position(column.boxes[k]).x, 0, Real(0.002)) << "box " << k;
  }
  EXPECT_NEAR(world.position(column.heavy).y, Real(4.5), Real(0.002));
}

TEST(RatioIslands, AHeavyBoxSlidingOnALightSlabStopsAsCoulombSaysAndLeavesTheSlab) {
  World world = world_without_sleep();
  world.create_body(ground_box());
  // The ground's friction on the slab can hold it (mu (1000 + 1) g against mu 1000 g).
  const BodyId slab = add_box(world, {2, Real(0.5), 2}, {0, Real(0.5), 0}, 1);
  const Real speed = 3;
  const BodyId heavy = add_box(world, {Real(0.5), Real(0.5), Real(0.5)}, {Real(-1.5), Real(1.5), 0},
                               1000, {speed, 0, 0});
  run(world, 120);
  // Sliding friction mu g stops it after v^2 / (2 mu g) (pair friction 0.5); the sweeps alone
  // crushed the slab and flung it.
  const Real stop = speed * speed / (2 * Real(0.5) * k_g);
  EXPECT_NEAR(world.position(heavy).x, Real(-1.5) + stop, Real(0.05));
  EXPECT_NEAR(world.position(heavy).y, Real(1.5), Real(0.001));
  EXPECT_LT(length(world.position(slab) - Vec3{0, Real(0.5), 0}), Real(0.001));
}

TEST(RatioIslands, AHeavyBoxDroppedOnALightOneStopsOnIt) {
  World world = world_without_sleep();
  world.create_body(ground_box());
  const BodyId light = add_unit_box(world, Real(0.5), 1);
  BodySettings drop = body_of(Box{}, {Real(0.3), Real(2.6), Real(0.1)});
  drop.mass = 1000;
  drop.orientation = Quat::from_axis_angle({0, 1, 0}, Real(0.3));
  const BodyId heavy = world.create_body(drop);
  Real deepest = 0;
  for (int i = 0; i < 120; ++i) {
    world.step(k_dt);
    deepest = std::max(deepest, world.last_step_stats().max_penetration);
  }
  // The sweeps alone: 85 mm deep as it struck, both thrown apart.
  EXPECT_LT(deepest, Real(0.01));
  EXPECT_NEAR(world.position(light).y, Real(0.5), Real(0.001));
  EXPECT_NEAR(world.position(heavy).y, Real(1.5), Real(0.001));
}

TEST(RatioIslands, AThousandKilogramBoxStandsOnAColumnOfNineUnitBoxes) {
  SKIP_UNLESS_OPTIMISED();  // 600 direct solves of 120 rows
  World world = world_without_sleep();
  // Ten contacts of four points and their friction: 120 rows.
  const Column column = add_column(world, 9, 1000);
  run(world, 600);
  // The sweeps alone (past the old limit of 96 rows): the column falls, the heavy box on the
  // ground.
  EXPECT_EQ(world.last_step_stats().solve.rows, 120u);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 1u);
  EXPECT_NEAR(world.position(column.heavy).y, Real(9.5), Real(0.001));
  EXPECT_NEAR(world.position(column.heavy).x, 0, Real(0.001));
  for (std::size_t i = 0; i < column.boxes.size(); ++i)
    EXPECT_NEAR(world.position(column.boxes[i]).x, 0, Real(0.001)) << i;
}

TEST(RatioIslands, AnIslandTooLargeIsLeftToTheSweepsAndCounted) {
  World world = world_without_sleep();
  // Eleven contacts of four points and their friction: 132 rows.
  add_column(world, 10, 1000);
  run(world, 2);
  ASSERT_GT(world.last_step_stats().solve.rows, 128u);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 0u);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_left, 1u);
}

// Joints' equality rows and motors between such masses mark no island: the equality block solves
// the joints exactly. A chain of five 1 kg links hanging from a nail with a 1000 kg box at its end
// (hanging, or resting on the ground) holds its joints; a 1000 kg car on four 20 kg wheels driven
// by hinge motors at 5 rad/s rolls at 2 m/s.
TEST(RatioIslands, JointsAndMotorsBetweenSuchMassesMarkNoIsland) {
  for (const bool on_ground : {false, true}) {
    World world = world_without_sleep();
    world.create_body(ground_box());
    const Real top = 6, link = Real(0.5);
    BodyId previous;
    for (int k = 0; k < 6; ++k) {
      const bool end = k == 5;
      // The end's box hangs 0.5 m above the ground, or its bottom sits on it.
      const Real y = end ? (on_ground ? Real(0.5) : Real(1)) : top - link * Real(2 * k + 1) / 2;
      const BodyId body = end ? add_unit_box(world, y, 1000)
                              : add_box(world, {Real(0.05), link / 2, Real(0.05)}, {0, y, 0}, 1);
      JointSettings joint;
      joint.type = k == 0 ? JointType::nail : JointType::ball;
      joint.body_a = k == 0 ? body : previous;
      if (k > 0) joint.body_b = body;
      joint.anchor = {0, top - link * Real(k), 0};
      if (end) joint.anchor = {0, y + Real(0.5), 0};
      world.create_joint(joint);
      previous = body;
    }
    run(world, 120);
    const SolveStats& solve = world.last_step_stats().solve;
    EXPECT_EQ(solve.ratio_islands_solved + solve.ratio_islands_left, 0u);
    EXPECT_LT(world.last_step_stats().max_joint_error, Real(0.001))
        << "on the ground: " << on_ground;
  }
  World world = world_without_sleep();
  world.create_body(ground_box());
  const BodyId chassis = add_box(world, {2, Real(0.3), 1}, {0, 1, 0}, 1000);
  for (const Real x : {Real(-1.5), Real(1.5)}) {
    for (const Real z : {Real(-1.2), Real(1.2)}) {
      BodySettings wheel = body_of(Sphere{Real(0.4)}, {x, Real(0.4), z});
      wheel.mass = 20;
      JointSettings hinge;
      hinge.type = JointType::hinge;
      hinge.body_a = chassis;
      hinge.body_b = world.create_body(wheel);
      hinge.anchor = {x, Real(0.4), z};
      hinge.axis = Vec3::unit_z();
      hinge.motor = Motor{-5, 400};
      world.create_joint(hinge);
    }
  }
  run(world, 300);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 0u);
  EXPECT_NEAR(world.linear_velocity(chassis).x, 2, Real(0.02));
  EXPECT_NEAR(world.position(chassis).y, 1, Real(0.002));
}

// A custom row between the two with a zero Jacobian is degenerate (RowStore::prepare): left out,
// it does not fail the island's direct solve.
TEST(RatioIslands, ADegenerateRowDoesNotFailTheIsland) {
  World world = world_without_sleep();
  world.create_body(ground_box());
  const BodyId light = add_unit_box(world, Real(0.5), 1);
  const BodyId heavy = add_unit_box(world, Real(1.5), 1000);
  world.add_custom_constraint([light, heavy](const World&, Real, RowWriter& rows) {
    ConstraintRow row;
    row.body_a = light;
    row.body_b = heavy;
    row.lo = 0;
    rows.add(row);
  });
  run(world, 600);
  EXPECT_EQ(world.last_step_stats().solve.degenerate_rows, 1u);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 1u);
  EXPECT_NEAR(world.position(heavy).y, Real(1.5), Real(0.001));
}

// Stacks growing heavier towards the top, within twentyfold at each contact: 1, 10 and 100 kg, and
// 1, 5, 25 and 125 kg. The bottom box carries 110 and 155 times its weight, which the sweeps pass
// through it as slowly as a box that heavy: the stacks bounced off the ground and fell within 5 s.
// The load its contact carries marks the island. They stand, each contact sunk to the slop at
// most (the first step's sweeps, before any load is known).
TEST(RatioIslands, ALightBoxCarryingMoreThanTwentyTimesItsWeightMarksItsIsland) {
  for (const std::vector<Real>& masses : {std::vector<Real>{1, 10, 100}, {1, 5, 25, 125}})
    expect_column_stands(masses, SolverType::pgs);
}

// A random chain (scripts/sweep.py chains, seed 9292): a 1 kg capsule held to the post by a
// six_dof's linear limits carries 40 kg of links (a motored hinge, welds, a slider and a limited
// hinge below it), twice the twentyfold load a contact between moving bodies marks its island
// with, but its limits' other side is static. The sweeps alone let the chain pull its joints up to
// 1.2 m apart (0.53 m at the end, the capsule past its limits), where the exact solve (and
// pivoting) holds them; a one-sided row to a static body carrying twenty times its moving body's
// weight marks the island too.
TEST(RatioIslands, ALightBodyHeldByLimitsToTheWorldUnderAHeavyLoadMarksItsIsland) {
  World world = build_world(
      load_scene(std::string(IMPULSE_TEST_DATA_DIR) + "/chain_light_top_on_limits.json"));
  const double start = world.kinetic_energy() + world.potential_energy();
  double most = start;
  Real worst = 0;
  std::size_t islands = 0;
  for (int i = 0; i < 600; ++i) {
    world.step(k_dt);
    most = std::max(most, world.kinetic_energy() + world.potential_energy());
    worst = std::max(worst, world.last_step_stats().max_joint_error);
    islands += world.last_step_stats().solve.ratio_islands_solved;
  }
  EXPECT_GT(islands, 0u);
  EXPECT_LT(worst, Real(0.1));
  EXPECT_LT(world.last_step_stats().max_joint_error, Real(0.01));
  EXPECT_LE(most, start * (1 + 1e-6));
}

// The block solver visits a manifold's rows together but passes a load from manifold to manifold
// as slowly as pgs's sweeps do: each column below sank and was thrown under it, and of 300 random
// standing columns (scripts/sweep.py stacks, seed 1000) 202 toppled. It solves the same islands
// after its iterations (4 toppled, as under pgs).
TEST(RatioIslands, TheBlockSolverSolvesTheSameIslands) {
  for (const std::vector<Real>& masses :
       {std::vector<Real>{1, 1000}, {1, 1, 1, 1, 30}, {1, 10, 100}})
    expect_column_stands(masses, SolverType::block);
}

TEST(RatioIslands, MassesWithinTwentyfoldAreLeftToTheSweeps) {
  World world = world_without_sleep();
  world.create_body(ground_box());
  add_unit_box(world, Real(0.5), 1);
  add_unit_box(world, Real(1.5), 20);
  run(world, 2);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_solved, 0u);
  EXPECT_EQ(world.last_step_stats().solve.ratio_islands_left, 0u);
}

}  // namespace
}  // namespace impulse
