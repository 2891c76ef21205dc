#include "constraints/impact_pass.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

namespace impulse {
namespace {

// Gauss-Seidel sweeps over a manifold's points: enough for four points to share an impact.
constexpr int k_point_sweeps = 4;
// Manifolds that strike in one pass are swept together until their impulses settle to this share
// of the largest, or this many sweeps.
constexpr Real k_settled = Real(1e-6);
constexpr int k_max_sweeps = 64;

// A point's impact inside the step, along its normal.
struct Strike {
  Real target = 0;  // the normal speed to leave with, as the step's velocity
  Real time = 0;    // the share of the step before it strikes
  Real speed = 0;   // the normal speed it strikes with (< 0 closing)
};

// The separation s of a point a gap g >= 0 apart, closing with the speed `met` before this step's
// forces and `approach` after them, follows s(t) = g + s0 t + a t^2 / 2 over the step, a the
// forces' acceleration (approach - met) / dt and s0 = met + a dt / 2, the speed at the step's
// start: the integrator moves a body with its velocity after the forces, the speed at mid-step
// (x += dt v after v += dt a retraces that parabola exactly). It strikes when s(tc) = 0, at speed
// sc = s0 + a tc, and leaves at -e sc with the mid-step speed -e sc + a (dt / 2 - tc) (`target`).
// On from there the step ends at s1 = -e sc (dt - tc) + a (dt - tc)^2 / 2, which is where moving
// with the target less tc / dt of the change (target - approach) puts it: the positions miss the
// change for the share of the step before the strike.
Strike strike_within_step(Real gap, Real met, Real approach, Real restitution, Real dt) {
  const Real a = (approach - met) / dt;
  const Real s0 = met + a * dt / 2;
  // The smaller root of g + s0 t + a t^2 / 2, written without cancellation; the step's
  // positions close the gap (approach dt <= -g), and so does the parabola within dt.
  const Real root = std::sqrt(std::max(s0 * s0 - 2 * a * gap, Real(0)));
  const Real tc = gap > 0 && root - s0 > 0 ? std::min(2 * gap / (root - s0), dt) : Real(0);
  const Real sc = s0 + a * tc;
  return {-restitution * sc + a * (dt / 2 - tc), tc / dt, sc};
}

// J M^-1 J^T for an impulse along the unit direction u at the point.
Real response(const ManifoldImpact& impact, const ManifoldImpact::Point& p, const Vec3& u) {
  const Vec3 ra_u = cross(p.ra, u), rb_u = cross(p.rb, u);
  return dot(u, impact.mass_a.linear_response(u)) + dot(u, impact.mass_b.linear_response(u)) +
         dot(ra_u, impact.mass_a.inv_inertia * ra_u) + dot(rb_u, impact.mass_b.inv_inertia * rb_u);
}

Vec3 relative_velocity(const ManifoldImpact& impact, const ManifoldImpact::Point& p) {
  return relative_velocity_at(*impact.va, p.ra, *impact.vb, p.rb);
}

// An impulse j at the point pushes b along j and a against it; the impact keeps its share of the
// velocity changes for the lags.
void apply(ManifoldImpact& impact, const ManifoldImpact::Point& p, const Vec3& j) {
  const BodyVelocity da{-impact.mass_a.linear_response(j),
                        -(impact.mass_a.inv_inertia * cross(p.ra, j))};
  const BodyVelocity db{impact.mass_b.linear_response(j),
                        impact.mass_b.inv_inertia * cross(p.rb, j)};
  for (const auto& [v, change, d] :
       {std::tuple{impact.va, &impact.change_a, da}, std::tuple{impact.vb, &impact.change_b, db}}) {
    v->linear += d.linear;
    v->angular += d.angular;
    change->linear += d.linear;
    change->angular += d.angular;
  }
}

// One Gauss-Seidel sweep over the points' normal impulses toward their targets; change and
// largest take the largest impulse change and impulse.
void normal_sweep(ManifoldImpact& impact, Real& change, Real& largest) {
  for (int k = 0; k < impact.count; ++k) {
    ManifoldImpact::Point& p = impact.points[std::size_t(k)];
    const Real normal_speed = dot(impact.n, relative_velocity(impact, p));
    const Real lambda = std::max(p.lambda + (p.target - normal_speed) * p.inv_k, Real(0));
    apply(impact, p, impact.n * (lambda - p.lambda));
    change = std::max(change, std::abs(lambda - p.lambda));
    largest = std::max(largest, lambda);
    p.lambda = lambda;
  }
}

// One sweep stopping each point's slip within friction times its normal impulse.
void friction_sweep(ManifoldImpact& impact) {
  for (int k = 0; k < impact.count; ++k) {
    ManifoldImpact::Point& p = impact.points[std::size_t(k)];
    const Vec3 v = relative_velocity(impact, p);
    const Vec3 slip = v - impact.n * dot(impact.n, v);
    const Real slip_speed = length(slip);
    const Real bound = impact.friction * p.lambda;
    if (!(slip_speed > 0) || !(bound > 0)) continue;
    const Vec3 t = slip / slip_speed;
    const Real k_t = response(impact, p, t);
    if (!(k_t > 0)) continue;
    Vec3 friction = p.friction - t * (slip_speed / k_t);
    const Real magnitude = length(friction);
    if (magnitude > bound) friction *= bound / magnitude;
    apply(impact, p, friction - p.friction);
    p.friction = friction;
  }
}

}  // namespace

bool begin_manifold_impact(const ContactManifold& manifold, const ImpactBody& a,
                           const ImpactBody& b, const ContactMaterial& material,
                           const ContactRowSettings& settings, ManifoldImpact& impact) {
  const Vec3 n = manifold.normal;
  const Real restitution = material.restitution;
  impact.n = n;
  impact.friction = material.friction;
  impact.mass_a = a.mass;
  impact.mass_b = b.mass;
  impact.va = &a.velocity;
  impact.vb = &b.velocity;
  // Struck within the step only where every movable side keeps a lag; else at the step's start,
  // from where the step found it, leaving at e times the speed it met with (which keeps energy
  // on that discrete path: the strike's speed without the lag's held-back move gained it).
  const bool within_step =
      (a.lag != nullptr || !a.mass.movable()) && (b.lag != nullptr || !b.mass.movable());
  impact.lag_a = within_step ? a.lag : nullptr;
  impact.lag_b = within_step ? b.lag : nullptr;
  impact.strikes = 1;
  impact.change_a = impact.change_b = {};
  impact.count = 0;
  for (int k = 0; k < manifold.count; ++k) {
    const ContactPoint& c = manifold.points[std::size_t(k)].point;
    ManifoldImpact::Point& p = impact.points[std::size_t(impact.count)];
    const ActingPoints at = acting_points(c, n);
    p = {};
    p.ra = at.on_a - a.motion.center;
    p.rb = at.on_b - b.motion.center;
    const Real approach = dot(n, relative_velocity_at(a.velocity, p.ra, b.velocity, p.rb));
    // As the contact rows judge it: touching within this step, and met fast enough.
    if (!touches_within(c.depth, approach, settings.dt)) continue;
    const Real met =
        approach_before_forces(approach, n, manifold.body_a, p.ra, manifold.body_b, p.rb, settings);
    const Strike strike =
        strike_within_step(std::max(-c.depth, Real(0)), met, approach, restitution, settings.dt);
    // The threshold holds for the speed it strikes with: a ball dropped 70 mm meets the floor at
    // 1.17 m/s within a step that it began at 0.98 m/s.
    if (strike.speed >= -settings.solver->restitution_threshold) continue;
    const Real k_n = response(impact, p, n);
    if (!(k_n > 0)) continue;
    p.inv_k = 1 / k_n;
    p.target = within_step ? strike.target : -restitution * met;
    impact.strikes = std::min(impact.strikes, strike.time);
    ++impact.count;
  }
  return impact.count > 0;
}

void solve_impacts(std::span<ManifoldImpact> impacts) {
  // A manifold alone takes k_point_sweeps sweeps of its points; several share the bodies they
  // strike, and their sweeps continue until no impulse changes by more than k_settled of the
  // largest, at most k_max_sweeps.
  const bool alone = impacts.size() == 1;
  const auto sweep_all = [&](const auto& sweep) {
    for (int round = 0; round < (alone ? k_point_sweeps : k_max_sweeps); ++round) {
      Real change = 0, largest = 0;
      for (ManifoldImpact& impact : impacts)
        sweep(impact, change, largest);
      if (!alone && round + 1 >= k_point_sweeps && change <= k_settled * largest) return;
    }
  };
  sweep_all([](ManifoldImpact& impact, Real& change, Real& largest) {
    normal_sweep(impact, change, largest);
  });
  // Friction acts through the impact as Coulomb's law has it: the slip stopped by a tangential
  // impulse within friction times the normal one (the contact solve that follows sees the points
  // leave, a normal impulse of about zero, and so no friction). It follows the normal impulses'
  // sweeps, whose passing turns (a box's corners struck one after another) are no slip to resist.
  if (std::any_of(impacts.begin(), impacts.end(),
                  [](const ManifoldImpact& impact) { return impact.friction > 0; })) {
    sweep_all([](ManifoldImpact& impact, Real& change, Real& largest) {
      if (impact.friction > 0) friction_sweep(impact);
      normal_sweep(impact, change, largest);
    });
  }
  for (const ManifoldImpact& impact : impacts) {
    for (const auto& [lag, change] :
         {std::pair{impact.lag_a, impact.change_a}, std::pair{impact.lag_b, impact.change_b}}) {
      if (lag == nullptr) continue;
      lag->linear += impact.strikes * change.linear;
      lag->angular += impact.strikes * change.angular;
    }
  }
}

}  // namespace impulse
