// Issue 8's thread scaling: a built-in scene built twice, one world on one thread and one on N,
// stepped in turn (step by step, so a change in the machine's load hits both alike), each step
// timed. Prints the per-step median and lower quartile of each and their ratio, and checks that
// the two worlds end in the same bits (exit 1 if not). Sleeping is off unless --sleeping.
//
//   impulse_threads [--scene pyramid] [--threads 2] [--steps 300] [--warm-up 30] [--sleeping]

#include <impulse/scene.h>
#include <impulse/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace impulse;

// The k-th quarter point (k = 1: lower quartile, 2: median) of the times.
double quarter(std::vector<double> times, int k) {
  std::sort(times.begin(), times.end());
  return times[times.size() * std::size_t(k) / 4];
}

// Steps the world once; returns the milliseconds it took.
double timed_step(World& world, Real dt) {
  const auto start = std::chrono::steady_clock::now();
  world.step(dt);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A built-in scene on one thread and on N, stepped in turn: time per step and bits"};
  std::string name = "pyramid";
  int threads = 2, steps = 300, warm_up = 30;
  bool sleeping = false;
  app.add_option("--scene", name, "Built-in scene (impulse scenes lists them)");
  app.add_option("--threads", threads, "Threads of the second world")->check(CLI::Range(1, 256));
  app.add_option("--steps", steps, "Timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warm-up", warm_up, "Untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_flag("--sleeping", sleeping, "Keep the scene's sleeping on");
  CLI11_PARSE(app, argc, argv);

  const std::optional<Scene> found = builtin_scene(name);
  if (!found) {
    std::fprintf(stderr, "impulse_threads: no built-in scene named '%s'\n", name.c_str());
    return 2;
  }
  Scene scene = *found;
  scene.settings.sleeping = scene.settings.sleeping && sleeping;
  World one = build_world(scene, name), many = build_world(scene, name);
  many.set_threads(threads);
  const Real dt = scene.settings.timestep;
  std::vector<double> one_ms, many_ms;
  for (int i = 0; i < warm_up + steps; ++i) {
    const double a = timed_step(one, dt), b = timed_step(many, dt);
    if (i < warm_up) continue;
    one_ms.push_back(a);
    many_ms.push_back(b);
  }
  const bool same = one.state_hash() == many.state_hash();
  std::printf(
      "%s, %d steps: 1 thread median %.3f ms (q1 %.3f), %d threads median %.3f ms (q1 %.3f): "
      "%.2fx (q1 %.2fx); %s bits\n",
      name.c_str(), steps, quarter(one_ms, 2), quarter(one_ms, 1), threads, quarter(many_ms, 2),
      quarter(many_ms, 1), quarter(one_ms, 2) / quarter(many_ms, 2),
      quarter(one_ms, 1) / quarter(many_ms, 1), same ? "the same" : "DIFFERENT");
  return same ? 0 : 1;
}
