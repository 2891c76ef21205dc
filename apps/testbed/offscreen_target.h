#pragma once
// A framebuffer object to draw into without a visible window (headless capture), and the read
// back of what was drawn.

#include "gl.h"
#include "png_writer.h"

namespace impulse::testbed {

class OffscreenTarget {
 public:
  /// Throws std::runtime_error when the driver refuses the framebuffer.
  OffscreenTarget(int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  /// Directs drawing here.
  void bind() const;
  /// The pixels drawn, top row first.
  Image read() const;

 private:
  int width_, height_;
  GLuint framebuffer_ = 0;
  GLuint renderbuffers_[2] = {0, 0};  // colour, depth
};

}  // namespace impulse::testbed
