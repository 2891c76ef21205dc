// Every built-in scene builds, steps and gains no energy: nothing explodes, nothing goes NaN. Three
// scenes are meant to gain energy and are checked for that only as far as it is bounded: the
// catapult's motor and the drum's kinematic wall do work, and `impossible` holds constraints that
// cannot all be met, so their Baumgarte feedback keeps pushing
// (tests/scene/joint_scenes_test.cpp bounds it over 10k steps).

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <cmath>

namespace impulse {
namespace {

TEST(BuiltinScenes, EveryOneStepsForASecondWithoutGainingEnergy) {
  for (const std::string& name : builtin_scene_names()) {
    SCOPED_TRACE(name);
    World world = build_world(*builtin_scene(name), name);
    const double start = world.kinetic_energy() + world.potential_energy();
    // A second of the scene's own time, at most 60 steps (the seed 001 scenes step 0.5).
    const int steps = std::min(60, int(std::ceil(1 / world.settings().timestep)));
    for (int i = 0; i < steps; ++i)
      world.step(world.settings().timestep);
    const double end = world.kinetic_energy() + world.potential_energy();
    ASSERT_TRUE(std::isfinite(end));
    for (const BodyId id : world.bodies()) {
      ASSERT_TRUE(is_finite(world.position(id))) << world.name(id);
      ASSERT_TRUE(is_finite(world.linear_velocity(id))) << world.name(id);
    }
    if (name == "catapult" || name == "impossible" || name == "drum") continue;
    // Contacts and friction only take energy out (speculative contacts add none; the bodies
    // start without overlap, so Baumgarte has nothing to push out but the slop it allows).
    EXPECT_LE(end, start + 1e-3 * std::abs(start) + 1)
        << "from " << start << " J to " << end << " J";
  }
}

}  // namespace
}  // namespace impulse
