#pragma once
// Restitution as a collision pass before the contact solve (Guendelman, Bridson and Fedkiw 2003,
// "Nonconvex rigid bodies with stacking": collisions, then contacts). A pass finds the manifolds
// whose points close this step faster than the restitution threshold, from the velocities as the
// pass finds them, and gives them together the impulses (lambda >= 0, friction within its Coulomb
// bound of them) that make each such point leave at e times the speed it strikes with (seed 004's
// target velocity; below): Gauss-Seidel over their points until the impulses settle. So a ball
// dropped onto two resting balls sends them off alike whichever the world holds first (visited
// one manifold after the other, the first visited took more of the blow: -0.63 and +0.44 m/s
// sideways). Passes repeat until no manifold approaches, so an impact runs down a row of touching
// bodies: Newton's cradle passes the first ball's speed to the last (each next contact closes
// only in the next pass), where a simultaneous solve of every contact moves the four struck balls
// together at 40% of it.
// Contacts with restitution 0 are left to the contact solve alone.
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

#include <array>
#include <span>
#include <vector>

#include "collision/contact_manager.h"
#include "constraints/contact_rows.h"
#include "constraints/rows.h"

namespace impulse {

/// Passes over the manifolds at most (an impact travels one body per pass at worst).
inline constexpr int k_max_impact_passes = 16;

/// One body's side of a manifold's impact: its mass, its velocity and its lag (or null).
struct ImpactBody {
  const BodyMotion& motion;
  const SolverBodyMass& mass;
  BodyVelocity& velocity;
  BodyVelocity* lag;
};

/// One manifold's impact in a pass: its points that strike, their targets and impulses so far.
struct ManifoldImpact {
  struct Point {
    Vec3 ra, rb;
    Real inv_k = 0;   // 1 / (J M^-1 J^T) along n
    Real target = 0;  // the leaving speed
    Real lambda = 0;
    Vec3 friction;  // the tangential impulse, within friction times lambda
  };
  std::array<Point, Manifold::k_max_points> points;
  int count = 0;
  Vec3 n;
  Real friction = 0;
  SolverBodyMass mass_a, mass_b;
  BodyVelocity *va = nullptr, *vb = nullptr;
  BodyVelocity *lag_a = nullptr, *lag_b = nullptr;  // null: the body keeps no lag
  Real strikes = 1;                 // the share of the step before its first point strikes
  BodyVelocity change_a, change_b;  // the velocity changes of its impulses so far
};

/// A manifold's impact as the velocities now give it; false when none of its points strikes.
bool begin_manifold_impact(const ContactManifold& manifold, const ImpactBody& a,
                           const ImpactBody& b, const ContactMaterial& material,
                           const ContactRowSettings& settings, ManifoldImpact& impact);

/// The impulses of a pass's impacts, solved together (see resolve_impacts), applied to the
/// velocities, and their lags.
void solve_impacts(std::span<ManifoldImpact> impacts);

/// Applies the impact impulses to velocities. masses(body) gives a body's SolverBodyMass;
/// material(manifold) the pair's combined friction and restitution; active(manifold) whether it
/// may act;
/// lag(body) the body's lag to add to (zero at the step's start), or null where the body keeps
/// none. scratch: the pass's impacts (kept for its capacity).
template <class Active, class Material, class Masses, class Lag>
void resolve_impacts(std::span<const ContactManifold> manifolds,
                     std::span<const BodyMotion> motions, std::span<BodyVelocity> velocities,
                     Active&& active, Material&& material, Masses&& masses, Lag&& lag,
                     const ContactRowSettings& settings, std::vector<ManifoldImpact>& scratch) {
  for (int pass = 0; pass < k_max_impact_passes; ++pass) {
    // The impacts that strike as the pass finds the velocities, all of them before any is solved.
    scratch.clear();
    for (const ContactManifold& m : manifolds) {
      if (!active(m)) continue;
      const ContactMaterial pair = material(m);
      if (pair.restitution <= 0) continue;
      const SolverBodyMass mass_a = masses(m.body_a), mass_b = masses(m.body_b);
      ManifoldImpact impact;
      if (begin_manifold_impact(m, {motions[m.body_a], mass_a, velocities[m.body_a], lag(m.body_a)},
                                {motions[m.body_b], mass_b, velocities[m.body_b], lag(m.body_b)},
                                pair, settings, impact))
        scratch.push_back(impact);
    }
    if (scratch.empty()) return;
    solve_impacts(scratch);
  }
}

}  // namespace impulse
