// What sharing work between two cores costs on this host, in nanoseconds: a cache line handed to
// the other core and back, and what the calling thread pays for a team of the task pool and for a
// run of two chunks (a worker that arrives after the work is done is left out, so these are the
// least a parallel loop costs). Every line one core wrote and the other reads next pays half a
// round trip; docs/performance.md reads two-thread figures against the host's round trip.

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "core/spin_wait.h"
#include "core/task_pool.h"

namespace {

using namespace impulse;

// One line, written by each thread in turn: a round trip is two transfers of its ownership.
void BM_CrossCoreLineRoundTrip(benchmark::State& state) {
  alignas(64) std::atomic<std::uint64_t> turn = 0;
  std::atomic<bool> stop = false;
  std::thread other([&] {
    for (std::uint64_t seen = 1; !stop.load(std::memory_order_relaxed); seen += 2) {
      while (turn.load(std::memory_order_acquire) != seen) {
        if (stop.load(std::memory_order_relaxed)) return;
        relax();
      }
      turn.store(seen + 1, std::memory_order_release);
    }
  });
  std::uint64_t next = 1;
  for (auto _ : state) {
    turn.store(next, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != next + 1)
      relax();
    next += 2;
  }
  stop = true;
  other.join();
}
BENCHMARK(BM_CrossCoreLineRoundTrip)->UseRealTime();

// A team whose members do nothing, with the workers held awake as within a step.
void BM_EmptyTeam(benchmark::State& state) {
  TaskPool pool(2);
  const TaskPool::KeepAwake awake(pool);
  for (auto _ : state)
    pool.run_team([](std::size_t) {});
}
BENCHMARK(BM_EmptyTeam)->UseRealTime();

// Two chunks that each write a counter of their own: a team and the claims of its shares.
void BM_TwoChunks(benchmark::State& state) {
  TaskPool pool(2);
  const TaskPool::KeepAwake awake(pool);
  struct alignas(64) Counter {
    std::uint64_t value = 0;
  };
  Counter counters[2];
  for (auto _ : state)
    pool.run(2, [&](std::size_t chunk) { ++counters[chunk].value; });
  benchmark::DoNotOptimize(counters[0].value + counters[1].value);
}
BENCHMARK(BM_TwoChunks)->UseRealTime();

}  // namespace
