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
//
// An impact strikes when its contact closes, not at the step's start: a ball a gap g above the
// floor closing at speed v meets it about g / v into the step, at the speed it has gained by then,
// and leaves from the floor. impact_pass.cpp (strike_within_step) follows the point's separation
// through the step under the step's forces, and gives the velocity the speed the ball has at
// mid-step after leaving (the integrator's velocity is a mid-step one) and the positions the end
// of that path: they move with v - lag, the lag a share of the impact's velocity change (the part
// before the strike, about g / v). Struck at the step's start, from where the step found it, a
// ball of e = 0.5 rebounded to 17% above e^2 of its drop at 60 Hz. A body struck through another
// (the cradle's chain) takes that one's share if later.

#include <span>

#include "collision/contact_manager.h"
#include "constraints/contact_rows.h"
#include "constraints/rows.h"

namespace impulse {

/// Passes over the manifolds at most (an impact travels one body per pass at worst).
inline constexpr int k_max_impact_passes = 16;

/// Per body, zero at the step's start: `lags` sums each impact's velocity change times its share
/// the positions miss (the body moves with v - lag); `times` holds the share of its latest impact.
struct ImpactTimes {
  std::span<BodyVelocity> lags;
  std::span<Real> times;
};

/// Applies the impact impulses to velocities and records when they struck in `times`. masses(body)
/// gives a body's SolverBodyMass; restitution(manifold) the pair's combined restitution;
/// active(manifold) whether it may act.
template <class Active, class Restitution, class Masses>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     const ImpactTimes& times, Active&& active, Restitution&& restitution,
                     Masses&& masses, const ContactRowSettings& settings);

/// One body's side of a manifold's impact: its mass, its velocity and when it was last struck.
struct ImpactBody {
  const BodyMotion& motion;
  const SolverBodyMass& mass;
  BodyVelocity& velocity;
  BodyVelocity& lag;
  Real& time;
};

/// One manifold's impact (see resolve_impacts); returns whether any of its points approached.
bool resolve_manifold_impact(const ContactManifold& manifold, const ImpactBody& a,
                             const ImpactBody& b, Real restitution,
                             const ContactRowSettings& settings);

template <class Active, class Restitution, class Masses>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     const ImpactTimes& times, Active&& active, Restitution&& restitution,
                     Masses&& masses, const ContactRowSettings& settings) {
  for (int pass = 0; pass < k_max_impact_passes; ++pass) {
    bool any = false;
    for (const ContactManifold& m : manifolds) {
      if (!active(m)) continue;
      const Real e = restitution(m);
      if (e <= 0) continue;
      const auto side = [&](std::uint32_t body, const SolverBodyMass& mass) {
        return ImpactBody{motions[body], mass, velocities[body], times.lags[body],
                          times.times[body]};
      };
      const SolverBodyMass mass_a = masses(m.body_a), mass_b = masses(m.body_b);
      any |=
          resolve_manifold_impact(m, side(m.body_a, mass_a), side(m.body_b, mass_b), e, settings);
    }
    if (!any) return;
  }
}

}  // namespace impulse
