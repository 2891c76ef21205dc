// Nanoseconds per polyhedron-polyhedron manifold (separating axis test with Gauss-map pruning,
// clipping and reduction) for two 32-point hulls: 16-sided prisms resting cap on cap, the same
// turned 11.25 degrees so that the caps clip to a 32-gon, and two 32-point round hulls (random
// points on a sphere) touching; and a box against its own hull through collide_polyhedra, to
// compare with box_box_bench.cpp.

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "collision/convex_hull.h"
#include "collision/polyhedron.h"

namespace {

using namespace impulse;

std::vector<Vec3> prism(int sides, Real r, Real h) {
  std::vector<Vec3> points;
  for (int i = 0; i < sides; ++i) {
    const Real angle = 2 * k_pi * Real(i) / Real(sides);
    points.push_back({r * std::cos(angle), -h, r * std::sin(angle)});
    points.push_back({r * std::cos(angle), h, r * std::sin(angle)});
  }
  return points;
}

std::vector<Vec3> round_cloud(int count) {
  std::mt19937 rng(1);
  std::normal_distribution<Real> normal;
  std::vector<Vec3> points;
  for (int i = 0; i < count; ++i) {
    points.push_back(Real(0.5) * normalize(Vec3{normal(rng), normal(rng), normal(rng)}));
  }
  return points;
}

void run(benchmark::State& state, const PolyhedronView& a, const Transform& ta,
         const PolyhedronView& b, const Transform& tb) {
  Manifold m;
  for (auto _ : state) {
    benchmark::DoNotOptimize(collide_polyhedra(a, ta, b, tb, Real(0.02), m));
    benchmark::DoNotOptimize(m);
  }
  state.counters["points"] = m.count;
}

void BM_HullHullFaceResting(benchmark::State& state) {
  const HullData hull = build_convex_hull(prism(16, Real(0.5), Real(0.5)));
  run(state, hull.view(), {}, hull.view(), {{Real(0.1), Real(0.99), 0}, {}});
}
BENCHMARK(BM_HullHullFaceResting);

void BM_HullHullFaceRotated(benchmark::State& state) {
  const HullData hull = build_convex_hull(prism(16, Real(0.5), Real(0.5)));
  const Quat turn = Quat::from_axis_angle({0, 1, 0}, k_pi / 16);
  run(state, hull.view(), {}, hull.view(), {{0, Real(0.99), 0}, turn});
}
BENCHMARK(BM_HullHullFaceRotated);

void BM_HullHullRoundTouching(benchmark::State& state) {
  const HullData hull = build_convex_hull(round_cloud(32));
  const Quat turn = Quat::from_axis_angle(normalize(Vec3{1, 2, 3}), Real(0.7));
  run(state, hull.view(), {}, hull.view(), {{Real(0.2), Real(0.85), Real(-0.1)}, turn});
}
BENCHMARK(BM_HullHullRoundTouching);

void BM_BoxPolyhedronFaceResting(benchmark::State& state) {
  const BoxPolyhedron ground(Box{{5, Real(0.5), 5}});
  const BoxPolyhedron cube(Box{});
  run(state, ground.view(), {}, cube.view(), {{Real(0.3), Real(0.99), Real(-0.2)}, {}});
}
BENCHMARK(BM_BoxPolyhedronFaceResting);

}  // namespace
