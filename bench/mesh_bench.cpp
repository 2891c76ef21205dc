// Nanoseconds per collide_convex_mesh for a unit box resting on a floor of 10k triangles (0.25 m
// cells, so the box's bounds meet about 50 of them), square on and turned, and for a sphere; per
// closest-hit ray cast down onto the floor; and per cooking of that floor.

#include <benchmark/benchmark.h>

#include <vector>

#include "collision/mesh_grid.h"
#include "collision/mesh_shape.h"

namespace {

using namespace impulse;

// 71 x 71 cells of 0.25 m: 10082 triangles.
Mesh floor_grid() {
  return grid_mesh(71, 71, Real(0.25), [](Real, Real) { return Real(0); });
}

const MeshShape& floor_10k() {
  static const auto mesh = cook_mesh(floor_grid());
  return *mesh;
}

void run(benchmark::State& state, const ConvexRef& a, const Transform& ta) {
  const MeshShape& mesh = floor_10k();
  std::vector<Manifold> out;
  for (auto _ : state) {
    out.clear();
    collide_convex_mesh(a, ta, mesh, {}, Real(0.02), out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["manifolds"] = double(out.size());
}

void BM_MeshBoxResting(benchmark::State& state) {
  const BoxPolyhedron box{Box{}};
  run(state, box.view(), {{Real(0.3), Real(0.495), Real(-0.2)}, {}});
}
BENCHMARK(BM_MeshBoxResting);

void BM_MeshBoxRestingTurned(benchmark::State& state) {
  const BoxPolyhedron box{Box{}};
  run(state, box.view(),
      {{Real(0.3), Real(0.495), Real(-0.2)}, Quat::from_axis_angle({0, 1, 0}, k_pi / 6)});
}
BENCHMARK(BM_MeshBoxRestingTurned);

void BM_MeshSphereResting(benchmark::State& state) {
  run(state, Sphere{Real(0.5)}, {{Real(0.3), Real(0.495), Real(-0.2)}, {}});
}
BENCHMARK(BM_MeshSphereResting);

void BM_MeshRaycastDown(benchmark::State& state) {
  const MeshShape& mesh = floor_10k();
  RayHit hit;
  for (auto _ : state) {
    benchmark::DoNotOptimize(raycast(mesh, {}, {Real(0.3), 5, Real(-0.2)}, {0, -10, 0}, 1, hit));
  }
}
BENCHMARK(BM_MeshRaycastDown);

void BM_MeshCook10k(benchmark::State& state) {
  const Mesh mesh = floor_grid();
  for (auto _ : state)
    benchmark::DoNotOptimize(cook_mesh(mesh));
}
BENCHMARK(BM_MeshCook10k)->Unit(benchmark::kMillisecond);

}  // namespace
