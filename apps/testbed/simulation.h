#pragma once
// The scene being run and its world, with the testbed's time controls: pause, single step, reset
// and slow motion on top of fixed steps.

#include <impulse/scene.h>
#include <impulse/world.h>

#include <cstdint>
#include <string>

namespace impulse::testbed {

/// A built-in scene by name, else a scene file; throws SceneError for neither.
Scene find_scene(const std::string& name_or_file);

class Simulation {
 public:
  explicit Simulation(Scene scene);

  /// Starts another scene with its own settings.
  void load(Scene scene);
  /// Starts the scene over, keeping the settings as tuned.
  void reset();
  /// Runs the steps due after frame_time seconds of wall time (scaled by slow motion), none when
  /// paused; returns how many.
  int advance(double frame_time);
  /// One step now, paused or not.
  void step_once();

  World& world() { return world_; }
  const World& world() const { return world_; }
  const Scene& scene() const { return scene_; }
  /// Changes whenever the world is rebuilt, so that views can drop what they kept of it.
  std::uint64_t generation() const { return generation_; }

  bool paused = false;
  float time_scale = 1;  // 1 real time, < 1 slow motion

 private:
  Scene scene_;
  World world_;
  FixedStepper stepper_;
  std::uint64_t generation_ = 0;
};

}  // namespace impulse::testbed
