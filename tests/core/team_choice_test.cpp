// TeamChoice's rule: on the team while the world settles, then trials of blocks (the other mode's
// first and last, the chosen mode's between), each block's first step left out, the faster mode
// kept only by a clear margin, and the hold between trials doubling while the trials confirm the
// choice by that margin.

#include "core/team_choice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace impulse {
namespace {

constexpr std::size_t k_trial_steps = TeamChoice::k_block_steps * TeamChoice::k_trial_blocks;

// Steps `steps` times, each taking team_ms on the team and alone_ms alone; returns the modes
// (true: team) the steps ran in.
template <class TeamMs, class AloneMs>
std::vector<bool> run(TeamChoice& choice, std::size_t steps, TeamMs team_ms, AloneMs alone_ms) {
  std::vector<bool> modes;
  for (std::size_t i = 0; i < steps; ++i) {
    const bool team = choice.team();
    modes.push_back(team);
    choice.record(team ? team_ms(i) : alone_ms(i));
  }
  return modes;
}

std::vector<bool> run(TeamChoice& choice, std::size_t steps, double team_ms, double alone_ms) {
  return run(
      choice, steps, [=](std::size_t) { return team_ms; }, [=](std::size_t) { return alone_ms; });
}

// Whether step i of a run from a fresh choice that kept the team at its first trial is on the team.
bool on_team_in_first_trial(std::size_t i) {
  if (i < TeamChoice::k_settle_steps) return true;
  const std::size_t block = (i - TeamChoice::k_settle_steps) / TeamChoice::k_block_steps;
  return block == 1 || block == 2;
}

TEST(TeamChoice, SettlesOnTheTeamThenTriesBlocksAloneFirstAndLast) {
  TeamChoice choice;
  const std::vector<bool> modes = run(choice, TeamChoice::k_settle_steps + k_trial_steps, 1.0, 1.0);
  for (std::size_t i = 0; i < modes.size(); ++i)
    EXPECT_EQ(modes[i], on_team_in_first_trial(i)) << "step " << i;
  EXPECT_TRUE(choice.team());  // equal times: the team, as asked
  EXPECT_EQ(choice.hold(), TeamChoice::k_first_hold);
}

TEST(TeamChoice, TakesTheCallingThreadAloneWhenItIsClearlyFaster) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps + k_trial_steps, 1.0, 0.9);
  EXPECT_FALSE(choice.team());
  EXPECT_EQ(choice.hold(), TeamChoice::k_first_hold);
  // Held alone until the next trial, whose first block is the team's.
  const std::vector<bool> held = run(choice, TeamChoice::k_first_hold + 1, 1.0, 0.9);
  EXPECT_EQ(std::count(held.begin(), held.end(), true), 1);
  EXPECT_TRUE(held.back());
}

TEST(TeamChoice, KeepsTheTeamWhenAloneIsNotFasterByMoreThanTheMargin) {
  for (const double alone : {1.0 - TeamChoice::k_margin / 2, 1.0 - TeamChoice::k_margin}) {
    TeamChoice choice;
    run(choice, TeamChoice::k_settle_steps + k_trial_steps, 1.0, alone);
    EXPECT_TRUE(choice.team()) << "alone " << alone;
  }
}

// A block's first step pays for the switch (the data moving to the other core's cache): left out,
// slow first steps do not decide the trial. The other samples' median (0.85, the mean of the
// middle two) is clearly shorter than the team's; with the first steps counted in any place, or
// the upper middle sample taken, it would be 1.2.
TEST(TeamChoice, LeavesOutEachBlocksFirstStep) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps, 1.0, 1.0);
  const auto alone_ms = [](std::size_t i) {
    if (i % TeamChoice::k_block_steps == 0) return 100.0;
    return i < TeamChoice::k_block_steps ? 0.5 : 1.2;  // the first block's, then the last's
  };
  run(
      choice, k_trial_steps, [](std::size_t) { return 1.0; }, alone_ms);
  EXPECT_FALSE(choice.team());
}

