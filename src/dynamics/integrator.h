#pragma once
// Semi-implicit (symplectic) Euler: velocities from forces first, then positions from the new
// velocities (seed 001 section 6, eq. 36-37).

#include "dynamics/body_storage.h"

#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

struct IntegrationSettings {
  Vec3 gravity;
  Real dt = 0;
  bool gyroscopic = false;
};

/// v += dt (F / m + g), w += dt I^-1 tau, then the gyroscopic term and damping, for the dynamic
/// bodies among `slots`; clears their accumulated forces.
void integrate_velocities(std::span<const std::uint32_t> slots, std::span<BodyMotion> motions,
                          std::span<BodyVelocity> velocities, const IntegrationSettings& settings);

/// Scales down any linear or angular velocity among `slots` faster than the given speeds, keeping
/// its direction; appends the slots it slowed to `clamped`.
void clamp_velocities(std::span<const std::uint32_t> slots, std::span<BodyVelocity> velocities,
                      Real max_linear_speed, Real max_angular_speed,
                      std::vector<std::uint32_t>& clamped);

/// x += dt v, q += dt/2 w * q (normalised) for the dynamic and kinematic bodies among `slots`.
void integrate_positions(std::span<const std::uint32_t> slots, std::span<BodyMotion> motions,
                         std::span<const BodyVelocity> velocities, Real dt);

/// Torque-free motion I dw/dt = -w x I w over dt, body frame in and out: an implicit rule matched
/// to integrate_positions that keeps the world-frame angular momentum exactly and never gains
/// energy, for any dt (the derivation is in integrator.cpp and docs/integration.md).
Vec3 gyroscopic_step(const Mat33& inertia, const Vec3& w_body, Real dt);

}  // namespace impulse
