#include "dynamics/integrator.h"

#include <algorithm>
#include <cmath>

namespace impulse {
namespace {

constexpr int k_gyroscopic_newton_iterations = 4;

}  // namespace

Vec3 gyroscopic_step(const Mat33& inertia, const Vec3& w_body, Real dt) {
  // integrate_positions turns the body by cay(dt w2), the Cayley map (the rotation that
  // normalize(q + dt/2 w * q) makes), about w2 itself, so w2 means the same in the body frame
  // before and after the turn. Asking the body-frame momentum to turn back by that map,
  //   I w2 = cay(dt w2)^-1 I w1   <=>   g(w2) = I w2 - L1 + dt/2 w2 x (L1 + I w2) = 0,
  // keeps the world-frame momentum R I w exactly; and since (L2 - L1) . w2 = 0 the energy
  // changes by -(L2 - L1) . I^-1 (L2 - L1) / 2 <= 0: never gained, whatever dt.
  const Vec3 l1 = inertia * w_body;
  const Real half_dt = Real(0.5) * dt;
  Vec3 w2 = w_body;
  for (int i = 0; i < k_gyroscopic_newton_iterations; ++i) {
    const Vec3 l_sum = l1 + inertia * w2;
    const Vec3 g = inertia * w2 - l1 + half_dt * cross(w2, l_sum);
    const Mat33 jacobian = inertia + (Mat33::skew(w2) * inertia - Mat33::skew(l_sum)) * half_dt;
    w2 -= inverse(jacobian) * g;
  }
  return w2;
}

void integrate_velocities(std::span<const std::uint32_t> slots, std::span<BodyMotion> motions,
                          std::span<BodyVelocity> velocities, const IntegrationSettings& settings) {
  const Real dt = settings.dt;
  for (const std::uint32_t i : slots) {
    BodyMotion& m = motions[i];
    if (m.type != BodyType::dynamic_body) continue;
    BodyVelocity& v = velocities[i];
    v.linear += dt * m.allowed_linear(m.inv_mass * m.force + m.gravity_scale * settings.gravity);
    v.angular += dt * (m.inv_inertia_world * m.torque);  // a plane body's turns only about n
    // Turning about the plane normal n, w x I w has no part along n: no gyroscopic change.
    if (settings.gyroscopic && m.plane_normal == Vec3::zero()) {
      const Vec3 w_body = inverse_rotate(m.orientation, v.angular);
      v.angular = rotate(m.orientation, gyroscopic_step(m.inertia_local, w_body, dt));
    }
    // Implicit damping: stable for any coefficient, exact decay in the limit of small dt.
    v.linear *= Real(1) / (Real(1) + dt * m.linear_damping);
    v.angular *= Real(1) / (Real(1) + dt * m.angular_damping);
    m.force = Vec3::zero();
    m.torque = Vec3::zero();
  }
}

void clamp_velocities(std::span<const std::uint32_t> slots, std::span<BodyVelocity> velocities,
                      Real max_linear_speed, Real max_angular_speed,
                      std::vector<std::uint32_t>& clamped) {
  const auto clamp = [](Vec3& v, Real max_speed) {
    // The speed is at most the components' magnitudes summed: most bodies are far below the
    // limit, and need no division to show it (a NaN anywhere fails it: the test below decides).
    if ((std::abs(v.x) + std::abs(v.y) + std::abs(v.z)) * Real(1.01) <= max_speed) return false;
    // Scaled by the largest component first: the square of a speed of 1e19 overflows a float.
    const Real largest = std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
    if (!(largest > 0) || !is_finite(largest)) return false;
    const Vec3 direction = v / largest;
    const Real length_of_direction = length(direction);
    if (largest * length_of_direction <= max_speed) return false;
    v = direction * (max_speed / length_of_direction);
    return true;
  };
  for (const std::uint32_t i : slots) {
    const bool linear = clamp(velocities[i].linear, max_linear_speed);
    if (clamp(velocities[i].angular, max_angular_speed) || linear) clamped.push_back(i);
  }
}

void integrate_positions(std::span<const std::uint32_t> slots, std::span<BodyMotion> motions,
                         std::span<const BodyVelocity> velocities, Real dt) {
  for (const std::uint32_t i : slots) {
    BodyMotion& m = motions[i];
    if (m.type == BodyType::static_body) continue;
    const BodyVelocity& v = velocities[i];
    m.center += dt * v.linear;
    m.orientation = integrate(m.orientation, v.angular, dt);
    m.refresh_world_inertia();
  }
}

}  // namespace impulse
