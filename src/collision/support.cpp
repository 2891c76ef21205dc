#include "collision/support.h"

namespace impulse {

Vec3 support(const Sphere& shape, const Vec3& direction) {
  return shape.radius * normalize(direction);
}

Vec3 support(const Box& shape, const Vec3& direction) {
  const Vec3& h = shape.half_extents;
  return {direction.x < 0 ? -h.x : h.x, direction.y < 0 ? -h.y : h.y, direction.z < 0 ? -h.z : h.z};
}

Vec3 support(const Capsule& shape, const Vec3& direction) {
  const Real end = direction.y < 0 ? -shape.half_height : shape.half_height;
  return Vec3{0, end, 0} + shape.radius * normalize(direction);
}

}  // namespace impulse
