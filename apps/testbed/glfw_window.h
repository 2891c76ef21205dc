#pragma once
// GLFW and a window with a current OpenGL 3.3 core context, hidden for headless capture.

#include <string>

#include "gl.h"

namespace impulse::testbed {

class GlfwWindow {
 public:
  /// Throws std::runtime_error (with GLFW's reason) when there is no display or no GL 3.3.
  GlfwWindow(int width, int height, const std::string& title, bool visible);
  ~GlfwWindow();
  GlfwWindow(const GlfwWindow&) = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;

  GLFWwindow* get() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace impulse::testbed
