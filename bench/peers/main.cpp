// impulse_peers: the same scenes in Impulse (its two friction models), Bullet and ODE with the same
// settings; ms per step and quality figures side by side (docs/performance.md).

#include "quality.h"
#include "report.h"
#include "runner.h"
#include "scene.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using peers::CommonSettings;
using peers::Result;
using peers::Runner;
using peers::Scene;

// An engine of the run: its kind (an --engines name) and, for Impulse, its thread count. The
// table names it by its kind, or kind@threads for Impulse at a count after --threads' first.
struct Engine {
  std::string kind;
  int threads = 1;
  std::string name;
};

// The engines to run: each kind once, Impulse's at each thread count.
std::vector<Engine> engines_of(const std::vector<std::string>& kinds,
                               const std::vector<int>& thread_counts) {
  std::vector<Engine> engines;
  for (const std::string& kind : kinds) {
    const bool impulse = kind.starts_with("impulse");
    for (std::size_t k = 0; k < (impulse ? thread_counts.size() : 1); ++k) {
      const int threads = thread_counts[k];
      engines.push_back({kind, threads, k == 0 ? kind : kind + "@" + std::to_string(threads)});
    }
  }
  return engines;
}

// What this program, and Impulse with it, was built for (IMPULSE_ARCH): the table says it, as
// Bullet and ODE are Debian's builds for the x86-64 baseline.
constexpr const char* k_impulse_instruction_set =
#if defined(__AVX512F__)
    "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
    "AVX2 and FMA";
#else
    "the compiler's default set";
#endif

std::unique_ptr<Runner> make_runner(const Engine& engine, const Scene& scene,
                                    CommonSettings settings) {
  settings.threads = engine.threads;
  if (engine.kind == "impulse")
    return peers::make_impulse_runner(scene, settings, peers::ImpulseFriction::coulomb);
  if (engine.kind == "impulse_patch")
    return peers::make_impulse_runner(scene, settings, peers::ImpulseFriction::patch);
  if (engine.kind == "bullet") return peers::make_bullet_runner(scene, settings);
  return peers::make_ode_runner(scene, settings);
}

std::vector<peers::Pose> poses(const Runner& runner, const Scene& scene) {
  std::vector<peers::Pose> out;
  for (std::size_t i = 0; i < scene.bodies.size(); ++i)
    out.push_back(runner.pose(i));
  return out;
}

