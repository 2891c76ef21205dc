#pragma once
// The one place the testbed includes OpenGL: core 3.3 entry points straight from Mesa's libGL
// (it exports them, so no loader is needed), GLFW without its own GL header.

#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
#include <GLFW/glfw3.h>
