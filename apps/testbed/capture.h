#pragma once
// Headless capture: step a scene, draw one frame offscreen and write it as a PNG; optionally time
// the drawing of more frames (the figure docs/testbed.md quotes).

#include <impulse/scene.h>

#include <string>

namespace impulse::testbed {

struct CaptureRequest {
  Scene scene;
  int steps = 0;
  std::string file;  // PNG
  int width = 960;
  int height = 540;
  int timed_frames = 0;  // frames drawn and timed after the capture
};

struct CaptureResult {
  double draw_ms_per_frame = 0;  // mean over the timed frames, 0 when none
};

/// Needs a current OpenGL 3.3 context. Throws std::runtime_error when the file cannot be written.
CaptureResult capture(const CaptureRequest& request);

}  // namespace impulse::testbed
