// The stacking and material scenes against the contacts issue's acceptance: stacks that stay up
// (seed 001 table 1 and section 9.2), the tower standing, friction on the incline, and energy at
// rest.

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "scene/builtin/builtin_scenes.h"

#include "support/scenes.h"

namespace impulse {
namespace {

using testing::world_of;

std::vector<BodyId> dynamic_bodies(const World& world) {
  std::vector<BodyId> ids;
  for (const BodyId id : world.bodies()) {
    if (world.type(id) == BodyType::dynamic_body) ids.push_back(id);
  }
  return ids;
}

std::vector<Vec3> positions(const World& world, const std::vector<BodyId>& ids) {
  std::vector<Vec3> out;
  for (const BodyId id : ids)
    out.push_back(world.position(id));
  return out;
}

void run(World& world, int steps) {
  for (int i = 0; i < steps; ++i)
    world.step(world.settings().timestep);
}

// The largest horizontal move of any of the bodies (m) since start.
Real largest_horizontal_move(const World& world, const std::vector<BodyId>& ids,
                             const std::vector<Vec3>& start) {
  Real largest = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const Vec3 d = world.position(ids[k]) - start[k];
    largest = std::max(largest, std::hypot(d.x, d.z));
  }
  return largest;
}

// The contacts issue's drift measure: sleeping off, dt 1/60, 10 iterations, 10 s; the largest
// horizontal move of any box.
Real drift_over_ten_seconds(const std::string& name) {
  Scene scene = *builtin_scene(name);
  scene.settings.sleeping = false;
  World world = build_world(scene, name);
  const std::vector<BodyId> boxes = dynamic_bodies(world);
  const std::vector<Vec3> start = positions(world, boxes);
  run(world, 600);
  return largest_horizontal_move(world, boxes, start);
}

TEST(StackingScenes, Seed001TenStackWithCachingComesToRestAndStays) {
  World world = world_of("seed001-stack10");
  const std::vector<BodyId> boxes = dynamic_bodies(world);
  run(world, 1000);
  std::vector<Vec3> last = positions(world, boxes);
  Real worst = 0;
  for (int i = 1000; i < 3000; ++i) {
    world.step(world.settings().timestep);
    const std::vector<Vec3> now = positions(world, boxes);
    for (std::size_t k = 0; k < now.size(); ++k)
      worst = std::max(worst, length(now[k] - last[k]));
    last = now;
  }
  EXPECT_LT(worst, Real(0.01 * 200));  // 1% of the box's width per step
  // And it is still a column: each box above the one below.
  for (std::size_t k = 0; k < boxes.size(); ++k)
    EXPECT_NEAR(world.position(boxes[k]).y, Real(50 + 100 * k), Real(10)) << "box " << k;
}

// Whether the top box of a two-box stack is still on the bottom one after 3000 steps.
bool two_stack_stands(Real density_ratio, bool light_at_bottom) {
  World world = build_world(builtin::seed001_mass_ratio(density_ratio, light_at_bottom));
  const std::vector<BodyId> boxes = dynamic_bodies(world);
  run(world, 3000);
  const Vec3 bottom = world.position(boxes[0]), top = world.position(boxes[1]);
  return std::abs(top.x - bottom.x) < 20 && std::abs(top.z - bottom.z) < 20 &&
         top.y - bottom.y > 95 && bottom.y > 45;
}

// The density ratios tried: seed 001 stood down to 3% heavy on light; below 5% pgs solves the pair
// exactly (solver/ratio_islands.h), which 3000 steps of a Debug build make slow (100 s), so it
// tries those in optimised builds only.
std::vector<Real> seed001_ratios() {
  if (!testing::k_optimised) return {Real(1), Real(0.3), Real(0.1)};
  return {Real(1), Real(0.3), Real(0.1), Real(0.03), Real(0.01), Real(0.001)};
}

TEST(StackingScenes, Seed001HeavyOnLightStandsDownToATenthOfAPercent) {
  for (const Real ratio : seed001_ratios())
    EXPECT_TRUE(two_stack_stands(ratio, true)) << "density ratio " << ratio;
}

TEST(StackingScenes, Seed001LightOnHeavyStandsDownToATenthOfAPercent) {
  for (const Real ratio : seed001_ratios())
    EXPECT_TRUE(two_stack_stands(ratio, false)) << "density ratio " << ratio;
}

// Jolt drifts 25 mm and 38 mm on these (the figures, measured on this kind of machine);
// Impulse must drift less. Measured here: 7.9 mm and 13.7 mm (14.6 for the baseline set;
// docs/results.md).
TEST(StackingScenes, PyramidDriftsLessThanJoltOverTenSeconds) {
  SKIP_UNLESS_OPTIMISED();
  EXPECT_LT(drift_over_ten_seconds("pyramid"), Real(0.025));
}

TEST(StackingScenes, Tower700DriftsLessThanJoltOverTenSeconds) {
  SKIP_UNLESS_OPTIMISED();
  EXPECT_LT(drift_over_ten_seconds("tower700"), Real(0.038));
}

TEST(StackingScenes, PyramidHoldsWithinACentimetreAndSleepsWithinAMinute) {
  SKIP_UNLESS_OPTIMISED();
  World world = world_of("pyramid");
  const std::vector<BodyId> boxes = dynamic_bodies(world);
  const std::vector<Vec3> start = positions(world, boxes);
  run(world, 3600);
  EXPECT_LT(largest_horizontal_move(world, boxes, start), Real(0.01));
  for (const BodyId id : boxes)
    EXPECT_TRUE(world.is_asleep(id)) << world.name(id);
}

TEST(StackingScenes, Tower700StandsForThirtySeconds) {
  SKIP_UNLESS_OPTIMISED();
  World world = world_of("tower700");
  const std::vector<BodyId> boxes = dynamic_bodies(world);
  const std::vector<Vec3> start = positions(world, boxes);
  run(world, 1800);
  const std::vector<Vec3> end = positions(world, boxes);
  for (std::size_t k = 0; k < boxes.size(); ++k)
    EXPECT_GT(end[k].y, start[k].y - Real(0.5)) << world.name(boxes[k]);
}

TEST(StackingScenes, InclineHoldsWithHighFrictionAndSlidesAtTheCoulombRateWithLow) {
  World world = world_of("incline");
  const BodyId sticky = *world.find_body("box-mu0.7");
  const BodyId slippery = *world.find_body("box-mu0.3");
  run(world, 60);  // settle onto the slope
  const Vec3 held = world.position(sticky);
  const Vec3 v0 = world.linear_velocity(slippery);
  run(world, 120);  // 2 s: the slippery box stays on its 40 m slope
  const Quat tilt = Quat::from_axis_angle({0, 0, 1}, k_pi / 6);
  const Vec3 down = rotate(tilt, {-1, 0, 0});
  const Real expected = Real(9.81) * (Real(0.5) - Real(0.3) * std::sqrt(Real(3)) / 2);
  const Real measured = dot(world.linear_velocity(slippery) - v0, down) / Real(2);
  EXPECT_NEAR(measured, expected, expected * Real(0.02));
  run(world, 180);  // 5 s in all
  EXPECT_LT(length(world.position(sticky) - held), Real(0.001));
}

// The drum turning at 2 rad/s for 20 s: its boxes, thrown against each other, tipped over each
// other's edges and sliding over each other's turning faces, stay out of each other. Over steps
// 120-1200, 139 of their contact points sank past 10 mm (the deepest 68 mm) when an edge pair's
// axis gave one point and the rows did not reckon a face's turn; 11 then. The tumbling is chaotic
// (one run's count is one draw: 3-44 over ten starts nudged by 10 um), so the bound holds the
// sum over the scene as built and two nudged starts (21, 11 and 19 now).
TEST(StackingScenes, DrumKeepsItsTumblingBoxesOutOfEachOther) {
  int deep = 0;
  for (unsigned start = 0; start < 3; ++start) {
    Scene scene = *builtin_scene("drum");
    std::mt19937 rng(start);
    std::uniform_real_distribution<float> nudge(Real(-1e-5), Real(1e-5));
    for (BodySettings& body : scene.bodies) {
      if (start > 0 && body.type == BodyType::dynamic_body)
        body.position += Vec3{nudge(rng), nudge(rng), nudge(rng)};
    }
    World world = build_world(scene, "drum");
    std::vector<BodyId> boxes;
    for (int i = 1; i < 40; i += 3)
      boxes.push_back(*world.find_body("body" + std::to_string(i)));
    const auto is_box = [&](BodyId id) {
      return std::find(boxes.begin(), boxes.end(), id) != boxes.end();
    };
    run(world, 120);
    for (int i = 0; i < 1080; ++i) {
      world.step(world.settings().timestep);
      for (const DebugContact& c : world.debug_contacts())
        deep += is_box(c.body_a) && is_box(c.body_b) && c.depth > Real(0.01);
    }
  }
  EXPECT_LE(deep, 3 * 40);
}

TEST(StackingScenes, RestingSceneNeverGainsEnergy) {
  World world = world_of("seed001-stack10");
  run(world, 1000);
  for (int i = 0; i < 500; ++i) {
    world.step(world.settings().timestep);
    EXPECT_LT(world.kinetic_energy(), 1e-6 * std::abs(world.potential_energy())) << "step " << i;
  }
}

}  // namespace
}  // namespace impulse
