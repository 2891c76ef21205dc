// TaskPool's contract: every task of a loop runs once, and none is still running when run
// returns; a team's member 0 always runs, a worker's member at most once, and none is still
// running when run_team returns (a late worker is left out, not waited for).

#include "core/task_pool.h"
#include "core/phased_work.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace impulse {
namespace {

TEST(TaskPool, RunDoesEveryTaskOnceOnAnyNumberOfThreads) {
  for (const int threads : {1, 2, 3}) {
    TaskPool pool(threads);
    std::vector<std::atomic<int>> runs(1000);
    for (int round = 0; round < 20; ++round)
      pool.run(runs.size(), [&](std::size_t i) { runs[i].fetch_add(1); });
    for (const std::atomic<int>& count : runs)
      EXPECT_EQ(count.load(), 20) << threads << " threads";
  }
}

// Each member starts on its own share and takes what is left of another's from its end: on two
// threads, of the calling thread's half the worker does at most a tail, and of the worker's half
// the calling thread does at most a tail, however the members' speeds differ. Here the worker's
// tasks take 20 times the calling thread's, so the calling thread, done with its own half first,
// takes most of the worker's. Taken from the front, the worker's first tasks went to the calling
// thread whenever it was late, and which core held them changed from loop to loop.
TEST(TaskPool, AMemberTakesWhatIsLeftOfAnothersShareFromItsEnd) {
  // On one core the worker is not held awake and seldom joins before the loop is done.
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two cores";
  TaskPool pool(2);
  const TaskPool::KeepAwake awake(pool);
  constexpr std::size_t k_tasks = 64;
  const std::thread::id caller = std::this_thread::get_id();
  int shared = 0;  // loops in which the calling thread ran some of the worker's half
  for (int loop = 0; loop < 2000 && shared < 20; ++loop) {
    std::array<std::thread::id, k_tasks> by{};
    pool.run(k_tasks, [&](std::size_t i) {
      by[i] = std::this_thread::get_id();
      const auto start = std::chrono::steady_clock::now();
      const auto length = std::chrono::microseconds(by[i] == caller ? 1 : 20);
      while (std::chrono::steady_clock::now() - start < length) {
      }
    });
    // The owner's tasks, then the other's, in each half.
    const auto owner_then_other = [&](std::size_t begin, std::size_t end, bool owner_is_caller) {
      bool other = false;
      for (std::size_t i = begin; i < end; ++i) {
        const bool owners = (by[i] == caller) == owner_is_caller;
        if (owners && other) return false;
        other = other || !owners;
      }
      return true;
    };
    ASSERT_TRUE(owner_then_other(0, k_tasks / 2, true)) << "loop " << loop;
    ASSERT_TRUE(owner_then_other(k_tasks / 2, k_tasks, false)) << "loop " << loop;
    shared += by[k_tasks / 2] != caller && by[k_tasks - 1] == caller ? 1 : 0;
  }
  EXPECT_GT(shared, 0);  // the worker joined in some loops (a busy machine may keep it out)
}

// Runs `loops` loops of 40 tasks, every third after a pause longer than the pool's spin (a
// worker not held awake falls asleep and often wakes once member 0 has claimed every share, when
// a task taken then would be a finished loop's); every task must run once, and none after its
// loop returned.
void expect_each_task_once(TaskPool& pool, int loops) {
  constexpr std::size_t k_tasks = 40;
  std::vector<std::atomic<int>> runs(std::size_t(loops) * k_tasks);
  std::atomic<int> running = 0;
  for (int loop = 0; loop < loops; ++loop) {
    if (loop % 3 == 2) std::this_thread::sleep_for(std::chrono::microseconds(200));
    pool.run(k_tasks, [&](std::size_t i) {
      running.fetch_add(1);
      runs[std::size_t(loop) * k_tasks + i].fetch_add(1);
      running.fetch_sub(1);
    });
    ASSERT_EQ(running.load(), 0) << "a task still ran after run returned, loop " << loop;
  }
  for (const std::atomic<int>& count : runs)
    EXPECT_EQ(count.load(), 1);
}

TEST(TaskPool, NoTaskOfALoopRunsAfterItReturnsEvenWithWorkersWakingLate) {
  TaskPool pool(3);
  expect_each_task_once(pool, 300);
}

// Workers held awake (a step in progress) keep looking between loops instead of sleeping; the
// contract is the same, guards nest, and once the last is gone the workers sleep again and still
// wake for the next loop and for the pool's end.
TEST(TaskPool, WorkersHeldAwakeOrNotRunEveryLoopOnce) {
  TaskPool pool(2);  // no more threads than a 2-core machine's cores: held awake there
  {
    const TaskPool::KeepAwake step(pool);
    expect_each_task_once(pool, 60);
    {
      const TaskPool::KeepAwake nested(pool);
      expect_each_task_once(pool, 60);
    }
    expect_each_task_once(pool, 60);  // still held by the outer guard
  }
  expect_each_task_once(pool, 60);
}

// A stretch (the outermost guard's life) reports a team from the first loop run on the workers
// in it, not before and not from an earlier stretch's; a nested guard starts no new stretch; a
// loop of one task, or any loop on a pool of one thread, runs no team.
TEST(TaskPool, AStretchIsTeamedFromItsFirstLoopOnTheWorkers) {
  const auto loop = [](TaskPool& pool, std::size_t tasks) { pool.run(tasks, [](std::size_t) {}); };
  TaskPool pool(2);
  {
    const TaskPool::KeepAwake step(pool);
    EXPECT_FALSE(pool.teamed_in_stretch());
    loop(pool, 1);
    EXPECT_FALSE(pool.teamed_in_stretch());
    loop(pool, 8);
    EXPECT_TRUE(pool.teamed_in_stretch());
    const TaskPool::KeepAwake nested(pool);
    EXPECT_TRUE(pool.teamed_in_stretch());
  }
  {
    const TaskPool::KeepAwake next_step(pool);
    EXPECT_FALSE(pool.teamed_in_stretch());
  }
  TaskPool single(1);
  const TaskPool::KeepAwake step(single);
  loop(single, 8);
  EXPECT_FALSE(single.teamed_in_stretch());
}

TEST(TaskPool, ATeamReturnsWithEveryMemberThatJoinedDoneAndEveryItemDoneOnce) {
  TaskPool pool(3);
  PhasedWork work;
  constexpr std::size_t k_phases = 4, k_items = 16;
  std::vector<std::atomic<int>> done(k_phases * k_items);
  std::atomic<int> running = 0;
  int teams_joined = 0;
  for (int team = 0; team < 500; ++team) {
    // Every other team after a pause long enough for the workers to fall asleep: they then
    // often wake after member 0 has done everything, and are left out.
    if (team % 2 == 1) std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::array<std::atomic<int>, 3> member_runs{};
    work.reset(k_phases);
    pool.run_team([&](std::size_t m) {
      running.fetch_add(1);
      member_runs[m].fetch_add(1);
      for (std::size_t p = 0; p < k_phases; ++p)
        work.run(p, k_items, [&](std::size_t k) { done[p * k_items + k].fetch_add(1); });
      running.fetch_sub(1);
    });
    EXPECT_EQ(running.load(), 0) << "a member still ran after run_team returned, team " << team;
    EXPECT_EQ(member_runs[0].load(), 1);
    for (std::size_t m = 1; m < 3; ++m) {
      EXPECT_LE(member_runs[m].load(), 1);
      teams_joined += member_runs[m].load();
    }
  }
  for (const std::atomic<int>& count : done)
    EXPECT_EQ(count.load(), 500);
  RecordProperty("worker_members_run", teams_joined);
}

// A phase's single item meant for a member that claims it ahead (PhasedWork::run_single): when
// that member never arrives (a late worker, left out of the team), the member that does arrive
// does the item itself instead of waiting for it; when it has claimed it, only it does the item,
// and the others return once it is done.
TEST(PhasedWork, ASingleItemNobodyClaimedAheadIsDoneByTheFirstToArrive) {
  PhasedWork work;
  work.reset(1);
  int runs = 0;
  work.run_single(0, false, [&] { ++runs; });  // alone, as member 0 of a team nobody joined
  EXPECT_EQ(runs, 1);
}

TEST(PhasedWork, ASingleItemClaimedAheadIsDoneByItsClaimerOnly) {
  for (int round = 0; round < 50; ++round) {
    PhasedWork work;
    work.reset(1);
    ASSERT_TRUE(work.claim_ahead(0));
    std::atomic<int> claimer_runs = 0, other_runs = 0;
    std::atomic<bool> other_returned = false;
    std::thread other([&] {
      work.run_single(0, false, [&] { other_runs.fetch_add(1); });
      other_returned.store(true);
    });
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    EXPECT_FALSE(other_returned.load()) << "returned before the claimed item was done";
    work.run_single(0, true, [&] { claimer_runs.fetch_add(1); });
    other.join();
    EXPECT_EQ(claimer_runs.load(), 1);
    EXPECT_EQ(other_runs.load(), 0);
    EXPECT_FALSE(work.claim_ahead(0));  // taken
  }
}

}  // namespace
}  // namespace impulse