// One slow step among a mode's samples (another process took the core) does not decide either.
TEST(TeamChoice, OneSlowStepDoesNotDecide) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps, 1.0, 1.0);
  const auto alone_ms = [](std::size_t i) { return i == 2 ? 50.0 : 0.5; };
  run(
      choice, k_trial_steps, [](std::size_t) { return 1.0; }, alone_ms);
  EXPECT_FALSE(choice.team());
}

// Steps that grow longer step by step (a pile landing), alike in both modes: the trial's order
// weighs the growth on both, and the team is kept.
TEST(TeamChoice, AStepTimeThatGrowsThroughATrialFavoursNeitherMode) {
  TeamChoice choice;
  const auto growing = [](std::size_t i) { return 1.0 + 0.02 * double(i); };
  run(choice, TeamChoice::k_settle_steps + k_trial_steps, growing, growing);
  EXPECT_TRUE(choice.team());
  EXPECT_EQ(choice.hold(), TeamChoice::k_first_hold);
}

TEST(TeamChoice, HoldsTwiceAsLongEachTimeATrialConfirmsTheChoice) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps, 1.0, 2.0);
  std::vector<std::size_t> holds;
  for (int trial = 0; trial < 6; ++trial) {
    run(choice, k_trial_steps, 1.0, 2.0);
    holds.push_back(choice.hold());
    const std::vector<bool> held = run(choice, choice.hold(), 1.0, 2.0);
    EXPECT_EQ(std::count(held.begin(), held.end(), true), std::ptrdiff_t(held.size()));
  }
  EXPECT_EQ(holds, (std::vector<std::size_t>{64, 128, 256, 512, 1024, 1024}));
}

// A trial whose modes differ by less than the margin either way keeps the choice but not for
// longer: the next trial comes after a first hold again, and one that then finds the other mode
// clearly faster takes it within that hold. Counted as confirmations, the two undecided trials
// would have doubled the hold (256, then 512 steps), and the calling thread alone would still be
// chosen where the team has been 14% faster for a first hold and a trial.
TEST(TeamChoice, ATrialThatCannotTellTheModesApartTriesAgainAfterAFirstHold) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps + k_trial_steps, 1.0, 0.5);  // alone
  run(choice, choice.hold() + k_trial_steps, 1.0, 0.5);               // confirmed alone
  ASSERT_EQ(choice.hold(), 2 * TeamChoice::k_first_hold);
  for (const double team : {1.0 - TeamChoice::k_margin / 2, 1.0 + TeamChoice::k_margin / 2}) {
    run(choice, choice.hold() + k_trial_steps, team, 1.0);
    EXPECT_FALSE(choice.team()) << "team " << team;
    EXPECT_EQ(choice.hold(), TeamChoice::k_first_hold) << "team " << team;
  }
  run(choice, TeamChoice::k_first_hold + k_trial_steps, 0.86, 1.0);
  EXPECT_TRUE(choice.team());
}

// A scene whose work grows (a pile landing) comes back to the team at the next trial, and the
// hold starts short again.
TEST(TeamChoice, ComesBackToTheTeamWhenItPaysAgain) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps, 1.0, 1.0);
  run(choice, k_trial_steps, 1.0, 0.5);
  ASSERT_FALSE(choice.team());
  run(choice, choice.hold() + k_trial_steps, 1.0, 0.5);  // confirmed alone
  ASSERT_EQ(choice.hold(), 2 * TeamChoice::k_first_hold);
  run(choice, choice.hold() + k_trial_steps, 1.0, 2.0);
  EXPECT_TRUE(choice.team());
  EXPECT_EQ(choice.hold(), TeamChoice::k_first_hold);
}

TEST(TeamChoice, ResetStartsOverOnTheTeam) {
  TeamChoice choice;
  run(choice, TeamChoice::k_settle_steps + k_trial_steps, 1.0, 0.5);
  ASSERT_FALSE(choice.team());
  choice.reset();
  const std::vector<bool> modes = run(choice, TeamChoice::k_settle_steps, 1.0, 0.5);
  EXPECT_EQ(std::count(modes.begin(), modes.end(), true), std::ptrdiff_t(modes.size()));
  EXPECT_EQ(choice.hold(), 0u);
}

}  // namespace
}  // namespace impulse
