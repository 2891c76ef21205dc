#include "constraints/impact_pass.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace impulse {
namespace {

// Gauss-Seidel sweeps over a manifold's points: enough for four points to share an impact.
constexpr int k_point_sweeps = 4;

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

}  // namespace

bool resolve_manifold_impact(const ContactManifold& manifold, const ImpactBody& a,
                             const ImpactBody& b, const ContactMaterial& material,
                             const ContactRowSettings& settings) {
  const Vec3 n = manifold.normal;
  const Real restitution = material.restitution;
  struct Point {
    Vec3 ra, rb;
    Real inv_k = 0;   // 1 / (J M^-1 J^T) along n
    Real target = 0;  // the leaving speed (Strike::target)
    Real lambda = 0;
    Vec3 friction;  // the tangential impulse, within friction times lambda
  };
  std::array<Point, Manifold::k_max_points> points;
  int count = 0;
  BodyVelocity& va = a.velocity;
  BodyVelocity& vb = b.velocity;
  const auto normal_speed = [&](const Point& p) {
    return dot(n, relative_velocity_at(va, p.ra, vb, p.rb));
  };
  // J M^-1 J^T for an impulse along the unit direction u at the point.
  const auto response = [&](const Point& p, const Vec3& u) {
    const Vec3 ra_u = cross(p.ra, u), rb_u = cross(p.rb, u);
    return dot(u, a.mass.linear_response(u)) + dot(u, b.mass.linear_response(u)) +
           dot(ra_u, a.mass.inv_inertia * ra_u) + dot(rb_u, b.mass.inv_inertia * rb_u);
  };
  // An impulse j at the point pushes b along j and a against it.
  const auto apply = [&](const Point& p, const Vec3& j) {
    va.linear -= a.mass.linear_response(j);
    va.angular -= a.mass.inv_inertia * cross(p.ra, j);
    vb.linear += b.mass.linear_response(j);
    vb.angular += b.mass.inv_inertia * cross(p.rb, j);
  };
  Real strikes = 1;  // the share of the step before its first point strikes
  // Struck within the step only where every movable side keeps a lag; else at the step's start,
  // from where the step found it, leaving at e times the speed it met with (which keeps energy
  // on that discrete path: the strike's speed without the lag's held-back move gained it).
  const bool within_step =
      (a.lag != nullptr || !a.mass.movable()) && (b.lag != nullptr || !b.mass.movable());
  for (int k = 0; k < manifold.count; ++k) {
    const ContactPoint& c = manifold.points[std::size_t(k)].point;
    Point& p = points[std::size_t(count)];
    const Vec3 at = c.position + n * (c.depth / 2);
    p.ra = at - a.motion.center;
    p.rb = at - b.motion.center;
    const Real approach = normal_speed(p);
    // As the contact rows judge it: touching within this step, and met fast enough.
    if (!touches_within(c.depth, approach, settings.dt)) continue;
    const Real met =
        approach_before_forces(approach, n, manifold.body_a, p.ra, manifold.body_b, p.rb, settings);
    const Strike strike =
        strike_within_step(std::max(-c.depth, Real(0)), met, approach, restitution, settings.dt);
    // The threshold holds for the speed it strikes with: a ball dropped 70 mm meets the floor at
    // 1.17 m/s within a step that it began at 0.98 m/s.
    if (strike.speed >= -settings.solver->restitution_threshold) continue;
    const Real k_n = response(p, n);
    if (!(k_n > 0)) continue;
    p.inv_k = 1 / k_n;
    p.target = within_step ? strike.target : -restitution * met;
    strikes = std::min(strikes, strike.time);
    ++count;
  }
  if (count == 0) return false;
  const BodyVelocity va_before = va, vb_before = vb;
  const auto normal_sweep = [&] {
    for (int k = 0; k < count; ++k) {
      Point& p = points[std::size_t(k)];
      const Real lambda = std::max(p.lambda + (p.target - normal_speed(p)) * p.inv_k, Real(0));
      apply(p, n * (lambda - p.lambda));
      p.lambda = lambda;
    }
  };
  // Friction acts through the impact as Coulomb's law has it: the slip stopped by a tangential
  // impulse within friction times the normal one (the contact solve that follows sees the points
  // leave, a normal impulse of about zero, and so no friction). It follows the normal impulses'
  // sweeps, whose passing turns (a box's corners struck one after another) are no slip to resist.
  const auto friction_sweep = [&] {
    for (int k = 0; k < count; ++k) {
      Point& p = points[std::size_t(k)];
      const Vec3 v = relative_velocity_at(va, p.ra, vb, p.rb);
      const Vec3 slip = v - n * dot(n, v);
      const Real slip_speed = length(slip);
      const Real bound = material.friction * p.lambda;
      if (!(slip_speed > 0) || !(bound > 0)) continue;
      const Vec3 t = slip / slip_speed;
      const Real k_t = response(p, t);
      if (!(k_t > 0)) continue;
      Vec3 friction = p.friction - t * (slip_speed / k_t);
      const Real magnitude = length(friction);
      if (magnitude > bound) friction *= bound / magnitude;
      apply(p, friction - p.friction);
      p.friction = friction;
    }
  };
  for (int sweep = 0; sweep < k_point_sweeps; ++sweep)
    normal_sweep();
  if (material.friction > 0) {
    for (int sweep = 0; sweep < k_point_sweeps; ++sweep) {
      friction_sweep();
      normal_sweep();
    }
  }
  for (const auto& [body, before] : {std::pair{&a, va_before}, std::pair{&b, vb_before}}) {
    if (!within_step || body->lag == nullptr) continue;
    body->lag->linear += strikes * (body->velocity.linear - before.linear);
    body->lag->angular += strikes * (body->velocity.angular - before.angular);
  }
  return true;
}

}  // namespace impulse
