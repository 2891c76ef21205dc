// Nanoseconds per unit and sweep of pgs's batched sweeps (solver/unit_batches.h) on one thread:
// 48 columns of ten boxes whose contact manifolds (four points, every third column two) are
// visited four at a time, solved again and again on the layout they keep. The peers' whole steps
// vary by a few percent from run to run; this times the sweeps and their packing alone.

#include <benchmark/benchmark.h>

#include <limits>

#include "solver/manifold_rows.h"
#include "solver/pgs_solver.h"

namespace {

using impulse::PgsSolver;
using impulse::SolverSettings;
using impulse::SolveStats;
using impulse::testing::RowProblem;

void BM_BatchedSweeps(benchmark::State& state) {
  const bool compact = state.range(0) != 0;
  const bool patch = state.range(1) != 0;
  const RowProblem problem = impulse::testing::columns(48, 10, patch);
  PgsSolver solver;
  solver.set_compact_batches_above(compact ? 0 : std::numeric_limits<std::size_t>::max());
  SolverSettings settings;
  settings.iterations = 10;
  SolveStats stats;
  // The first solve finds the structure and builds the batches; the second keeps them.
  for (int k = 0; k < 2; ++k) {
    RowProblem p = problem;
    solver.solve(p.rows, p.bodies(), settings, stats);
  }
  if (!solver.batches().built() || stats.units_batched == 0) {
    state.SkipWithError("no batches built");
    return;
  }
  for (auto _ : state) {
    state.PauseTiming();
    RowProblem p = problem;
    state.ResumeTiming();
    solver.solve(p.rows, p.bodies(), settings, stats);
    benchmark::DoNotOptimize(p.velocities.data());
  }
  const double unit_sweeps = double(solver.batches().units()) * settings.iterations;
  state.counters["time_per_batched_unit_sweep"] =
      benchmark::Counter(unit_sweeps * double(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["units_batched"] = double(stats.units_batched);
  state.counters["batches"] = double(solver.batches().batch_count());
}

BENCHMARK(BM_BatchedSweeps)
    ->ArgNames({"compact", "patch"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
