#pragma once
// The interactive testbed: a window with the scene, the mouse and key controls and the panels.

#include <impulse/scene.h>

#include <optional>
#include <string>

#include "ball_shooter.h"
#include "glfw_window.h"
#include "history.h"
#include "mouse_drag.h"
#include "panels.h"
#include "replay_player.h"
#include "scene_view.h"
#include "simulation.h"

namespace impulse::testbed {

/// Dear ImGui's context and its GLFW and OpenGL 3 backends for one window.
class ImGuiLayer {
 public:
  explicit ImGuiLayer(GLFWwindow* window);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;
};

class App {
 public:
  /// Throws std::runtime_error when no window can be opened.
  explicit App(Scene scene);
  /// Shows the replay instead of the scene until it is closed; throws SceneError when its scene
  /// builds no world.
  void play(Replay replay);
  /// Runs until the window is closed.
  void run();

 private:
  void load(const std::string& name_or_file);
  void restarted();  // after the world was rebuilt
  void handle_mouse(int width, int height);
  void handle_keys(int width, int height);
  void apply(const SceneRequests& requests);
  void apply(const ReplayRequests& requests);
  void close_replay();
  void record_steps(int steps);

  GlfwWindow window_;
  ImGuiLayer imgui_;
  SceneView view_;
  Simulation simulation_;
  MouseDrag drag_;
  BallShooter shooter_;
  History history_;
  ScenePanelState scene_panel_;
  std::optional<ReplayPlayer> replay_;  // shown instead of the simulation while set
  ReplayPanelState replay_panel_;
  bool orbiting_ = false;  // a left drag that grabbed no body turns the camera
};

}  // namespace impulse::testbed
