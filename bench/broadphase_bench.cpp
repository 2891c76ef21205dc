// The broadphase on 10k proxies in a 60 m cube: one update (every proxy moves a little, some out
// of their fat boxes, then the new pairs are gathered) and box queries against the tree.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "collision/broadphase.h"

namespace {

using namespace impulse;

constexpr int k_proxies = 10000;
constexpr Real k_world_half_size = 30;  // m

std::vector<AABB> make_boxes(std::mt19937& rng) {
  std::uniform_real_distribution<Real> position(-k_world_half_size, k_world_half_size);
  std::uniform_real_distribution<Real> size(Real(0.2), Real(0.8));
  std::vector<AABB> boxes;
  for (int i = 0; i < k_proxies; ++i) {
    boxes.push_back(AABB::from_center_half_extents({position(rng), position(rng), position(rng)},
                                                   {size(rng), size(rng), size(rng)}));
  }
  return boxes;
}

void BM_BroadphaseUpdate10k(benchmark::State& state) {
  std::mt19937 rng(1);
  std::vector<AABB> boxes = make_boxes(rng);
  Broadphase broadphase;
  std::vector<std::int32_t> ids;
  for (int i = 0; i < k_proxies; ++i)
    ids.push_back(broadphase.create_proxy(boxes[i], i));
  std::vector<ProxyPair> pairs;
  broadphase.update_pairs(pairs);

  // Displacements drawn up front so the timed loop measures the broadphase, not the RNG. At
  // 0.03 m per step against a 0.1 m margin a proxy leaves its fat box every few steps.
  const int k_steps = 64;
  std::uniform_real_distribution<Real> unit(Real(-0.03), Real(0.03));
  std::vector<Vec3> displacements;
  for (int i = 0; i < k_steps * k_proxies; ++i)
    displacements.push_back({unit(rng), unit(rng), unit(rng)});

  std::int64_t step = 0;
  std::int64_t reported = 0;
  for (auto _ : state) {
    const Vec3* d = &displacements[(step++ % k_steps) * k_proxies];
    for (int i = 0; i < k_proxies; ++i) {
      boxes[i] = {boxes[i].lower + d[i], boxes[i].upper + d[i]};
      broadphase.move_proxy(ids[i], boxes[i], d[i]);
    }
    broadphase.update_pairs(pairs);
    reported += static_cast<std::int64_t>(pairs.size());
    benchmark::DoNotOptimize(pairs.data());
  }
  state.SetItemsProcessed(state.iterations() * k_proxies);
  state.counters["pairs/step"] =
      benchmark::Counter(static_cast<double>(reported) / static_cast<double>(state.iterations()));
  state.counters["height"] = broadphase.tree().height();
  state.counters["area_ratio"] = broadphase.tree().area_ratio();
}
BENCHMARK(BM_BroadphaseUpdate10k)->Unit(benchmark::kMicrosecond);

void BM_TreeQuery10k(benchmark::State& state) {
  std::mt19937 rng(2);
  const std::vector<AABB> boxes = make_boxes(rng);
  AabbTree tree;
  for (int i = 0; i < k_proxies; ++i)
    tree.create_proxy(boxes[i], i);
  const std::vector<AABB> queries = make_boxes(rng);  // queries of body size
  std::size_t q = 0;
  std::int64_t hits = 0;
  for (auto _ : state) {
    tree.query(queries[q], [&](std::int32_t) {
      ++hits;
      return true;
    });
    q = (q + 1) % queries.size();
  }
  benchmark::DoNotOptimize(hits);
  state.SetItemsProcessed(state.iterations());
  state.counters["hits/query"] =
      benchmark::Counter(static_cast<double>(hits) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_TreeQuery10k);

}  // namespace
