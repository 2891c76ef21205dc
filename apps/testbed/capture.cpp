#include "capture.h"

#include <chrono>
#include <stdexcept>

#include "offscreen_target.h"
#include "scene_view.h"
#include "simulation.h"

namespace impulse::testbed {

CaptureResult capture(const CaptureRequest& request) {
  Simulation simulation(request.scene);
  SceneView view;
  view.reset(simulation.world());  // framed at the start, as the window would show it
  for (int i = 0; i < request.steps; ++i)
    simulation.step_once();

  OffscreenTarget target(request.width, request.height);
  target.bind();
  const LineBatch no_overlay;
  view.draw(simulation.world(), simulation.world().debug_contacts(), true, request.width,
            request.height, no_overlay);
  if (!write_png(request.file, target.read()))
    throw std::runtime_error("cannot write " + request.file);

  CaptureResult result;
  if (request.timed_frames > 0) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < request.timed_frames; ++i) {
      view.draw(simulation.world(), simulation.world().debug_contacts(), true, request.width,
                request.height, no_overlay);
      glFinish();  // the frame is drawn, not merely queued
    }
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    result.draw_ms_per_frame = elapsed.count() / request.timed_frames;
  }
  return result;
}

}  // namespace impulse::testbed
