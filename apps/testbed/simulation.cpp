#include "simulation.h"

#include <impulse/error.h>

#include <filesystem>

namespace impulse::testbed {

Scene find_scene(const std::string& name_or_file) {
  if (auto scene = builtin_scene(name_or_file)) return *scene;
  if (!std::filesystem::exists(name_or_file))
    throw SceneError(name_or_file, "", "neither a built-in scene nor a file");
  return load_scene(name_or_file);
}

namespace {

// The residual plot shows every iteration of the last solve, so the solver measures each.
Scene plotted(Scene scene) {
  scene.settings.solver.record_residuals = true;
  return scene;
}

}  // namespace

Simulation::Simulation(Scene scene)
    : scene_(plotted(std::move(scene))), world_(build_world(scene_)) {}

void Simulation::load(Scene loaded) {
  Scene scene = plotted(std::move(loaded));
  World world = build_world(scene, scene.name);  // first, so that a refused scene changes nothing
  scene_ = std::move(scene);
  world_ = std::move(world);
  stepper_ = FixedStepper();
  ++generation_;
}

void Simulation::reset() {
  const WorldSettings tuned = world_.settings();
  world_ = build_world(scene_, scene_.name);
  world_.set_settings(tuned);
  stepper_ = FixedStepper();
  ++generation_;
}

int Simulation::advance(double frame_time) {
  if (paused) return 0;
  return stepper_.advance(world_, frame_time * double(time_scale));
}

void Simulation::step_once() {
  world_.step(world_.settings().timestep);
}

}  // namespace impulse::testbed