double median(std::vector<double> values) {
  const auto middle = values.begin() + std::ptrdiff_t(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// The CPU time of the whole process (every thread), ms.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// The engines of a scene step in turn, this many steps each, so that a change in the machine's
// speed during a run (a shared virtual machine drifts by a third between minutes) falls on all
// of them alike rather than on whichever ran then; each engine's cache stays warm within its
// turn.
constexpr int k_turn_steps = 30;

// The medians of the steps where `flag` is false and of those where it is true (none where there
// are none, or where the engine did not flag every step).
std::pair<std::optional<double>, std::optional<double>> split_medians(
    const std::vector<double>& ms, const std::vector<bool>& flag) {
  if (flag.size() != ms.size()) return {};
  std::array<std::vector<double>, 2> split;
  for (std::size_t i = 0; i < ms.size(); ++i)
    split[flag[i] ? 1 : 0].push_back(ms[i]);
  const auto median_of = [](const std::vector<double>& v) {
    return v.empty() ? std::optional<double>() : std::optional<double>(median(v));
  };
  return {median_of(split[0]), median_of(split[1])};
}

// Times every step by the wall clock and by CPU time. The median is robust to the noise of a
// shared machine, the mean is not; CPU time leaves out the time others' processes take.
std::vector<Result> run(const std::vector<Engine>& engines, const Scene& scene,
                        const CommonSettings& settings, int steps) {
  struct Timed {
    std::unique_ptr<Runner> runner;
    std::vector<peers::Pose> start;
    std::vector<double> wall, cpu;
    std::optional<impulse::StageTimes> stages;            // summed over the steps
    std::optional<int> layout_changes;                    // counted over the steps
    std::vector<bool> new_layout;                         // per step, where the engine says
    std::optional<int> team_steps;                        // counted over the steps
    std::vector<bool> on_team;                            // per step, where the engine says
    double worst_joint_error = 0, worst_angle_error = 0;  // after any step
  };
  const auto angular = [](const peers::Joint& j) { return j.kind != peers::JointKind::ball; };
  const bool angular_joints = std::any_of(scene.joints.begin(), scene.joints.end(), angular);
  std::vector<Timed> timed;
  for (const Engine& engine : engines) {
    std::unique_ptr<Runner> runner = make_runner(engine, scene, settings);
    std::vector<peers::Pose> start = poses(*runner, scene);
    timed.push_back({std::move(runner), std::move(start), {}, {}, {}, {}, {}, {}, {}, 0, 0});
  }
  for (int first = 0; first < steps; first += k_turn_steps) {
    for (Timed& t : timed) {
      for (int i = first; i < std::min(steps, first + k_turn_steps); ++i) {
        const double cpu_begin = cpu_ms();
        const auto begin = std::chrono::steady_clock::now();
        t.runner->step();
        const auto stop = std::chrono::steady_clock::now();
        t.cpu.push_back(cpu_ms() - cpu_begin);
        t.wall.push_back(std::chrono::duration<double, std::milli>(stop - begin).count());
        if (const std::optional<impulse::StageTimes> step = t.runner->stages())
          t.stages = t.stages.value_or(impulse::StageTimes{}) += *step;
        if (const std::optional<bool> changed = t.runner->layout_changed()) {
          t.layout_changes = t.layout_changes.value_or(0) + (*changed ? 1 : 0);
          t.new_layout.push_back(*changed);
        }
        if (const std::optional<int> threads = t.runner->step_threads()) {
          t.team_steps = t.team_steps.value_or(0) + (*threads > 1 ? 1 : 0);
          t.on_team.push_back(*threads > 1);
        }
        // The joints after every step, outside the time: a landing's transient shows there.
        if (!scene.joints.empty()) {
          const std::vector<peers::Pose> now = poses(*t.runner, scene);
          t.worst_joint_error =
              std::max(t.worst_joint_error, peers::max_joint_error(scene, t.start, now));
          if (angular_joints)
            t.worst_angle_error =
                std::max(t.worst_angle_error, peers::max_angle_error(scene, t.start, now));
        }
      }
    }
  }
  std::vector<Result> results;
  for (std::size_t e = 0; e < engines.size(); ++e) {
    const Timed& t = timed[e];
    Result result;
    result.scene = scene.name;
    result.engine = engines[e].name;
    result.kind = engines[e].kind;
    const std::vector<peers::Pose> end = poses(*t.runner, scene);
    result.mean_ms = std::accumulate(t.wall.begin(), t.wall.end(), 0.0) / double(t.wall.size());
    result.median_ms = median(t.wall);
    result.cpu_median_ms = median(t.cpu);
    if (t.stages) result.stages_ms = *t.stages / double(t.wall.size());
    result.layout_changes = t.layout_changes;
    if (!t.new_layout.empty()) {
      std::tie(result.cpu_median_same_layout_ms, result.cpu_median_new_layout_ms) =
          split_medians(t.cpu, t.new_layout);
    }
    result.team_steps = t.team_steps;
    if (!t.on_team.empty())
      std::tie(result.median_alone_ms, result.median_team_ms) = split_medians(t.wall, t.on_team);
    result.max_penetration = peers::max_penetration(scene, end);
    if (scene.resting) result.moved = peers::moved_bodies(scene, t.start, end);
    if (!scene.joints.empty()) {
      result.joint_error = peers::max_joint_error(scene, t.start, end);
      result.worst_joint_error = t.worst_joint_error;
    }
    if (angular_joints) {
      result.angle_error = peers::max_angle_error(scene, t.start, end);
      result.worst_angle_error = t.worst_angle_error;
    }
    results.push_back(result);
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Impulse beside Bullet and ODE on the same scenes: ms per step and quality"};
  std::vector<std::string> scenes = peers::scene_names();
  std::vector<std::string> engines{"impulse", "impulse_patch", "bullet", "ode"};
  std::vector<int> thread_counts{1};
  int steps = 600;
  bool json = false, stages = false;
  CommonSettings settings;
  app.add_option("--scenes", scenes, "Scenes to run, comma separated")
      ->delimiter(',')
      ->check(CLI::IsMember(peers::scene_names(true)));
  app.add_option("--engines", engines, "Engines to run, comma separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"impulse", "impulse_patch", "bullet", "ode"}));
  app.add_option("--steps", steps, "Steps per scene")->check(CLI::PositiveNumber);
  app.add_flag("--json", json, "Print one JSON object instead of the table");
  app.add_flag("--stages", stages,
               "Also print where Impulse's steps went, mean ms per stage (always in --json)");
  app.add_option("--iterations", settings.iterations,
                 "Solver iterations per step, every engine (the issue's contract: 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", thread_counts,
                 "Impulse's thread counts, comma separated (World::set_threads; Bullet and ODE run "
                 "on one): Impulse runs at each, in the same run, as impulse and impulse@N")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));  // World::set_threads' range
  app.add_flag("--every-step-on-threads", settings.every_step_on_threads,
               "Impulse runs every step on its threads (ThreadUse::always), not only the steps "
               "that measure faster on them (ThreadUse::measured, the default)");
  std::uint32_t seed = peers::k_pile_seed;
  app.add_option("--seed", seed,
                 "Seed of pile1000's orientations (the issue's: 8; others give other piles)");
  std::uint32_t nudge = 0;
  app.add_option("--nudge", nudge,
                 "Moves each dynamic body by a seeded offset of at most 10 um per axis (0, the "
                 "default: the issue's scenes): other trajectories of the same scenes");
  CLI11_PARSE(app, argc, argv);

  std::vector<Result> results;
  const std::vector<Engine> run_engines = engines_of(engines, thread_counts);
  for (const std::string& name : scenes) {
    const Scene scene = peers::nudged(peers::make_scene(name, seed), nudge);
    for (Result& result : run(run_engines, scene, settings, steps))
      results.push_back(std::move(result));
  }
  peers::add_ratios(results);
  if (json) {
    const nlohmann::json out{{"steps", steps},
                             {"dt", settings.dt},
                             {"iterations", settings.iterations},
                             {"threads", thread_counts.front()},
                             {"thread_counts", thread_counts},
                             {"every_step_on_threads", settings.every_step_on_threads},
                             {"seed", seed},
                             {"nudge", nudge},
                             {"impulse_instruction_set", k_impulse_instruction_set},
                             {"results", peers::to_json(results)}};
    std::cout << out.dump(2) << '\n';
  } else {
    peers::print_table(std::cout, results);
    if (stages) peers::print_stages(std::cout, results);
    if (settings.iterations != CommonSettings{}.iterations)
      std::cout << "(" << settings.iterations << " iterations per step, every engine)\n";
    if (seed != peers::k_pile_seed) std::cout << "(pile1000 from seed " << seed << ")\n";
    if (nudge != 0) std::cout << "(every scene nudged by seed " << nudge << ")\n";
    std::cout << "(Impulse built for " << k_impulse_instruction_set
              << "; Bullet and ODE as Debian builds them)\n";
  }
  return 0;
}
