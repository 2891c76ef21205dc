#pragma once
// The ImGui panels: scene and time controls, the live solver settings, the debug-draw toggles
// and the plots. Each draws one window and reports what the user asked for.

#include <impulse/world.h>

#include <optional>
#include <string>
#include <vector>

#include "ball_shooter.h"
#include "draw_options.h"
#include "history.h"
#include "mouse_drag.h"
#include "replay_player.h"
#include "simulation.h"

namespace impulse::testbed {

/// What the replay panel asks the application to do this frame.
struct ReplayRequests {
  std::optional<std::string> open;  // a replay file
  bool close = false;
};

struct ReplayPanelState {
  std::string file_path;
  std::string error;  // of the last open, shown until the next one
};

/// What the scene panel asks the application to do this frame.
struct SceneRequests {
  std::optional<std::string> load;  // a built-in name or a scene file
  bool reset = false;
  bool step = false;
};

struct ScenePanelState {
  std::vector<std::string> builtin_names;
  std::string file_path;
  std::string error;  // of the last load, shown until the next one
};

SceneRequests scene_panel(ScenePanelState& state, Simulation& simulation, MouseDrag& drag,
                          BallShooter& shooter);
/// Edits the world's settings in place; refused values leave them as they were.
void solver_panel(World& world);
/// player: the replay being shown, if any (it plays, pauses and seeks here).
ReplayRequests replay_panel(ReplayPanelState& state, ReplayPlayer* player);
void debug_panel(DrawOptions& options);
void plots_panel(const History& history, const World& world);

}  // namespace impulse::testbed
