#include "offscreen_target.h"

#include <algorithm>
#include <stdexcept>

namespace impulse::testbed {

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  glGenFramebuffers(1, &framebuffer_);
  glGenRenderbuffers(2, renderbuffers_);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffers_[0]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                            renderbuffers_[0]);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffers_[1]);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER,
                            renderbuffers_[1]);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (!complete) {
    glDeleteRenderbuffers(2, renderbuffers_);
    glDeleteFramebuffers(1, &framebuffer_);
    throw std::runtime_error("the offscreen framebuffer is incomplete");
  }
}

OffscreenTarget::~OffscreenTarget() {
  glDeleteRenderbuffers(2, renderbuffers_);
  glDeleteFramebuffers(1, &framebuffer_);
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
}

Image OffscreenTarget::read() const {
  Image image{width_, height_, std::vector<std::uint8_t>(std::size_t(width_ * height_) * 3)};
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGB, GL_UNSIGNED_BYTE, image.rgb.data());
  // OpenGL's rows run bottom to top; an image's top to bottom.
  const auto row = std::size_t(width_) * 3;
  for (int y = 0; y < height_ / 2; ++y)
    std::swap_ranges(image.rgb.begin() + std::ptrdiff_t(std::size_t(y) * row),
                     image.rgb.begin() + std::ptrdiff_t(std::size_t(y + 1) * row),
                     image.rgb.begin() + std::ptrdiff_t(std::size_t(height_ - 1 - y) * row));
  return image;
}

}  // namespace impulse::testbed
