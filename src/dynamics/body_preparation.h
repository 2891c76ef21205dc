#pragma once
// What a body's settings become before the world takes them: its shapes cooked and its mass
// properties. Shared by World::create_body (which throws) and the scene loader (which names the
// JSON path), so that a scene's degenerate hull or overflowing mass is reported where it is
// written, and before any world is built.

#include <impulse/body.h>

#include "collision/cooked_shape.h"
#include "dynamics/body_storage.h"
#include "dynamics/validation.h"

#include <optional>
#include <vector>

namespace impulse {

struct PreparedBody {
  std::vector<CookedShape> cooked;  // one per settings.shapes entry
  MassProperties mass;              // zero for static and kinematic bodies
  BodyMotion motion;                // type, masses and pose; velocities are the world's to set
  /// What keeps the body out (path within the settings, e.g. "/shapes/0"); the rest is then
  /// unset.
  std::optional<SettingsProblem> problem;
};

/// Cooks the shapes and finds the mass properties of settings that find_problem accepts.
PreparedBody prepare_body(const BodySettings& settings);

}  // namespace impulse
