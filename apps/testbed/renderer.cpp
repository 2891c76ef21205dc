#include "renderer.h"

#include <stdexcept>
#include <string>

namespace impulse::testbed {
namespace {

constexpr const char* k_mesh_vertex = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 model;
uniform mat4 view_projection;
out vec3 world_normal;
void main() {
  world_normal = mat3(model) * normal;  // rigid motions only: no inverse transpose needed
  gl_Position = view_projection * model * vec4(position, 1.0);
}
)";

// A key light from above and in front, a weaker fill from the other side, and a sky/ground
// ambient term, so that every face of a box reads differently.
constexpr const char* k_mesh_fragment = R"(#version 330 core
in vec3 world_normal;
uniform vec3 color;
out vec4 frag_color;
void main() {
  vec3 n = normalize(gl_FrontFacing ? world_normal : -world_normal);
  vec3 key = normalize(vec3(0.4, 1.0, 0.6));
  vec3 fill = normalize(vec3(-0.6, 0.3, -0.5));
  float ambient = mix(0.25, 0.4, n.y * 0.5 + 0.5);
  float light = ambient + 0.65 * max(dot(n, key), 0.0) + 0.2 * max(dot(n, fill), 0.0);
  frag_color = vec4(pow(color * light, vec3(1.0 / 1.2)), 1.0);
}
)";

constexpr const char* k_line_vertex = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 color;
uniform mat4 view_projection;
out vec3 line_color;
void main() {
  line_color = color;
  gl_Position = view_projection * vec4(position, 1.0);
}
)";

constexpr const char* k_line_fragment = R"(#version 330 core
in vec3 line_color;
out vec4 frag_color;
void main() { frag_color = vec4(line_color, 1.0); }
)";

GLuint compile(GLenum type, const char* source) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("shader compilation failed: ") + log);
  }
  return shader;
}

GLuint link(const char* vertex, const char* fragment) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    glDeleteProgram(program);
    throw std::runtime_error(std::string("shader link failed: ") + log);
  }
  return program;
}

// Two vec3 attributes, interleaved, at locations 0 and 1.
void describe_two_vec3(GLsizei stride) {
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride,
                        reinterpret_cast<const void*>(3 * sizeof(float)));
}

void set_matrix(GLuint program, const char* name, const Mat4& m) {
  glUniformMatrix4fv(glGetUniformLocation(program, name), 1, GL_FALSE, m.m.data());
}

}  // namespace

Renderer::Renderer()
    : mesh_program_(link(k_mesh_vertex, k_mesh_fragment)),
      line_program_(link(k_line_vertex, k_line_fragment)) {
  glGenVertexArrays(1, &line_array_);
  glGenBuffers(1, &line_buffer_);
  glBindVertexArray(line_array_);
  glBindBuffer(GL_ARRAY_BUFFER, line_buffer_);
  describe_two_vec3(sizeof(LineVertex));
  glBindVertexArray(0);
}

Renderer::~Renderer() {
  clear_meshes();
  glDeleteBuffers(1, &line_buffer_);
  glDeleteVertexArrays(1, &line_array_);
  glDeleteProgram(mesh_program_);
  glDeleteProgram(line_program_);
}

std::size_t Renderer::upload(const TriangleMesh& mesh) {
  GpuMesh gpu;
  glGenVertexArrays(1, &gpu.vertex_array);
  glGenBuffers(2, gpu.buffers);
  glBindVertexArray(gpu.vertex_array);
  glBindBuffer(GL_ARRAY_BUFFER, gpu.buffers[0]);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(mesh.vertices.size() * sizeof(MeshVertex)),
               mesh.vertices.data(), GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gpu.buffers[1]);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(mesh.indices.size() * sizeof(std::uint32_t)),
               mesh.indices.data(), GL_STATIC_DRAW);
  describe_two_vec3(sizeof(MeshVertex));
  glBindVertexArray(0);
  gpu.index_count = GLsizei(mesh.indices.size());
  meshes_.push_back(gpu);
  return meshes_.size() - 1;
}

void Renderer::clear_meshes() {
  for (GpuMesh& mesh : meshes_) {
    glDeleteBuffers(2, mesh.buffers);
    glDeleteVertexArrays(1, &mesh.vertex_array);
  }
  meshes_.clear();
}

void Renderer::begin(int width, int height, const Mat4& view, const Mat4& projection) {
  view_projection_ = projection * view;
  glViewport(0, 0, width, height);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDisable(GL_CULL_FACE);  // planes and open meshes are seen from both sides
  glClearColor(0.16f, 0.18f, 0.22f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glUseProgram(mesh_program_);
  set_matrix(mesh_program_, "view_projection", view_projection_);
}

void Renderer::draw_mesh(std::size_t mesh, const Mat4& model, const Color& color) {
  const GpuMesh& gpu = meshes_.at(mesh);
  glUseProgram(mesh_program_);
  set_matrix(mesh_program_, "model", model);
  glUniform3f(glGetUniformLocation(mesh_program_, "color"), color[0], color[1], color[2]);
  glBindVertexArray(gpu.vertex_array);
  glDrawElements(GL_TRIANGLES, gpu.index_count, GL_UNSIGNED_INT, nullptr);
}

void Renderer::draw_lines(const LineBatch& lines, bool on_top) {
  if (lines.vertices().empty()) return;
  if (on_top) glDisable(GL_DEPTH_TEST);
  glUseProgram(line_program_);
  set_matrix(line_program_, "view_projection", view_projection_);
  glBindVertexArray(line_array_);
  glBindBuffer(GL_ARRAY_BUFFER, line_buffer_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(lines.vertices().size() * sizeof(LineVertex)),
               lines.vertices().data(), GL_STREAM_DRAW);
  glDrawArrays(GL_LINES, 0, GLsizei(lines.vertices().size()));
  glBindVertexArray(0);
  glEnable(GL_DEPTH_TEST);
}

}  // namespace impulse::testbed
