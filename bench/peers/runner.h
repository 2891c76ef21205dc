#pragma once
// One engine's world built from a scene: step it, read the bodies' poses. A file per engine.

#include "scene.h"

#include <impulse/stats.h>

#include <cstddef>
#include <memory>
#include <optional>

namespace peers {

class Runner {
 public:
  virtual ~Runner() = default;
  /// One step of the common time step, everything the engine does per step included.
  virtual void step() = 0;
  /// The pose of the scene's body of that index.
  virtual Pose pose(std::size_t body) const = 0;
  /// Where the last step's time went, for an engine that reports it (Impulse); else nothing.
  virtual std::optional<impulse::StageTimes> stages() const { return std::nullopt; }
  /// Whether the last step's solve found its structure anew, the rows' layout having changed
  /// (Impulse: SolveStats::layout_changed); nothing for an engine that keeps none.
  virtual std::optional<bool> layout_changed() const { return std::nullopt; }
  /// The threads the last step's loops could run on (Impulse: StepStats::threads); nothing for an
  /// engine that has no such choice.
  virtual std::optional<int> step_threads() const { return std::nullopt; }
};

/// Impulse's friction: its default (coulomb, two rows per contact point) or its patch model (three
/// rows per manifold), run as two engines, `impulse` and `impulse_patch`.
enum class ImpulseFriction { coulomb, patch };

std::unique_ptr<Runner> make_impulse_runner(const Scene& scene, const CommonSettings& settings,
                                            ImpulseFriction friction);
std::unique_ptr<Runner> make_bullet_runner(const Scene& scene, const CommonSettings& settings);
std::unique_ptr<Runner> make_ode_runner(const Scene& scene, const CommonSettings& settings);

}  // namespace peers
