#pragma once
// Restitution as a collision pass before the contact solve (Guendelman, Bridson and Fedkiw 2003,
// "Nonconvex rigid bodies with stacking": collisions, then contacts). One pass visits the
// manifolds in turn; a manifold whose points close this step faster than the restitution
// threshold gets the impulses (lambda >= 0, its points solved together, friction within its
// Coulomb bound of them) that make each such point leave at e times the speed it strikes with (seed
// 004's target velocity; below), from the velocities as they are when it is visited. Passes repeat
// until no manifold approaches, so an impact runs down a row of touching bodies: Newton's cradle
// passes the first ball's speed to the last, where a simultaneous solve moves the four struck balls
// together at 40% of it. Contacts with restitution 0 are left to the contact solve alone.
//
// An impact strikes when its contact closes, not at the step's start: a ball a gap g above the
// floor closing at speed v meets it about g / v into the step, at the speed it has gained by then,
// and leaves from the floor. impact_pass.cpp (strike_within_step) follows the point's separation
// through the step under the step's forces to the strike and gives the velocity the speed the
// ball has at mid-step after leaving (the integrator's velocity is a mid-step one). The positions
// then miss the velocity change for the share of the step before the strike, tc / dt: the body
// moves with v - lag, lag the change times that share, and ends where the bounced path ends.
// Struck at the step's start, from where the step found it, a ball of e = 0.5 rebounded to 17%
// above e^2 of its drop at 60 Hz. Only a body whose velocity is its own this step keeps a lag: one
// struck by immovable bodies alone, with no joint and no contact with another movable body. The
// solve shares the others' velocity changes with the bodies they are joined to or touch (a box
// under a bouncing ball is stopped again by the floor, a jointed partner moves with the struck
// body), which the lag of the struck body alone would pull apart. They bounce from where the step
// found them, as before, leaving at e times the speed they met with: the strike's speed without
// its held-back move gained energy (a restitution-1 ball on a slack rope climbed 5 to 6.8 m).

#include <span>

#include "collision/contact_manager.h"
#include "constraints/contact_rows.h"
#include "constraints/rows.h"

namespace impulse {

/// Passes over the manifolds at most (an impact travels one body per pass at worst).
inline constexpr int k_max_impact_passes = 16;

/// Applies the impact impulses to velocities. masses(body) gives a body's SolverBodyMass;
/// material(manifold) the pair's combined friction and restitution; active(manifold) whether it
/// may act;
/// lag(body) the body's lag to add to (zero at the step's start), or null where the body keeps
/// none.
template <class Active, class Material, class Masses, class Lag>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     Active&& active, Material&& material, Masses&& masses, Lag&& lag,
                     const ContactRowSettings& settings);

/// One body's side of a manifold's impact: its mass, its velocity and its lag (or null).
struct ImpactBody {
  const BodyMotion& motion;
  const SolverBodyMass& mass;
  BodyVelocity& velocity;
  BodyVelocity* lag;
};

/// One manifold's impact (see resolve_impacts); returns whether any of its points approached.
bool resolve_manifold_impact(const ContactManifold& manifold, const ImpactBody& a,
                             const ImpactBody& b, const ContactMaterial& material,
                             const ContactRowSettings& settings);

template <class Active, class Material, class Masses, class Lag>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     Active&& active, Material&& material, Masses&& masses, Lag&& lag,
                     const ContactRowSettings& settings) {
  for (int pass = 0; pass < k_max_impact_passes; ++pass) {
    bool any = false;
    for (const ContactManifold& m : manifolds) {
      if (!active(m)) continue;
      const ContactMaterial pair = material(m);
      if (pair.restitution <= 0) continue;
      const SolverBodyMass mass_a = masses(m.body_a), mass_b = masses(m.body_b);
      any |= resolve_manifold_impact(
          m, {motions[m.body_a], mass_a, velocities[m.body_a], lag(m.body_a)},
          {motions[m.body_b], mass_b, velocities[m.body_b], lag(m.body_b)}, pair, settings);
    }
    if (!any) return;
  }
}

}  // namespace impulse
