#include "fuzz/fuzz_checks.h"

#include <impulse/error.h>
#include <impulse/scene.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace impulse::fuzz {
namespace {

// Stepping is the slow part; larger scenes are still parsed, saved and built.
constexpr std::size_t k_max_bodies_stepped = 64;
constexpr int k_max_iterations_stepped = 1000;
constexpr int k_max_substeps_stepped = 8;
constexpr int k_steps = 5;

}  // namespace

void check_scene_text(std::string_view text) {
  Scene scene;
  try {
    scene = parse_scene(std::string(text), "fuzz.json");
  } catch (const SceneError&) {
    return;
  }
  try {
    if (!(parse_scene(scene_to_json(scene)) == scene))
      throw std::logic_error("a loaded scene saves to text that loads back different");
  } catch (const SceneError& e) {
    throw std::logic_error(std::string("a loaded scene saves to text that does not load: ") +
                           e.what());
  }
  try {
    World world = build_world(scene);
    const SolverSettings& solver = scene.settings.solver;
    if (scene.bodies.size() > k_max_bodies_stepped ||
        std::max(solver.iterations, solver.relax_iterations) > k_max_iterations_stepped ||
        solver.substeps > k_max_substeps_stepped)
      return;
    for (int i = 0; i < k_steps; ++i)
      world.step(world.settings().timestep);
  } catch (const SceneError&) {
  }
}

}  // namespace impulse::fuzz
