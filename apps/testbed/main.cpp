// impulse-testbed: the interactive viewer, and headless capture of a scene to a PNG.

#include <impulse/error.h>
#include <impulse/scene.h>

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <stdexcept>

#include "app.h"
#include "capture.h"
#include "glfw_window.h"
#include "replay.h"
#include "simulation.h"

namespace {

constexpr int k_exit_ok = 0;
constexpr int k_exit_no_display = 1;
constexpr int k_exit_bad_input = 2;

int run_capture(const impulse::testbed::CaptureRequest& request) {
  impulse::testbed::GlfwWindow window(request.width, request.height, "impulse-testbed capture",
                                      false);
  const auto result = impulse::testbed::capture(request);
  std::cout << "wrote " << request.file << " (" << request.width << "x" << request.height << ", "
            << request.scene.name << " after " << request.steps << " steps)\n";
  if (request.timed_frames > 0) {
    std::cout << "draw: " << result.draw_ms_per_frame << " ms per frame over "
              << request.timed_frames << " frames (OpenGL renderer: "
              << reinterpret_cast<const char*>(glGetString(GL_RENDERER)) << ")\n";
  }
  return k_exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"impulse-testbed: see, drag and tune Impulse's scenes"};
  std::string scene_name = "pyramid";
  impulse::testbed::CaptureRequest request;
  cli.add_option("--scene", scene_name, "A built-in scene name or a scene file");
  cli.add_option("--steps", request.steps, "Steps to take before the capture")
      ->check(CLI::NonNegativeNumber);
  cli.add_option("--screenshot", request.file,
                 "Draw one frame offscreen to this PNG and exit (no window shown)");
  cli.add_option("--width", request.width, "Capture width, pixels")->check(CLI::Range(16, 8192));
  cli.add_option("--height", request.height, "Capture height, pixels")->check(CLI::Range(16, 8192));
  cli.add_option("--time-frames", request.timed_frames,
                 "After the capture, draw and time this many frames")
      ->check(CLI::NonNegativeNumber);
  std::string replay_file;
  cli.add_option("--replay", replay_file, "Play a replay written by `impulse run --record`")
      ->excludes("--scene")
      ->excludes("--screenshot");
  CLI11_PARSE(cli, argc, argv);

  try {
    std::optional<impulse::testbed::Replay> replay;
    if (!replay_file.empty()) replay = impulse::testbed::load_replay(replay_file);
    request.scene = replay ? replay->scene : impulse::testbed::find_scene(scene_name);
    if (!request.file.empty()) return run_capture(request);
    impulse::testbed::App app(std::move(request.scene));
    if (replay) app.play(std::move(*replay));
    app.run();
    return k_exit_ok;
  } catch (const impulse::Error& e) {
    std::cerr << "impulse-testbed: " << e.what() << "\n";
    return k_exit_bad_input;
  } catch (const std::runtime_error& e) {
    std::cerr << "impulse-testbed: " << e.what() << "\n";
    return k_exit_no_display;
  }
}
