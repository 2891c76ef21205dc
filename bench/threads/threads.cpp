// Issue 8's thread scaling: a scene (built-in or a file) built twice, one world on one thread and
// one on N, stepped in turn (step by step, so a change in the machine's load hits both alike), each
// step timed. Prints the per-step median and lower quartile of each and their ratio, the median of
// each stage (StepStats) so that what does not scale shows, and checks that the two worlds end in
// the same bits (exit 1 if not). Sleeping is off unless --sleeping. The N-thread world runs every
// step on its threads unless --measured (ThreadUse::measured: only the steps that measure faster
// there); --pause-ms P sleeps P ms before each step, as a game's frame loop does.
//
//   impulse_threads [--scene pyramid|file.json] [--threads 2] [--steps 300] [--warm-up 30]
//                   [--sleeping] [--measured] [--pause-ms 0]

#include <impulse/error.h>
#include <impulse/scene.h>
#include <impulse/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace impulse;

// The k-th quarter point (k = 1: lower quartile, 2: median) of the times.
double quarter(std::vector<double> times, int k) {
  std::sort(times.begin(), times.end());
  return times[times.size() * std::size_t(k) / 4];
}

// One world's times per step: the whole step, then each stage (StageTimes: the solve by its
// parts, so that which part does not scale shows).
struct StepTimes {
  std::vector<double> step;
  std::array<std::vector<double>, StageTimes::k_count> stages;

  void add(double step_ms, const StepStats& s) {
    step.push_back(step_ms);
    const StageTimes times = StageTimes::of(s);
    for (std::size_t k = 0; k < StageTimes::k_count; ++k)
      stages[k].push_back(times.ms[k]);
  }
};

// Sleeps pause_ms, then steps the world once; returns the milliseconds the step took.
double timed_step(World& world, Real dt, int pause_ms) {
  if (pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  const auto start = std::chrono::steady_clock::now();
  world.step(dt);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void print_stage(const char* stage, const std::vector<double>& one,
                 const std::vector<double>& many) {
  std::printf("  %-20s %8.3f %8.3f ms  %.2fx\n", stage, quarter(one, 2), quarter(many, 2),
              quarter(one, 2) / std::max(quarter(many, 2), 1e-9));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A scene on one thread and on N, stepped in turn: time per step and bits"};
  std::string name = "pyramid";
  int threads = 2, steps = 300, warm_up = 30, pause_ms = 0;
  bool sleeping = false, measured = false;
  std::string friction;
  app.add_option("--scene", name, "Built-in scene (impulse scenes lists them) or scene file");
  app.add_option("--threads", threads, "Threads of the second world")->check(CLI::Range(1, 256));
  app.add_option("--steps", steps, "Timed steps")->check(CLI::PositiveNumber);
  app.add_option("--warm-up", warm_up, "Untimed steps first")->check(CLI::NonNegativeNumber);
  app.add_flag("--sleeping", sleeping, "Keep the scene's sleeping on");
  app.add_flag("--measured", measured,
               "The N-thread world runs only the steps that measure faster on its threads "
               "(ThreadUse::measured), not every step");
  app.add_option("--pause-ms", pause_ms, "Sleep this long before each step (a frame loop)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--friction-model", friction, "Friction model (overrides the scene's)")
      ->check(CLI::IsMember({"coulomb", "cone", "constant", "patch"}));
  CLI11_PARSE(app, argc, argv);

  std::optional<Scene> found = builtin_scene(name);
  if (!found) {
    try {
      found = load_scene(name);
    } catch (const SceneError& error) {
      std::fprintf(stderr, "impulse_threads: no built-in scene named '%s', nor a scene file: %s\n",
                   name.c_str(), error.what());
      return 2;
    }
  }
  Scene scene = *found;
  scene.settings.sleeping = scene.settings.sleeping && sleeping;
  if (!friction.empty()) scene.settings.solver.friction_model = *friction_model_from_name(friction);
  World one = build_world(scene, name), many = build_world(scene, name);
  many.set_threads(threads);
  // By default the threads themselves, measured and checked (TSan in the test command).
  many.set_thread_use(measured ? ThreadUse::measured : ThreadUse::always);
  const Real dt = scene.settings.timestep;
  StepTimes one_ms, many_ms;
  int team_steps = 0;
  for (int i = 0; i < warm_up + steps; ++i) {
    const double a = timed_step(one, dt, pause_ms), b = timed_step(many, dt, pause_ms);
    if (i < warm_up) continue;
    if (many.last_step_stats().threads > 1) ++team_steps;
    one_ms.add(a, one.last_step_stats());
    many_ms.add(b, many.last_step_stats());
  }
  const bool same = one.state_hash() == many.state_hash();
  std::printf(
      "%s, %d steps: 1 thread median %.3f ms (q1 %.3f), %d threads median %.3f ms (q1 %.3f): "
      "%.2fx (q1 %.2fx); %s bits; %d of the N-thread world's steps on its threads\n",
      name.c_str(), steps, quarter(one_ms.step, 2), quarter(one_ms.step, 1), threads,
      quarter(many_ms.step, 2), quarter(many_ms.step, 1),
      quarter(one_ms.step, 2) / quarter(many_ms.step, 2),
      quarter(one_ms.step, 1) / quarter(many_ms.step, 1), same ? "the same" : "DIFFERENT",
      team_steps);
  std::printf("  stage medians: 1 thread, %d threads\n", threads);
  for (std::size_t k = 0; k < StageTimes::k_count; ++k)
    print_stage(StageTimes::names[k], one_ms.stages[k], many_ms.stages[k]);
  return same ? 0 : 1;
}
