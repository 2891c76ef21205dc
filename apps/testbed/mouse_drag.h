#pragma once
// Dragging a body with the mouse: a soft mouse joint made of a custom constraint (joints are not
// there yet). Three rows pull the grabbed point toward the target under the mouse with a speed
// proportional to the distance, their impulses capped so that the pull is a bounded force.

#include <impulse/world.h>

#include <memory>
#include <optional>
#include <utility>

#include "camera.h"

namespace impulse::testbed {

class MouseDrag {
 public:
  /// Grabs the dynamic body the ray hits first; false when it hits none.
  bool grab(World& world, const Ray& ray, Real max_ray_length);
  /// Moves the target to the grab distance along the new ray.
  void move(World& world, const Ray& ray);
  void release(World& world);
  /// Lets go without touching the world (it was rebuilt, and the constraint with it).
  void forget() { state_.reset(); }
  bool active() const { return state_ != nullptr; }
  /// The grabbed point and the target, while dragging.
  std::optional<std::pair<Vec3, Vec3>> anchor_and_target(const World& world) const;

  float strength = 30;  // the largest pull, in weights (m g) of the grabbed body

 private:
  struct State {
    BodyId body;
    Vec3 local_anchor;  // body frame
    Vec3 target;        // world
    Real max_force = 0;
  };
  std::shared_ptr<State> state_;  // shared with the constraint function
  ConstraintId constraint_;
  Real distance_ = 0;  // from the eye to the grabbed point
};

}  // namespace impulse::testbed
