// How a world uses its threads (World::set_thread_use): measured, its steps run on the team or on
// the calling thread alone as TeamChoice's trials go, which StepStats::threads reports, and the
// bits are one thread's either way; always, every step runs on the team.

#include <impulse/scene.h>
#include <impulse/world.h>

#include "core/team_choice.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "support/scenes.h"

namespace impulse {
namespace {

constexpr std::size_t k_first_trial_end =
    TeamChoice::k_settle_steps + TeamChoice::k_block_steps * TeamChoice::k_trial_blocks;

// A world, awake, on `threads` threads used as `use`; returns each step's StepStats::threads over
// `steps` steps.
std::vector<int> step_awake(World& world, int threads, ThreadUse use, std::size_t steps) {
  WorldSettings settings = world.settings();
  settings.sleeping = false;
  world.set_settings(settings);
  world.set_threads(threads);
  world.set_thread_use(use);
  std::vector<int> used;
  for (std::size_t i = 0; i < steps; ++i) {
    world.step(settings.timestep);
    used.push_back(world.last_step_stats().threads);
  }
  return used;
}

// The first trial's blocks come at the same steps whatever the steps measure: alone first and last.
// The pyramid shares every stage on two threads: the bits hold across the changes of mode.
TEST(ThreadUse, MeasuredTriesBlocksAloneAfterSettlingAndKeepsTheBits) {
  World one = testing::world_of("pyramid"), two = testing::world_of("pyramid");
  step_awake(one, 1, ThreadUse::measured, k_first_trial_end);
  const std::vector<int> used = step_awake(two, 2, ThreadUse::measured, k_first_trial_end);
  for (std::size_t i = 0; i < used.size(); ++i) {
    const bool settling = i < TeamChoice::k_settle_steps;
    const std::size_t block = (i - TeamChoice::k_settle_steps) / TeamChoice::k_block_steps;
    EXPECT_EQ(used[i], settling || block == 1 || block == 2 ? 2 : 1) << "step " << i;
  }
  EXPECT_EQ(one.state_hash(), two.state_hash());
}

TEST(ThreadUse, AlwaysRunsEveryStepOnTheThreads) {
  World world = testing::world_of("seed001-stack10");
  EXPECT_EQ(world.thread_use(), ThreadUse::measured);  // the default
  const std::vector<int> used = step_awake(world, 2, ThreadUse::always, k_first_trial_end);
  EXPECT_EQ(used, std::vector<int>(k_first_trial_end, 2));
}

TEST(ThreadUse, OneThreadRunsAlone) {
  World world = testing::world_of("seed001-stack10");
  const std::vector<int> used = step_awake(world, 1, ThreadUse::always, 3);
  EXPECT_EQ(used, std::vector<int>(3, 1));
}

// A new count starts the choice over, on the team.
TEST(ThreadUse, ANewThreadCountSettlesOnTheTeamAgain) {
  World world = testing::world_of("seed001-stack10");
  step_awake(world, 2, ThreadUse::measured, TeamChoice::k_settle_steps + 1);
  ASSERT_EQ(world.last_step_stats().threads, 1);  // the first trial's first block
  const std::vector<int> used = step_awake(world, 3, ThreadUse::measured, 2);
  EXPECT_EQ(used, std::vector<int>(2, 3));
}

// The threads are the world's, not its state's: so are their use and what its steps measured (a
// restored world goes on with its trial, not from a snapshot's settling).
TEST(ThreadUse, RestoreKeepsTheWorldsUseAndChoice) {
  World world = testing::world_of("seed001-stack10");
  world.set_threads(2);
  const WorldSnapshot snapshot = world.snapshot();
  step_awake(world, 2, ThreadUse::always, 1);
  const WorldSnapshot taken_always = world.snapshot();  // taken while the use was always
  world.set_thread_use(ThreadUse::measured);
  world.restore(taken_always);
  EXPECT_EQ(world.thread_use(), ThreadUse::measured);
  step_awake(world, 2, ThreadUse::measured, TeamChoice::k_settle_steps + 1);
  ASSERT_EQ(world.last_step_stats().threads, 1);  // the first trial's first block
  world.restore(snapshot);
  EXPECT_EQ(step_awake(world, 2, ThreadUse::measured, 1), std::vector<int>{1});
}

// A change of use starts the choice over, on the team.
TEST(ThreadUse, ANewUseSettlesOnTheTeamAgain) {
  World world = testing::world_of("seed001-stack10");
  step_awake(world, 2, ThreadUse::measured, TeamChoice::k_settle_steps + 1);
  ASSERT_EQ(world.last_step_stats().threads, 1);
  world.set_thread_use(ThreadUse::always);
  EXPECT_EQ(step_awake(world, 2, ThreadUse::measured, 2), std::vector<int>(2, 2));
}

}  // namespace
}  // namespace impulse
