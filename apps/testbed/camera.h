#pragma once
// An orbit camera: it looks at a target from a yaw, a pitch and a distance, y up.

#include <impulse/math.h>

#include "mat4.h"

namespace impulse::testbed {

struct Ray {
  Vec3 origin;
  Vec3 direction;  // unit
};

class OrbitCamera {
 public:
  /// Turns about the target by a mouse move of (dx, dy) pixels.
  void orbit(float dx, float dy);
  /// Slides the target in the view plane so that the point under the mouse follows it.
  void pan(float dx, float dy, int viewport_height);
  /// Moves closer (wheel > 0) or farther, by a fraction of the distance.
  void zoom(float wheel);
  /// Looks at the box from a distance at which all of it is in view.
  void frame(const AABB& box);

  Vec3 eye() const;
  Vec3 target() const { return target_; }
  Mat4 view() const;
  Mat4 projection(float aspect) const;
  /// The ray from the eye through pixel (x, y), y down, of a width x height viewport.
  Ray ray_through(float x, float y, int width, int height) const;

 private:
  Vec3 target_{0, 1, 0};
  float yaw_ = 0.6f;
  float pitch_ = 0.35f;
  float distance_ = 15;
  static constexpr float k_fov_y = 0.8f;  // rad
};

}  // namespace impulse::testbed
