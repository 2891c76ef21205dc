#pragma once
// Restitution as a collision pass before the contact solve (Guendelman, Bridson and Fedkiw 2003,
// "Nonconvex rigid bodies with stacking": collisions, then contacts). One pass visits the
// manifolds in turn; a manifold whose points close this step faster than the restitution
// threshold gets the impulses (lambda >= 0, its points solved together) that make each such
// point leave at e times its approach speed (seed 004's target velocity), from the velocities as
// they are when it is visited. Passes repeat until no manifold approaches, so an impact runs down
// a row of touching bodies: Newton's cradle passes the first ball's speed to the last, where a
// simultaneous solve moves the four struck balls together at 40% of it. Contacts with restitution
// 0 are left to the contact solve alone.

#include <span>

#include "collision/contact_manager.h"
#include "constraints/contact_rows.h"
#include "constraints/rows.h"

namespace impulse {

/// Passes over the manifolds at most (an impact travels one body per pass at worst).
inline constexpr int k_max_impact_passes = 16;

/// Applies the impact impulses to velocities. masses(body) gives a body's SolverBodyMass;
/// restitution(manifold) the pair's combined restitution; active(manifold) whether it may act.
template <class Active, class Restitution, class Masses>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     Active&& active, Restitution&& restitution, Masses&& masses,
                     const ContactRowSettings& settings);

/// One manifold's impact (see resolve_impacts); returns whether any of its points approached.
bool resolve_manifold_impact(const ContactManifold& manifold, const BodyMotion& a,
                             const BodyMotion& b, const SolverBodyMass& mass_a,
                             const SolverBodyMass& mass_b, BodyVelocity& va, BodyVelocity& vb,
                             Real restitution, const ContactRowSettings& settings);

template <class Active, class Restitution, class Masses>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     Active&& active, Restitution&& restitution, Masses&& masses,
                     const ContactRowSettings& settings) {
  for (int pass = 0; pass < k_max_impact_passes; ++pass) {
    bool any = false;
    for (const ContactManifold& m : manifolds) {
      if (!active(m)) continue;
      const Real e = restitution(m);
      if (e <= 0) continue;
      any |= resolve_manifold_impact(m, motions[m.body_a], motions[m.body_b], masses(m.body_a),
                                     masses(m.body_b), velocities[m.body_a], velocities[m.body_b],
                                     e, settings);
    }
    if (!any) return;
  }
}

}  // namespace impulse
