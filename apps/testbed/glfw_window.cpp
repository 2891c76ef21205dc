#include "glfw_window.h"

#include <stdexcept>

namespace impulse::testbed {
namespace {

std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description ? description : "unknown GLFW error";
}

}  // namespace

GlfwWindow::GlfwWindow(int width, int height, const std::string& title, bool visible) {
  if (!glfwInit()) throw std::runtime_error("cannot start GLFW: " + glfw_error());
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string reason = glfw_error();
    glfwTerminate();
    throw std::runtime_error("cannot open an OpenGL 3.3 window: " + reason);
  }
  glfwMakeContextCurrent(window_);
}

GlfwWindow::~GlfwWindow() {
  glfwDestroyWindow(window_);
  glfwTerminate();
}

}  // namespace impulse::testbed
