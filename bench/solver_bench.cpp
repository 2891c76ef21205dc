// Nanoseconds per row per iteration of the solvers on 10k rows: a 2D grid of 3000 bodies joined
// to their neighbours by contact-like rows (normal plus two friction rows), as in a large pile.

#include <benchmark/benchmark.h>

#include <random>

#include "constraints/rows.h"
#include "solver/solver.h"

namespace {

using namespace impulse;

struct Problem {
  std::vector<SolverBodyMass> masses;
  std::vector<BodyVelocity> free_velocities;
  RowStore rows;
};

Problem make_problem(std::size_t target_rows) {
  Problem p;
  std::mt19937 rng(42);
  std::uniform_real_distribution<Real> u(-1, 1);
  const int side = 55;     // 3025 bodies, 2 neighbour links each, 3 rows per link: ~18k rows max
  p.masses.push_back({});  // the world
  p.free_velocities.push_back({});
  for (int i = 0; i < side * side; ++i) {
    p.masses.push_back({1, Mat33::diagonal(Vec3::splat(6))});
    p.free_velocities.push_back({{u(rng), u(rng) - 1, u(rng)}, {u(rng), u(rng), u(rng)}});
  }
  auto body = [side](int x, int y) { return std::uint32_t(1 + y * side + x); };
  for (int y = 0; y < side && p.rows.size() < target_rows; ++y) {
    for (int x = 0; x < side && p.rows.size() < target_rows; ++x) {
      for (const auto& [dx, dy] : {std::pair{1, 0}, std::pair{0, 1}}) {
        if (x + dx >= side || y + dy >= side || p.rows.size() + 3 > target_rows) continue;
        const Vec3 n = normalize(Vec3{Real(dx), Real(dy), Real(0.1) * u(rng)});
        Vec3 t1, t2;
        orthonormal_basis(n, t1, t2);
        const Vec3 r{Real(0.5) * u(rng), Real(0.5) * u(rng), Real(0.5) * u(rng)};
        RowSpec normal;
        normal.body_a = body(x + dx, y + dy);
        normal.body_b = body(x, y);
        normal.j_lin_a = n;
        normal.j_ang_a = cross(r, n);
        normal.j_lin_b = -n;
        normal.j_ang_b = -cross(-r, n);
        normal.lo = 0;
        normal.bias = Real(0.01);
        const auto n_index = std::int32_t(p.rows.add(normal));
        for (const Vec3& t : {t1, t2}) {
          RowSpec friction = normal;
          friction.j_lin_a = t;
          friction.j_ang_a = cross(r, t);
          friction.j_lin_b = -t;
          friction.j_ang_b = -cross(-r, t);
          friction.lo = -k_infinity;
          friction.bias = 0;
          friction.normal_row = n_index;
          friction.mu = Real(0.5);
          p.rows.add(friction);
        }
      }
    }
  }
  p.rows.prepare(p.masses);
  return p;
}

void BM_SolverPerRowIteration(benchmark::State& state, SolverType type) {
  const Problem problem = make_problem(10000);
  SolverSettings settings;
  settings.iterations = 10;
  settings.warm_start = false;
  auto solver = make_solver(type);
  SolveStats stats;
  for (auto _ : state) {
    state.PauseTiming();
    RowStore rows = problem.rows;
    std::vector<BodyVelocity> velocities = problem.free_velocities;
    state.ResumeTiming();
    solver->solve(rows, {velocities, problem.masses}, settings, stats);
    benchmark::DoNotOptimize(velocities.data());
  }
  const double row_iterations = double(problem.rows.size()) * settings.iterations;
  state.counters["time_per_row_iteration"] =
      benchmark::Counter(row_iterations * double(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["rows"] = double(problem.rows.size());
}

BENCHMARK_CAPTURE(BM_SolverPerRowIteration, pgs, SolverType::pgs)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SolverPerRowIteration, global_sparse, SolverType::global_sparse)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SolverPerRowIteration, jacobi, SolverType::jacobi)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SolverPerRowIteration, block, SolverType::block)
    ->Unit(benchmark::kMillisecond);

}  // namespace
