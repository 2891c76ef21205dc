// Cost of the step stages that exist so far, per body.

#include <impulse/world.h>

#include <benchmark/benchmark.h>

namespace {

impulse::World spinning_bodies(int count, bool gyroscopic) {
  impulse::WorldSettings settings;
  settings.gyroscopic = gyroscopic;
  impulse::World world(settings);
  for (int i = 0; i < count; ++i) {
    impulse::BodySettings body;
    body.shapes = {{impulse::Box{{0.2f, 0.5f, 0.8f}}, {}}};
    body.position = {float(i % 100) * 2, 2.0f * float(i - i % 100) / 100.0f, 0};  // a 100-wide grid
    body.angular_velocity = {0.1f, 3, 0.1f};
    world.create_body(body);
  }
  return world;
}

void BM_StepFreeBodies(benchmark::State& state) {
  impulse::World world = spinning_bodies(int(state.range(0)), state.range(1) != 0);
  while (state.KeepRunning())
    world.step(1.0f / 60.0f);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetLabel(state.range(1) ? "gyroscopic" : "plain");
}
BENCHMARK(BM_StepFreeBodies)->Args({1000, 0})->Args({1000, 1})->Args({10000, 0});

}  // namespace
