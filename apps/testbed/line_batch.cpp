#include "line_batch.h"

#include <cmath>

namespace impulse::testbed {

void LineBatch::line(const Vec3& a, const Vec3& b, const Color& color) {
  vertices_.push_back({{float(a.x), float(a.y), float(a.z)}, color});
  vertices_.push_back({{float(b.x), float(b.y), float(b.z)}, color});
}

void LineBatch::arrow(const Vec3& from, const Vec3& to, const Color& color) {
  line(from, to, color);
  const Real head = length(to - from) * Real(0.15);
  if (head > Real(0)) cross_mark(to, head, color);
}

void LineBatch::box(const AABB& b, const Color& color) {
  const Vec3 lo = b.lower, hi = b.upper;
  for (int i = 0; i < 4; ++i) {
    const Real y = (i & 1) ? hi.y : lo.y, z = (i & 2) ? hi.z : lo.z;
    const Real x = (i & 1) ? hi.x : lo.x, y2 = (i & 2) ? hi.y : lo.y;
    line({lo.x, y, z}, {hi.x, y, z}, color);    // along x
    line({x, lo.y, z}, {x, hi.y, z}, color);    // along y
    line({x, y2, lo.z}, {x, y2, hi.z}, color);  // along z
  }
}

void LineBatch::cross_mark(const Vec3& p, Real h, const Color& color) {
  line(p - Vec3(h, 0, 0), p + Vec3(h, 0, 0), color);
  line(p - Vec3(0, h, 0), p + Vec3(0, h, 0), color);
  line(p - Vec3(0, 0, h), p + Vec3(0, 0, h), color);
}

void LineBatch::grid(Real y, Real half_size, Real spacing, const Color& color) {
  const int n = int(std::floor(half_size / spacing));
  for (int i = -n; i <= n; ++i) {
    const Real t = Real(i) * spacing;
    line({t, y, -half_size}, {t, y, half_size}, color);
    line({-half_size, y, t}, {half_size, y, t}, color);
  }
}

}  // namespace impulse::testbed
