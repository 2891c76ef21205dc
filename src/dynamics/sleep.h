#pragma once
// Islands and sleeping (DESIGN.md step 4). Dynamic bodies joined by contacts or constraints form
// an island (union-find); an island whose bodies have all stayed under the velocity thresholds
// for k_time_to_sleep sleeps: its velocities are zeroed, it is neither integrated nor solved, and
// its contacts are kept as they were. It wakes as a whole when an awake body touches it, when the
// API pushes, moves or removes one of its bodies or a neighbour.

#include "dynamics/world_impl.h"

namespace impulse {

/// A body idles while slower than these (m/s, rad/s); an island sleeps after idling this long (s).
inline constexpr Real k_sleep_linear_speed = Real(0.05);
inline constexpr Real k_sleep_angular_speed = Real(0.05);
inline constexpr Real k_time_to_sleep = Real(0.5);

/// Wakes the body and every body of the island it sleeps in.
void wake_body(World::Impl& impl, std::uint32_t slot);

/// Wakes sleeping bodies that an awake moving body touches, or reaches within the coming step of
/// dt (after the narrowphase).
void wake_touched_islands(World::Impl& impl, Real dt);

/// Whether the body can push others this step: an awake dynamic body, or a kinematic one in
/// motion.
bool is_moving(const World::Impl& impl, std::uint32_t slot);

/// Whether the solve moves the body: dynamic and awake (a frozen body sleeps). Rows between bodies
/// it does not move (a sleeping body on the ground) would be inert; none are written.
inline bool is_solved(const World::Impl& impl, std::uint32_t slot) {
  return impl.motions[slot].type == BodyType::dynamic_body && !impl.sleep[slot].asleep;
}

/// Whether a pair's contacts need the narrowphase this step: some body of it is awake and can
/// move (a pair that is all asleep or static keeps last step's contacts).
bool pair_is_active(const World::Impl& impl, std::uint32_t a, std::uint32_t b);

/// After the positions moved: idle timers, islands, and putting resting islands to sleep.
void update_sleep(World::Impl& impl, Real dt);

/// The awake live bodies, in creation order (what the step integrates).
void collect_awake(World::Impl& impl);

}  // namespace impulse
