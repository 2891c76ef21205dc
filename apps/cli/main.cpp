// The `impulse` command: list, run and export scenes (scene-format.md, "The command").

#include <impulse/error.h>
#include <impulse/scene.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "replay_writer.h"
#include "run_summary.h"
#include "trace_writer.h"

namespace {

// Exit statuses of the contract.
constexpr int k_exit_ok = 0;
constexpr int k_exit_bad_input = 2;

struct RunOptions {
  std::string scene;
  int steps = 600;
  std::string solver;
  std::string friction_model;
  int iterations = 0;  // 0: the scene's own
  int substeps = 0;    // 0: the scene's own
  int threads = 1;
  bool every_step_on_threads = false;
  bool json = false;
  std::string trace_file;
  std::string record_file;
  std::optional<double> tolerance;
  std::optional<double> sor;
  bool no_warm_start = false;
  bool shuffle = false;
  bool no_geometric_stiffness = false;
};

// A built-in name first, then a file; throws SceneError for neither.
impulse::Scene resolve_scene(const std::string& name_or_path) {
  if (auto scene = impulse::builtin_scene(name_or_path)) return *scene;
  if (!std::filesystem::exists(name_or_path))
    throw impulse::SceneError(name_or_path, "",
                              "neither a built-in scene (see `impulse scenes`) nor a file");
  return impulse::load_scene(name_or_path);
}

void apply_solver_overrides(impulse::SolverSettings& solver, const RunOptions& options) {
  if (options.iterations > 0) solver.iterations = options.iterations;
  if (options.substeps > 0) solver.substeps = options.substeps;
  if (options.tolerance) solver.tolerance = impulse::Real(*options.tolerance);
  if (options.sor) solver.sor = impulse::Real(*options.sor);
  if (options.no_warm_start) solver.warm_start = false;
  if (options.shuffle) solver.shuffle = true;
  if (options.no_geometric_stiffness) solver.geometric_stiffness = false;
}

void apply_overrides(impulse::Scene& scene, const RunOptions& options, const std::string& source) {
  if (!options.solver.empty()) {
    const auto type = impulse::solver_type_from_name(options.solver);
    if (!type)
      throw impulse::SceneError(source, "/solver/type",
                                "unknown solver '" + options.solver + "' (--solver)");
    scene.settings.solver.type = *type;
  }
  if (!options.friction_model.empty()) {
    const auto model = impulse::friction_model_from_name(options.friction_model);
    if (!model)
      throw impulse::SceneError(
          source, "/solver/friction_model",
          "unknown friction model '" + options.friction_model + "' (--friction-model)");
    scene.settings.solver.friction_model = *model;
  }
  apply_solver_overrides(scene.settings.solver, options);
}

void measure_last_step(impulse::World& world) {
  impulse::WorldSettings settings = world.settings();
  settings.solver.measure_residuals = true;
  world.set_settings(settings);
}

int run(const RunOptions& options) {
  impulse::Scene scene = resolve_scene(options.scene);
  apply_overrides(scene, options, options.scene);
  // A trace lists the residual after every iteration; results do not change.
  if (!options.trace_file.empty()) scene.settings.solver.record_residuals = true;
  impulse::World world = impulse::build_world(scene, options.scene);
  world.set_threads(options.threads);
  if (options.every_step_on_threads) world.set_thread_use(impulse::ThreadUse::always);

  impulse::cli::RunResult result;
  result.scene = &scene;
  result.world = &world;
  result.steps = options.steps;
  result.step_ms.reserve(std::size_t(options.steps));
  std::optional<impulse::cli::TraceWriter> trace;
  if (!options.trace_file.empty()) trace.emplace(options.trace_file);
  std::optional<impulse::cli::ReplayWriter> replay;
  if (!options.record_file.empty()) replay.emplace(options.record_file, scene, world);
  const auto dt = scene.settings.timestep;
  result.start_energy();
  for (int i = 0; i < options.steps; ++i) {
    // The summary reports the last step's residual: measured there only, as it costs a sweep.
    if (i + 1 == options.steps) measure_last_step(world);
    const auto start = std::chrono::steady_clock::now();
    world.step(dt);
    result.step_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    result.stage_ms += impulse::StageTimes::of(world.last_step_stats());
    result.add_energy();
    if (world.last_step_stats().solve.layout_changed) ++result.layout_changes;
    if (world.last_step_stats().threads > 1) ++result.team_steps;
    if (trace) trace->write(i + 1, world.last_step_stats().solve);
    if (replay) replay->write(i + 1, world);
    for (const impulse::JointBreakEvent& event : world.joint_events())
      result.joint_breaks.push_back({i + 1, event});
    result.add_reports(i + 1, world.diagnostics());
  }
  if (options.json) {
    std::cout << impulse::cli::summary_json(result).dump(2) << "\n";
  } else {
    std::cout << impulse::cli::summary_text(result);
  }
  return k_exit_ok;
}

int export_scene(const std::string& name, const std::string& file) {
  const auto scene = impulse::builtin_scene(name);
  if (!scene) throw impulse::SceneError(name, "", "not a built-in scene (see `impulse scenes`)");
  impulse::save_scene(*scene, file);
  return k_exit_ok;
}

int run_command_line(int argc, char** argv) {
  CLI::App app{
      "Impulse: a rigid-body physics engine built around iterative LCP constraint solvers"};
  app.require_subcommand(1);

  app.add_subcommand("scenes", "List the built-in scenes, one name a line");

  RunOptions options;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a built-in scene or a scene file");
  run_cmd->add_option("scene", options.scene, "A built-in scene name or a scene file")->required();
  run_cmd->add_option("--steps", options.steps, "Number of steps")->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--solver", options.solver, "Solver type (overrides the scene's)");
  run_cmd->add_option("--friction-model", options.friction_model,
                      "Friction model: coulomb, cone, constant or patch (overrides the scene's)");
  run_cmd
      ->add_option("--iterations", options.iterations, "Solver iterations (overrides the scene's)")
      ->check(CLI::PositiveNumber);
  run_cmd
      ->add_option("--substeps", options.substeps,
                   "Sub-steps per step, each over timestep / n (overrides the scene's)")
      ->check(CLI::PositiveNumber);
  run_cmd
      ->add_option("--threads", options.threads,
                   "Worker threads (results are identical for any count)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("--every-step-on-threads", options.every_step_on_threads,
                    "Run every step on the --threads threads (by default a step runs on the "
                    "calling thread alone where the world's steps measured faster so)");
  run_cmd->add_flag("--json", options.json, "Print the summary as one JSON object");
  run_cmd->add_option("--trace", options.trace_file,
                      "Write the solver's residual per step and iteration (CSV)");
  run_cmd->add_option(
      "--record", options.record_file,
      "Write every body's transform and the contacts per step (a replay, JSON lines)");
  run_cmd->add_option("--tolerance", options.tolerance,
                      "Stop iterating under this relative residual (0: never)");
  run_cmd->add_option("--sor", options.sor, "Successive over-relaxation factor, (0, 2)");
  run_cmd->add_flag("--no-warm-start", options.no_warm_start,
                    "Start every solve from zero impulses");
  run_cmd->add_flag("--shuffle", options.shuffle, "Visit rows in a seeded random order");
  run_cmd->add_flag("--no-geometric-stiffness", options.no_geometric_stiffness,
                    "Leave the joints' loads out of the inertia the solve sees (docs/joints.md)");

  std::string export_name, export_file;
  CLI::App* export_cmd = app.add_subcommand("export", "Write a built-in scene to a scene file");
  export_cmd->add_option("name", export_name, "A built-in scene name")->required();
  export_cmd->add_option("file", export_file, "The scene file to write")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return k_exit_bad_input;
  }

  try {
    if (app.got_subcommand("scenes")) {
      for (const std::string& name : impulse::builtin_scene_names())
        std::cout << name << "\n";
      return k_exit_ok;
    }
    if (app.got_subcommand("run")) return run(options);
    return export_scene(export_name, export_file);
  } catch (const impulse::Error& e) {
    std::cerr << "impulse: " << e.what() << "\n";
    return k_exit_bad_input;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_command_line(argc, argv);
  } catch (const std::exception& e) {  // a bug, not bad input: say so rather than abort
    std::cerr << "impulse: internal error: " << e.what() << "\n";
    return 1;
  }
}
