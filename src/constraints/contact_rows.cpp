#include "constraints/contact_rows.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/lanes.h"

namespace impulse {
namespace {

// Below this tangential speed (m/s) a contact counts as sticking: its tangent basis then follows
// the friction impulse it carries rather than the (noise-dominated) sliding direction.
constexpr Real k_sliding_speed = Real(1e-3);

// A unit vector perpendicular to unit n (Frisvad's branch-free basis, with the singularity
// moved by a sign so that it never divides by zero).
Vec3 any_perpendicular(const Vec3& n) {
  const Real sign = std::copysign(Real(1), n.z);
  const Real a = Real(-1) / (sign + n.z);
  const Real b = n.x * n.y * a;
  return {Real(1) + sign * n.x * n.x * a, sign * b, -sign * n.x};
}

// The first tangent: along the sliding velocity while sliding, so that friction opposes the
// slip itself whatever basis the last step had; else along the carried friction impulse, so the
// warm start lands on one row; else any.
Vec3 first_tangent(const Vec3& n, const Vec3& relative_velocity, const Vec3& friction_impulse) {
  const Vec3 slip = relative_velocity - n * dot(relative_velocity, n);
  const Real slip_speed = length(slip);
  if (slip_speed > k_sliding_speed) return slip / slip_speed;
  const Vec3 carried = friction_impulse - n * dot(friction_impulse, n);
  const Real carried_length = length(carried);
  if (carried_length > 0) return carried / carried_length;
  return any_perpendicular(n);
}

// The Jacobian of a contact row along `direction` (from a to b) at levers ra and rb.
[[gnu::always_inline]] inline std::array<Lanes, 4> contact_jacobian(const Lanes& direction,
                                                                    const Lanes& ra,
                                                                    const Lanes& rb) {
  return {-direction, -cross3(ra, direction), direction, cross3(rb, direction)};
}

// Baumgarte's push-out speed for a penetration deeper than the slop.
Real push_out_velocity(Real depth, const ContactRowSettings& settings) {
  const SolverSettings& s = *settings.solver;
  return std::min(s.baumgarte * (depth - s.slop) / settings.dt, s.max_push_speed);
}

// The normal row's target velocity: push out what exceeds the slop (Baumgarte, capped), let a
// speculative contact close its gap within the step and no more, and reflect an approach faster
// than the threshold by the restitution when the contact closes this step.
Real normal_target_velocity(Real depth, Real approach_velocity, Real restitution,
                            const ContactRowSettings& settings) {
  const SolverSettings& s = *settings.solver;
  Real target = 0;
  if (depth > s.slop)
    target = push_out_velocity(depth, settings);
  else if (depth < 0)
    target = depth / settings.dt;
  const bool closes = approach_velocity * settings.dt <= depth;
  if (restitution > 0 && approach_velocity < -s.restitution_threshold && closes)
    target = std::max(target, -restitution * approach_velocity);
  return target;
}

}  // namespace

ContactMaterial combine_materials(const ContactMaterial& a, const ContactMaterial& b) {
  return {std::sqrt(a.friction * b.friction), std::max(a.restitution, b.restitution)};
}

ConstantFriction constant_friction(const BodyMotion& a, std::size_t points_a, const BodyMotion& b,
                                   std::size_t points_b) {
  Real share = 0;
  int dynamic = 0;
  for (const auto& [body, points] : {std::pair{&a, points_a}, std::pair{&b, points_b}}) {
    if (body->inv_mass <= 0 || points == 0) continue;
    share += Real(1) / (body->inv_mass * Real(points));
    ++dynamic;
  }
  return {dynamic > 0 ? share / Real(dynamic) : Real(0)};
}

void write_manifold_rows(const ContactManifold& manifold, const BodyMotion& a, const BodyMotion& b,
                         const SolverBodyMass& mass_a, const SolverBodyMass& mass_b,
                         const BodyVelocity& va, const BodyVelocity& vb,
                         const ContactMaterial& material, const ConstantFriction& constant,
                         const ContactRowSettings& settings, RowStore& rows, std::uint32_t first) {
  const bool constant_model = settings.solver->friction_model == FrictionModel::constant;
  const bool cone_model = settings.solver->friction_model == FrictionModel::cone;
  const Real constant_bound =
      material.friction * constant.point_mass * settings.gravity * settings.dt;
  const Vec3 n = manifold.normal;
  const int count = manifold.count;
  std::uint32_t next = first;
  // Each row's response is computed in lanes from the bodies' masses converted once (the same
  // bits as the scalar products).
  const LaneMass lane_a(mass_a), lane_b(mass_b);
  // Lever arms from the point midway between the surfaces, and the relative velocity there.
  struct Lever {
    Lanes ra, rb;
    Vec3 dv;
  };
  std::array<Lever, Manifold::k_max_points> levers;
  for (int k = 0; k < count; ++k) {
    const ContactPoint& point = manifold.points[std::size_t(k)].point;
    const Vec3 p = point.position + n * (point.depth / 2);
    const Vec3 ra = p - a.center, rb = p - b.center;
    Lever& l = levers[std::size_t(k)];
    to_lanes(ra, l.ra);
    to_lanes(rb, l.rb);
    l.dv = vb.linear + cross(vb.angular, rb) - va.linear - cross(va.angular, ra);
  }
  RowSpec spec;
  spec.body_a = manifold.body_a;
  spec.body_b = manifold.body_b;
  const auto write_row = [&](const Lanes& direction, const Lever& l) {
    rows.set_prepared(next++, spec,
                      lane_row(contact_jacobian(direction, l.ra, l.rb), lane_a, lane_b));
  };
  // Friction rows first, then the normal rows: the normal impulses, solved last in each pass,
  // are the ones that must hold.
  for (int k = 0; k < count; ++k) {
    const ContactState& c = manifold.points[std::size_t(k)];
    const Lever& l = levers[std::size_t(k)];
    const Vec3 t1 = first_tangent(n, l.dv, c.friction_impulse);
    const std::array<Vec3, 2> tangents{t1, cross(n, t1)};
    for (std::size_t j = 0; j < 2; ++j) {
      const Vec3& t = tangents[j];
      if (constant_model) {  // a fixed bound: the normal impulse does not matter (seed 001)
        spec.lo = -constant_bound;
        spec.hi = constant_bound;
      } else {  // coulomb and cone: bounded by mu times the point's normal impulse
        spec.normal_row = std::int32_t(first) + 2 * count + k;
        spec.mu = material.friction;
        // cone: the pair's impulse vector is clamped to the disc (t1's flag names the pair)
        spec.cone = cone_model && j == 0;
      }
      spec.lambda = dot(c.friction_impulse, t) * settings.warm_scale;
      Lanes direction;
      to_lanes(t, direction);
      write_row(direction, l);
    }
  }
  Lanes normal;
  to_lanes(n, normal);
  spec.lo = 0;
  spec.hi = k_infinity;
  spec.normal_row = -1;
  spec.mu = 0;
  spec.cone = false;
  for (int k = 0; k < count; ++k) {
    const ContactState& c = manifold.points[std::size_t(k)];
    const Lever& l = levers[std::size_t(k)];
    spec.bias = normal_target_velocity(c.point.depth, dot(l.dv, n), material.restitution, settings);
    const bool pushes_out = c.point.depth > settings.solver->slop &&
                            spec.bias == push_out_velocity(c.point.depth, settings);
    spec.position_bias = pushes_out ? spec.bias : 0;
    spec.lambda = c.normal_impulse * settings.warm_scale;
    write_row(normal, l);
  }
}

void store_contact_impulses(const RowStore& rows, std::span<const ContactRowRange> ranges,
                            std::span<ContactManifold> manifolds, TaskPool* pool) {
  run_chunks(pool, manifolds.size(), k_manifold_chunks, k_parallel_manifolds,
             [&](std::size_t, std::size_t begin, std::size_t end) {
               for (std::size_t k = begin; k < end; ++k) {
                 ContactManifold& m = manifolds[k];
                 if (ranges[k].first_row == ContactRowRange::k_no_rows) continue;
                 const std::size_t first = ranges[k].first_row;
                 const auto count = std::size_t(m.count);
                 for (std::size_t j = 0; j < count; ++j) {
                   ContactState& c = m.points[j];
                   const std::size_t t1 = first + 2 * j, t2 = t1 + 1;
                   c.friction_impulse =
                       rows.j_lin_b(t1) * rows.lambda[t1] + rows.j_lin_b(t2) * rows.lambda[t2];
                   c.normal_impulse = rows.lambda[first + 2 * count + j];
                 }
               }
             });
}

Real max_penetration(std::span<const ContactManifold> manifolds) {
  Real deepest = 0;
  for (const ContactManifold& m : manifolds) {
    for (int k = 0; k < m.count; ++k)
      deepest = std::max(deepest, m.points[std::size_t(k)].point.depth);
  }
  return deepest;
}

}  // namespace impulse
