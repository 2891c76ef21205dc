// Nanoseconds per box-box manifold (separating axis test, clipping and reduction) for a box
// resting flat on a larger one, a box turned on another so its face is clipped to an octagon and
// reduced, and two boxes touching edge to edge; and per pair of a tumbling pile's neighbours,
// most of them apart (their boxes' bounds overlap but a separating axis exists).

#include <benchmark/benchmark.h>

#include "collision/box_box.h"

#include <random>
#include <vector>

namespace {

using namespace impulse;

void run(benchmark::State& state, const Box& a, const Transform& ta, const Box& b,
         const Transform& tb) {
  Manifold m;
  for (auto _ : state) {
    benchmark::DoNotOptimize(collide_box_box(a, ta, b, tb, Real(0.02), m));
    benchmark::DoNotOptimize(m);
  }
}

void BM_BoxBoxFaceResting(benchmark::State& state) {
  run(state, Box{{5, Real(0.5), 5}}, {}, Box{}, {{Real(0.3), Real(0.99), Real(-0.2)}, {}});
}
BENCHMARK(BM_BoxBoxFaceResting);

void BM_BoxBoxFaceRotated(benchmark::State& state) {
  const Box slab{{1, Real(0.5), 1}};
  const Quat turn = Quat::from_axis_angle({0, 1, 0}, k_pi / 4);
  run(state, slab, {}, slab, {{0, Real(0.9), 0}, turn});
}
BENCHMARK(BM_BoxBoxFaceRotated);

void BM_BoxBoxEdgeEdge(benchmark::State& state) {
  const Real r = std::sqrt(Real(0.5));
  const Quat qa = Quat::from_axis_angle({0, 0, 1}, k_pi / 4);
  const Quat qb = Quat::from_axis_angle({1, 0, 0}, k_pi / 4);
  run(state, Box{}, {{}, qa}, Box{}, {{0, 2 * r - Real(0.01), 0}, qb});
}
BENCHMARK(BM_BoxBoxEdgeEdge);

// Unit boxes turned at random, their centres 0.9 to 1.9 m apart in random directions: what a
// pile's broadphase hands the narrowphase. The same 256 pairs in turn.
void BM_BoxBoxPileNeighbours(benchmark::State& state) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<Real> unit(-1, 1), distance(Real(0.9), Real(1.9));
  const auto direction = [&] {
    for (;;) {
      const Vec3 v{unit(rng), unit(rng), unit(rng)};
      if (length_squared(v) > Real(0.01) && length_squared(v) <= 1) return normalize(v);
    }
  };
  const auto turn = [&] { return Quat::from_axis_angle(direction(), k_pi * unit(rng)); };
  struct Pair {
    Transform a, b;
  };
  std::vector<Pair> pairs;
  for (int k = 0; k < 256; ++k)
    pairs.push_back({{{}, turn()}, {direction() * distance(rng), turn()}});
  const Box box;
  Manifold m;
  std::size_t k = 0, touching = 0;
  for (auto _ : state) {
    const Pair& p = pairs[k++ % pairs.size()];
    touching += collide_box_box(box, p.a, box, p.b, Real(0.02), m) ? 1 : 0;
    benchmark::DoNotOptimize(m);
  }
  state.counters["touching"] = benchmark::Counter(double(touching) / double(k));
}
BENCHMARK(BM_BoxBoxPileNeighbours);

}  // namespace
