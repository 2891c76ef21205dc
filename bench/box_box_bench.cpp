// Nanoseconds per box-box manifold (separating axis test, clipping and reduction) for a box
// resting flat on a larger one, a box turned on another so its face is clipped to an octagon and
// reduced, and two boxes touching edge to edge.

#include <benchmark/benchmark.h>

#include "collision/box_box.h"

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

}  // namespace
