#pragma once
// Coloured line segments gathered during a frame and drawn at once (grid and debug drawing).

#include <impulse/math.h>

#include <array>
#include <vector>

namespace impulse::testbed {

using Color = std::array<float, 3>;

struct LineVertex {
  std::array<float, 3> position;
  Color color;
};

class LineBatch {
 public:
  void clear() { vertices_.clear(); }
  void line(const Vec3& a, const Vec3& b, const Color& color);
  /// A line with a small cross at its end, pointing from `from` to `to`.
  void arrow(const Vec3& from, const Vec3& to, const Color& color);
  void box(const AABB& box, const Color& color);
  /// Three short axes through p.
  void cross_mark(const Vec3& p, Real half_size, const Color& color);
  /// Lines every `spacing` metres over [-half_size, half_size] in x and z, at height y.
  void grid(Real y, Real half_size, Real spacing, const Color& color);
  const std::vector<LineVertex>& vertices() const { return vertices_; }

 private:
  std::vector<LineVertex> vertices_;
};

}  // namespace impulse::testbed
