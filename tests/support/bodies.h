#pragma once
// Body settings written briefly, for tests that build small worlds.

#include <impulse/world.h>

namespace impulse::testing {

inline BodySettings body_of(const ShapeGeometry& geometry, const Vec3& position,
                            BodyType type = BodyType::dynamic_body) {
  BodySettings s;
  s.type = type;
  s.shapes = {ShapeSettings{geometry, {}}};
  s.position = position;
  return s;
}

/// A static box whose top face is the plane y = 0.
inline BodySettings ground_box(Real half_width = 50, Real half_height = Real(0.5)) {
  return body_of(Box{{half_width, half_height, half_width}}, {0, -half_height, 0},
                 BodyType::static_body);
}

}  // namespace impulse::testing
