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
  return {-restitution * sc + a * (dt / 2 - tc), tc / dt};
}

}  // namespace

bool resolve_manifold_impact(const ContactManifold& manifold, const ImpactBody& a,
                             const ImpactBody& b, Real restitution,
                             const ContactRowSettings& settings) {
  const Vec3 n = manifold.normal;
  struct Point {
    Vec3 ra, rb;
    Real inv_k = 0;   // 1 / (J M^-1 J^T) along n
    Real target = 0;  // the leaving speed (Strike::target)
    Real lambda = 0;
  };
  std::array<Point, Manifold::k_max_points> points;
  int count = 0;
  BodyVelocity& va = a.velocity;
  BodyVelocity& vb = b.velocity;
  const auto normal_speed = [&](const Point& p) {
    return dot(n, relative_velocity_at(va, p.ra, vb, p.rb));
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
    if (approach * settings.dt > c.depth) continue;
    const Real met =
        approach_before_forces(approach, n, manifold.body_a, p.ra, manifold.body_b, p.rb, settings);
    if (met >= -settings.solver->restitution_threshold) continue;
    const Vec3 ra_n = cross(p.ra, n), rb_n = cross(p.rb, n);
    const Real k_n = dot(n, a.mass.linear_response(n)) + dot(n, b.mass.linear_response(n)) +
                     dot(ra_n, a.mass.inv_inertia * ra_n) + dot(rb_n, b.mass.inv_inertia * rb_n);
    if (!(k_n > 0)) continue;
    p.inv_k = 1 / k_n;
    const Strike strike =
        strike_within_step(std::max(-c.depth, Real(0)), met, approach, restitution, settings.dt);
    p.target = within_step ? strike.target : -restitution * met;
    strikes = std::min(strikes, strike.time);
    ++count;
  }
  if (count == 0) return false;
  const BodyVelocity va_before = va, vb_before = vb;
  for (int sweep = 0; sweep < k_point_sweeps; ++sweep) {
    for (int k = 0; k < count; ++k) {
      Point& p = points[std::size_t(k)];
      const Real lambda = std::max(p.lambda + (p.target - normal_speed(p)) * p.inv_k, Real(0));
      const Vec3 impulse = n * (lambda - p.lambda);
      p.lambda = lambda;
      va.linear -= a.mass.linear_response(impulse);
      va.angular -= a.mass.inv_inertia * cross(p.ra, impulse);
      vb.linear += b.mass.linear_response(impulse);
      vb.angular += b.mass.inv_inertia * cross(p.rb, impulse);
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
