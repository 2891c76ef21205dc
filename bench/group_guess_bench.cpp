// Time per call of a group's guess (solve_active, solver/group_solve.h) that holds, by the
// number of rows it solves: a pile's boxes rest on a corner, an edge or three corners of a face,
// and these calls were about a tenth of its samples. Four rows in a group, 64 random problems a
// size.

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <random>
#include <vector>

#include "solver/group_solve.h"
#include "solver/random_group.h"

namespace {

using impulse::GroupMatrix;
using impulse::Lanes;

struct Call {
  GroupMatrix a;
  Lanes start, w;
};

void BM_GroupGuess(benchmark::State& state) {
  const auto rows = std::size_t(state.range(0));
  std::mt19937 rng(3);
  std::vector<Call> calls;
  // The first `rows` of four push.
  const std::array<bool, impulse::k_g> pushing = impulse::set_of((1u << rows) - 1);
  while (calls.size() < 64) {
    const impulse::GuessProblem p = impulse::guess_problem(rng, impulse::k_g, pushing);
    calls.push_back({impulse::by_columns(p.a), impulse::lanes_of_vector(p.start),
                     impulse::lanes_of_vector(p.w)});
  }
  std::size_t kept = 0;
  for (auto _ : state) {
    for (const Call& call : calls) {
      Lanes lambda = call.start;
      kept += impulse::solve_active(call.a, impulse::k_g, pushing, lambda, call.w) ? 1 : 0;
      benchmark::DoNotOptimize(lambda);
    }
  }
  if (kept != calls.size() * std::size_t(state.iterations()))
    state.SkipWithError("a guess that holds was refused");
  state.counters["time_per_call"] =
      benchmark::Counter(double(calls.size()) * double(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_GroupGuess)->ArgName("rows")->DenseRange(1, 3);

}  // namespace
