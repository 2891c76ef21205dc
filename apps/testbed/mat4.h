#pragma once
// A column-major 4x4 float matrix, the layout OpenGL's uniforms take.

#include <impulse/math.h>

#include <array>
#include <cmath>

namespace impulse::testbed {

struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  float& operator()(int row, int col) { return m[std::size_t(col * 4 + row)]; }
  float operator()(int row, int col) const { return m[std::size_t(col * 4 + row)]; }

  friend Mat4 operator*(const Mat4& a, const Mat4& b) {
    Mat4 r;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        float s = 0;
        for (int k = 0; k < 4; ++k)
          s += a(i, k) * b(k, j);
        r(i, j) = s;
      }
    }
    return r;
  }
};

/// The pose with a per-axis scale applied first: x -> position + R (scale * x).
inline Mat4 model_matrix(const Transform& pose, const Vec3& scale = {1, 1, 1}) {
  const Mat33 r = to_matrix(pose.orientation);
  Mat4 out;
  for (int c = 0; c < 3; ++c) {
    for (int row = 0; row < 3; ++row)
      out(row, c) = float(r(row, c) * scale[c]);
    out(c, 3) = float(pose.position[c]);
  }
  return out;
}

inline Mat4 perspective(float fov_y, float aspect, float near, float far) {
  const float f = 1.0f / std::tan(fov_y / 2);
  Mat4 p;
  p.m.fill(0);
  p(0, 0) = f / aspect;
  p(1, 1) = f;
  p(2, 2) = (far + near) / (near - far);
  p(2, 3) = 2 * far * near / (near - far);
  p(3, 2) = -1;
  return p;
}

inline Mat4 look_at(const Vec3& eye, const Vec3& target, const Vec3& up) {
  const Vec3 f = normalize(target - eye);
  const Vec3 s = normalize(cross(f, up));
  const Vec3 u = cross(s, f);
  Mat4 v;
  for (int c = 0; c < 3; ++c) {
    v(0, c) = float(s[c]);
    v(1, c) = float(u[c]);
    v(2, c) = float(-f[c]);
  }
  v(0, 3) = float(-dot(s, eye));
  v(1, 3) = float(-dot(u, eye));
  v(2, 3) = float(dot(f, eye));
  return v;
}

}  // namespace impulse::testbed
