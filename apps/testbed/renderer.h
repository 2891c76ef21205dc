#pragma once
// OpenGL 3.3 core drawing: shaded meshes under one directional light, and coloured lines.
// Needs a current context; owns its GL objects.

#include <cstddef>
#include <vector>

#include "gl.h"
#include "line_batch.h"
#include "mat4.h"
#include "shape_meshes.h"

namespace impulse::testbed {

/// A mesh uploaded to the GPU.
struct GpuMesh {
  GLuint vertex_array = 0;
  GLuint buffers[2] = {0, 0};  // vertices, indices
  GLsizei index_count = 0;
};

class Renderer {
 public:
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Uploads a mesh and returns its handle for draw_mesh.
  std::size_t upload(const TriangleMesh& mesh);
  /// Frees every uploaded mesh (a new scene).
  void clear_meshes();

  /// Clears the viewport and sets the camera of the frame.
  void begin(int width, int height, const Mat4& view, const Mat4& projection);
  void draw_mesh(std::size_t mesh, const Mat4& model, const Color& color);
  /// Lines among the meshes (depth tested), or over them all (on_top: debug drawing).
  void draw_lines(const LineBatch& lines, bool on_top);

 private:
  GLuint mesh_program_ = 0;
  GLuint line_program_ = 0;
  GLuint line_array_ = 0;
  GLuint line_buffer_ = 0;
  Mat4 view_projection_;
  std::vector<GpuMesh> meshes_;
};

}  // namespace impulse::testbed
