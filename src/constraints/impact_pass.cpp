#include "constraints/impact_pass.h"

#include <array>

namespace impulse {
namespace {

// Gauss-Seidel sweeps over a manifold's points: enough for four points to share an impact.
constexpr int k_point_sweeps = 4;

}  // namespace

bool resolve_manifold_impact(const ContactManifold& manifold, const BodyMotion& a,
                             const BodyMotion& b, const SolverBodyMass& mass_a,
                             const SolverBodyMass& mass_b, BodyVelocity& va, BodyVelocity& vb,
                             Real restitution, const ContactRowSettings& settings) {
  const Vec3 n = manifold.normal;
  struct Point {
    Vec3 ra, rb;
    Real inv_k = 0;   // 1 / (J M^-1 J^T) along n
    Real target = 0;  // the leaving speed, e times the approach speed
    Real lambda = 0;
  };
  std::array<Point, Manifold::k_max_points> points;
  int count = 0;
  const auto normal_speed = [&](const Point& p) {
    return dot(n, relative_velocity_at(va, p.ra, vb, p.rb));
  };
  for (int k = 0; k < manifold.count; ++k) {
    const ContactPoint& c = manifold.points[std::size_t(k)].point;
    Point& p = points[std::size_t(count)];
    const Vec3 at = c.position + n * (c.depth / 2);
    p.ra = at - a.center;
    p.rb = at - b.center;
    const Real approach = normal_speed(p);
    // As the contact rows judge it: touching within this step, and met fast enough.
    if (approach * settings.dt > c.depth) continue;
    const Real met =
        approach_before_forces(approach, n, manifold.body_a, p.ra, manifold.body_b, p.rb, settings);
    if (met >= -settings.solver->restitution_threshold) continue;
    const Vec3 ra_n = cross(p.ra, n), rb_n = cross(p.rb, n);
    const Real k_n = dot(n, mass_a.linear_response(n)) + dot(n, mass_b.linear_response(n)) +
                     dot(ra_n, mass_a.inv_inertia * ra_n) + dot(rb_n, mass_b.inv_inertia * rb_n);
    if (!(k_n > 0)) continue;
    p.inv_k = 1 / k_n;
    p.target = -restitution * met;
    ++count;
  }
  if (count == 0) return false;
  for (int sweep = 0; sweep < k_point_sweeps; ++sweep) {
    for (int k = 0; k < count; ++k) {
      Point& p = points[std::size_t(k)];
      const Real lambda = std::max(p.lambda + (p.target - normal_speed(p)) * p.inv_k, Real(0));
      const Vec3 impulse = n * (lambda - p.lambda);
      p.lambda = lambda;
      va.linear -= mass_a.linear_response(impulse);
      va.angular -= mass_a.inv_inertia * cross(p.ra, impulse);
      vb.linear += mass_b.linear_response(impulse);
      vb.angular += mass_b.inv_inertia * cross(p.rb, impulse);
    }
  }
  return true;
}

}  // namespace impulse
