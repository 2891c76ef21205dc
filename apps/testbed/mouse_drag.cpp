#include "mouse_drag.h"

namespace impulse::testbed {
namespace {

// Fraction of the distance closed per step (Baumgarte's beta): soft rather than a snap.
constexpr Real k_beta = Real(0.2);

}  // namespace

bool MouseDrag::grab(World& world, const Ray& ray, Real max_ray_length) {
  release(world);
  const auto hit = world.raycast(ray.origin, ray.direction * max_ray_length);
  if (!hit || world.type(hit->body) != BodyType::dynamic_body) return false;
  auto state = std::make_shared<State>();
  state->body = hit->body;
  state->local_anchor = apply_inverse(world.transform(hit->body), hit->point);
  state->target = hit->point;
  const Real weight = world.mass_properties(hit->body).mass * length(world.settings().gravity);
  state->max_force = Real(strength) * (weight > 0 ? weight : world.mass_properties(hit->body).mass);
  distance_ = hit->fraction * max_ray_length;
  constraint_ = world.add_custom_constraint([state](const World& w, Real dt, RowWriter& rows) {
    if (!w.is_valid(state->body)) return;
    const Vec3 anchor = apply(w.transform(state->body), state->local_anchor);
    const Vec3 arm = anchor - w.center_of_mass(state->body);
    const Vec3 error = state->target - anchor;
    const Real cap = state->max_force * dt;
    for (int axis = 0; axis < 3; ++axis) {
      Vec3 e;
      e[axis] = 1;
      ConstraintRow row;
      row.body_a = state->body;  // body_b null: pulled toward a point of the world
      row.linear_a = e;          // the anchor's velocity along e: v + w x arm
      row.angular_a = cross(arm, e);
      row.bias = k_beta / dt * error[axis];
      row.lo = -cap;
      row.hi = cap;
      rows.add(row);
    }
  });
  state_ = std::move(state);
  world.set_linear_velocity(hit->body, world.linear_velocity(hit->body));  // wakes it
  return true;
}

void MouseDrag::move(World& world, const Ray& ray) {
  if (!state_ || !world.is_valid(state_->body)) return;
  state_->target = ray.origin + ray.direction * distance_;
  // A body held still falls asleep, and a sleeping body ignores the pull: wake it.
  world.set_linear_velocity(state_->body, world.linear_velocity(state_->body));
}

void MouseDrag::release(World& world) {
  if (!state_) return;
  world.remove_custom_constraint(constraint_);
  // Held still, it may have fallen asleep: without the pull it must fall.
  if (world.is_valid(state_->body))
    world.set_linear_velocity(state_->body, world.linear_velocity(state_->body));
  state_.reset();
}

std::optional<std::pair<Vec3, Vec3>> MouseDrag::anchor_and_target(const World& world) const {
  if (!state_ || !world.is_valid(state_->body)) return std::nullopt;
  return std::pair{apply(world.transform(state_->body), state_->local_anchor), state_->target};
}

}  // namespace impulse::testbed
