#include "constraints/contact_rows.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "core/lanes.h"

namespace impulse {
namespace {

// A patch's normal rows are all of its points': RowStore::normal_count must hold them.
static_assert(Manifold::k_max_points <= k_max_normal_count);

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

using Points = std::array<Vec3, Manifold::k_max_points>;
using PointLanes = std::array<Lanes, Manifold::k_max_points>;

// Whether a contact neither slides nor carries a friction impulse (of four: some contact).
[[gnu::always_inline]] inline bool some_idle(bool sliding, bool carrying) {
  return !sliding && !carrying;
}
[[gnu::always_inline]] inline bool some_idle(const LaneMask& sliding, const LaneMask& carrying) {
  return lane_bits(~(sliding | carrying)) != 0;
}

// The first tangent by components, of one contact (T = Real) or of four at once (T = Lanes):
// along the sliding velocity while sliding, so that friction opposes the slip itself whatever
// basis the last step had; else along the carried friction impulse, so the warm start lands on one
// row; else any. v is the relative velocity and f the carried impulse. Four contacts' sums, square
// roots and divisions are one instruction each, with the bits of one at a time (the same sums in
// the same order), where each contact waited on its own square root and division.
template <class T>
std::array<T, 3> first_tangent(const Vec3& n, const std::array<T, 3>& v,
                               const std::array<T, 3>& f) {
  const T nx = splat_as<T>(n.x), ny = splat_as<T>(n.y), nz = splat_as<T>(n.z);
  // a less its part along n (reject), and its length.
  struct InPlane {
    std::array<T, 3> c;
    T length;
  };
  const auto in_plane = [&](const std::array<T, 3>& a) {
    const T along = a[0] * nx + a[1] * ny + a[2] * nz;
    InPlane p;
    p.c = {a[0] - nx * along, a[1] - ny * along, a[2] - nz * along};
    p.length = square_root(p.c[0] * p.c[0] + p.c[1] * p.c[1] + p.c[2] * p.c[2]);
    return p;
  };
  const InPlane slip = in_plane(v);
  const auto sliding = slip.length > splat_as<T>(k_sliding_speed);
  // One contact that slides needs nothing more (of four, those that do not slide do).
  if constexpr (std::is_same_v<T, Real>) {
    if (sliding) return {slip.c[0] / slip.length, slip.c[1] / slip.length, slip.c[2] / slip.length};
  }
  const InPlane carried = in_plane(f);
  const auto carrying = carried.length > splat_as<T>(0);
  std::array<T, 3> tangent;
  // A contact with no length divides by zero; its quotient is replaced below.
  for (std::size_t c = 0; c < 3; ++c)
    tangent[c] = sliding ? slip.c[c] / slip.length : carried.c[c] / carried.length;
  if (some_idle(sliding, carrying)) {  // rarely: a contact's first step, or friction off
    const Vec3 any = any_perpendicular(n);
    for (std::size_t c = 0; c < 3; ++c)
      tangent[c] = sliding ? tangent[c] : carrying ? tangent[c] : splat_as<T>(any[int(c)]);
  }
  return tangent;
}

// The first tangents of four contacts, padded in lanes, from each contact's relative velocity and
// carried friction impulse (padded in lanes).
PointLanes first_tangents(const Vec3& n, const PointLanes& relative_velocity,
                          const PointLanes& friction_impulse) {
  const auto by_contact = [](const PointLanes& v) {
    std::array<Lanes, 3> c;
    by_components(v[0], v[1], v[2], v[3], c.data());
    return c;
  };
  return by_lanes(
      first_tangent<Lanes>(n, by_contact(relative_velocity), by_contact(friction_impulse)).data());
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
// than the threshold by the restitution when the contact closes this step (`met`, the approach
// the bodies met with: approach_before_forces).
Real normal_target_velocity(Real depth, Real approach_velocity, Real met, Real restitution,
                            const ContactRowSettings& settings) {
  const SolverSettings& s = *settings.solver;
  Real target = 0;
  if (depth > s.slop)
    target = push_out_velocity(depth, settings);
  else if (depth < 0)
    target = depth / settings.dt;
  if (restitution > 0 && touches_within(depth, approach_velocity, settings.dt) &&
      met < -s.restitution_threshold)
    target = std::max(target, -restitution * met);
  return target;
}

}  // namespace

Real approach_before_forces(Real approach, const Vec3& n, std::uint32_t body_a, const Vec3& ra,
                            std::uint32_t body_b, const Vec3& rb,
                            const ContactRowSettings& settings) {
  if (settings.force_changes.empty()) return approach;
  const std::span<const BodyVelocity> added = settings.force_changes;
  return approach - dot(n, relative_velocity_at(added[body_a], ra, added[body_b], rb));
}

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

namespace {

// A manifold's points as its rows see them: the lever arms to where the impulses act
// (acting_points) and the relative velocity there.
struct Lever {
  Lanes ra, rb;
  Vec3 dv;
};

// The lever to pa on a and pb on b (padded), as the Vec3 products compute it.
[[gnu::always_inline]] inline Lever lever_at(const Lanes& pa, const Lanes& pb, const BodyMotion& a,
                                             const BodyMotion& b, const BodyVelocity& va,
                                             const BodyVelocity& vb) {
  Lever l;
  l.ra = pa - lanes_of(a.center);
  l.rb = pb - lanes_of(b.center);
  l.dv = to_vec3(lanes_of(vb.linear) + cross3(lanes_of(vb.angular), l.rb) - lanes_of(va.linear) -
                 cross3(lanes_of(va.angular), l.ra));
  return l;
}

// A manifold's points midway between the surfaces, where its rows act. In lanes, so that a lever
// reads each back whole: a Vec3 stored in two parts and read at another offset stalls the read on
// a failed store forward.
PointLanes contact_midpoints(const ContactManifold& m) {
  PointLanes midpoints;
  const Lanes normal = lanes_of(m.normal);
  for (int k = 0; k < m.count; ++k) {
    const ContactPoint& point = m.points[std::size_t(k)].point;
    midpoints[std::size_t(k)] = lanes_of(point.position) + normal * splat(point.depth / 2);
  }
  return midpoints;
}

// The patch model's view of a manifold: its points' centre and each point's offset from it in
// the contact plane.
struct Patch {
  Vec3 centre;
  Points offsets;
  Real spread = 0;  // the sum of the offsets' squared lengths, m^2
};

// The patch of manifold m, whose midpoints (contact_midpoints) are given.
Patch patch_of(const ContactManifold& m, const PointLanes& midpoints) {
  Patch patch;
  Vec3 sum = Vec3::zero();
  for (int k = 0; k < m.count; ++k)
    sum += to_vec3(midpoints[std::size_t(k)]);
  patch.centre = sum / Real(m.count);
  for (int k = 0; k < m.count; ++k) {
    const Vec3 offset = reject(to_vec3(midpoints[std::size_t(k)]) - patch.centre, m.normal);
    patch.offsets[std::size_t(k)] = offset;
    patch.spread += length_squared(offset);
  }
  return patch;
}

// Stores a patch's tangent impulse and twist as the points' friction impulses: the least point
// impulses of that sum and of that moment about the centre (the twist's shares grow with the
// distance), so that the cache, the queries and the other models read them alike.
void store_patch_impulses(ContactManifold& m, const Vec3& tangent, Real twist) {
  const Patch patch = patch_of(m, contact_midpoints(m));
  const Vec3 share = tangent / Real(m.count);
  const Real twist_per_spread = patch.spread > 0 ? twist / patch.spread : 0;
  for (int k = 0; k < m.count; ++k) {
    m.points[std::size_t(k)].friction_impulse =
        share + cross(m.normal, patch.offsets[std::size_t(k)]) * twist_per_spread;
  }
}

// How far a touching point's gap leaves its row's velocity line over the step, to second order
// (the gap's acceleration times dt^2 / 2). The step turns each body about its centre, and a core
// point (a surface's corner, a ball's centre) follows the turn's arc, n . w x (w x r) of it. A
// face's normal turns with its shape, n' = w x n: a point sliding over a turning face goes
// 2 n'.(v_b - v_a) deeper or further out (the cores' velocities), and the cores' distance along n
// shrinks by |n'|^2 of it. The normal of an edge pair, or of a rounded core and an edge, turns
// with both shapes and is not reckoned. What holds for all of a manifold's points is found once.
class GapDrift {
 public:
  GapDrift(const ContactManifold& m, const Lanes& normal, const BodyVelocity& va,
           const BodyVelocity& vb)
      : wa_(lanes_of(va.angular)), wb_(lanes_of(vb.angular)) {
    Lanes normal_turn{};
    if (m.normal_face != NormalFace::none)
      normal_turn = cross3(m.normal_face == NormalFace::a ? wa_ : wb_, normal);
    // n . w x (w x r) = (w x r) . (n x w), and the slide's 2 n' . (w x r) joins it.
    const Lanes twice_turn = splat(2) * normal_turn;
    against_a_ = cross3(normal, wa_) + twice_turn;
    against_b_ = cross3(normal, wb_) + twice_turn;
    slide_ = dot3(twice_turn, lanes_of(vb.linear) - lanes_of(va.linear));
    turn_squared_ = dot3(normal_turn, normal_turn);
  }

  /// The gap's acceleration, m/s^2, at a point whose cores lie at core_a and core_b from the
  /// centres, cores_apart along the normal.
  [[gnu::always_inline]] Real acceleration(const Lanes& core_a, const Lanes& core_b,
                                           Real cores_apart) const {
    return dot3(cross3(wb_, core_b), against_b_) - dot3(cross3(wa_, core_a), against_a_) + slide_ -
           cores_apart * turn_squared_;
  }

 private:
  Lanes wa_, wb_, against_a_, against_b_;
  Real slide_ = 0, turn_squared_ = 0;
};

}  // namespace

void write_manifold_rows(const ContactManifold& manifold, const BodyMotion& a, const BodyMotion& b,
                         const SolverBodyMass& mass_a, const SolverBodyMass& mass_b,
                         const BodyVelocity& va, const BodyVelocity& vb,
                         const ContactMaterial& material, const ConstantFriction& constant,
                         const ContactRowSettings& settings, RowStore& rows, ManifoldRows& where) {
  const std::uint32_t first = where.first_row;
  const FrictionModel model = settings.solver->friction_model;
  const Real constant_bound =
      material.friction * constant.point_mass * settings.gravity * settings.dt;
  const Vec3 n = manifold.normal;
  const int count = manifold.count;
  if (count == 0) return;  // no rows (manifold_row_count)
  const auto friction_rows =
      std::uint32_t(manifold_row_count(manifold, model)) - std::uint32_t(count);
  std::uint32_t next = first;
  // Each row's response is computed in lanes from the bodies' masses converted once (the same
  // bits as the scalar products).
  const LaneMass lane_a(mass_a), lane_b(mass_b);
  const PointLanes midpoints = contact_midpoints(manifold);
  // The normal rows act at each body's own surface point across a speculative gap, where the two
  // meet as it closes (acting_points): the pair lies along the normal and keeps angular momentum.
  // So do the friction rows where one body cannot move under them (static, kinematic): a ball
  // struck a floor late in a step with its levers long by half the gap and left 16-21% under-spun.
  // Between two moving bodies the friction pair acts at the gap's midpoint: at their own surfaces
  // it would be offset by the gap, a torque from nothing, and the seed's stack of 100 m boxes
  // (constant friction, acting across 2 m gaps) did not come to rest.
  const bool one_body_fixed = a.type != BodyType::dynamic_body || b.type != BodyType::dynamic_body;
  // The friction rows' levers are pointed to, not copied: a Lever copied just after its stores
  // waited on them (a failed store forward), and the pyramid's rows took a fifth longer.
  std::array<Lever, Manifold::k_max_points> levers, midpoint_levers;
  std::array<const Lever*, Manifold::k_max_points> friction_levers;
  for (std::size_t k = 0; k < std::size_t(count); ++k) {
    const ContactPoint& point = manifold.points[k].point;
    friction_levers[k] = &levers[k];
    if (point.depth >= 0) {
      levers[k] = lever_at(midpoints[k], midpoints[k], a, b, va, vb);
      continue;
    }
    const ActingPoints at = acting_points(point, n);
    levers[k] = lever_at(lanes_of(at.on_a), lanes_of(at.on_b), a, b, va, vb);
    if (one_body_fixed) continue;
    midpoint_levers[k] = lever_at(midpoints[k], midpoints[k], a, b, va, vb);
    friction_levers[k] = &midpoint_levers[k];
  }
  const Lanes normal = lanes_of(n);
  // On a turning kinematic body the points move on arcs over the step, w x (w x r) their
  // acceleration, and so do those of a body it carries round: held, a point is to meet the other
  // body's at the step's end, which a shared velocity at the step's start misses by half the
  // difference times dt^2. A box carried on a kinematic turntable moved along the tangent while
  // the table's point turned, and crept out by w^2 r dt^2 / 2 a step (0.17 to 0.56 m in 10 s at 1
  // to 3 rad/s). The kinematic body's turn is known; the carried one's is taken from before the
  // solve, as it turns with the table. Elsewhere a dynamic body's turn over the step is the
  // solve's to decide: from the one before it, a tumbling box's corners took targets for a turn
  // the solve then stopped (a stack of 100 m boxes at dt 0.5 s blew up).
  const auto turning = [](const BodyMotion& m, const BodyVelocity& v) {
    return m.type == BodyType::kinematic_body && v.angular != Vec3::zero();
  };
  const bool on_turning_body = turning(a, va) || turning(b, vb);
  const auto arcs = [&](const Lever& l) {
    const Lanes wa = lanes_of(va.angular), wb = lanes_of(vb.angular);
    return cross3(wb, cross3(wb, l.rb)) - cross3(wa, cross3(wa, l.ra));
  };
  RowSpec spec;
  spec.body_a = manifold.body_a;
  spec.body_b = manifold.body_b;
  // Both lambdas inlined (GCC's spelling: [[gnu::always_inline]] there would name the closure's
  // type): called, they cost about 1% of the box scenes' steps.
  const auto write_row = [&](const std::array<Lanes, 4>& jacobian) __attribute__((always_inline)) {
    rows.set_with_response(next++, spec, jacobian, lane_response(jacobian, lane_a, lane_b));
  };
  const auto write_tangent_rows = [&](const Lever& l, const Vec3& carried,
                                      const Lanes& first_direction) __attribute__((always_inline)) {
    std::array<Lanes, 2> tangents;  // in lanes, as first_tangents gives them
    tangents[0] = first_direction;
    tangents[1] = cross3(normal, tangents[0]);
    const Lanes carried_lanes = lanes_of(carried);
    for (std::size_t j = 0; j < 2; ++j) {
      // cone: the pair's impulse vector is clamped to the disc (t1's flag names the pair)
      spec.cone = model == FrictionModel::cone && j == 0;
      spec.lambda = dot3(carried_lanes, tangents[j]) * settings.warm_scale;
      // The relax solve drops it: the bodies keep their velocities at the step's end.
      spec.bias = spec.position_bias = 0;
      if (on_turning_body) {
        spec.bias = -dot3(arcs(l), tangents[j]) * (settings.dt / 2);
        spec.position_bias = spec.bias;
      }
      where.friction_directions[next - first] = to_vec3(tangents[j]);
      write_row(contact_jacobian(tangents[j], l.ra, l.rb));
    }
  };
  // Friction rows first, then the normal rows: the normal impulses, solved last in each pass,
  // are the ones that must hold.
  if (model == FrictionModel::patch) {
    // Bounded by mu times the manifold's normal impulse; the twist by that times the points' mean
    // distance from the centre (their torque arm when the load is even). The carried impulse is
    // the points' friction impulses summed, and their moment about the centre the twist.
    const Patch patch = patch_of(manifold, midpoints);
    Vec3 carried = Vec3::zero();
    Real carried_twist = 0, mean_distance = 0;
    for (int k = 0; k < count; ++k) {
      const Vec3& f = manifold.points[std::size_t(k)].friction_impulse;
      const Vec3& offset = patch.offsets[std::size_t(k)];
      carried += f;
      carried_twist += dot(n, cross(offset, f));
      mean_distance += length(offset) / Real(count);
    }
    spec.normal_row = std::int32_t(first + friction_rows);
    spec.normal_count = std::uint8_t(count);
    spec.mu = material.friction;
    // The centre acts as a point of the patch (as the points' friction above): where one body is
    // fixed, at each body's own surface across the points' mean gap, the centre midway.
    Real gap = 0;
    if (one_body_fixed) {
      for (int k = 0; k < count; ++k)
        gap += std::min(manifold.points[std::size_t(k)].point.depth, Real(0)) / Real(count);
    }
    const ActingPoints at = acting_points({patch.centre - n * (gap / 2), gap, {}}, n);
    const Lever centre = lever_at(lanes_of(at.on_a), lanes_of(at.on_b), a, b, va, vb);
    const std::array<Real, 3> tangent = first_tangent<Real>(
        n, {centre.dv.x, centre.dv.y, centre.dv.z}, {carried.x, carried.y, carried.z});
    write_tangent_rows(centre, carried, lanes_of({tangent[0], tangent[1], tangent[2]}));
    if (patch_has_twist_row(count)) {
      spec.bias = spec.position_bias = 0;
      spec.mu = material.friction * mean_distance;
      spec.lambda = carried_twist * settings.warm_scale;
      // Body a's linear part minus body b's, -0 (as every contact row's: a batch keeps one).
      write_row({-Lanes{}, -normal, Lanes{}, normal});
    }
  } else {
    // Lanes past the count repeat the last contact's, so that they are idle only where it is.
    PointLanes relative_velocity, carried;
    for (std::size_t k = 0; k < Manifold::k_max_points; ++k) {
      const auto from = std::size_t(std::min(int(k), count - 1));
      relative_velocity[k] = lanes_of(friction_levers[from]->dv);
      carried[k] = lanes_of(manifold.points[from].friction_impulse);
    }
    const PointLanes first_directions = first_tangents(n, relative_velocity, carried);
    for (int k = 0; k < count; ++k) {
      if (model == FrictionModel::constant) {  // a fixed bound: the normal impulse does not matter
        spec.lo = -constant_bound;             // (seed 001)
        spec.hi = constant_bound;
      } else {  // coulomb and cone: bounded by mu times the point's normal impulse
        spec.normal_row = std::int32_t(first + friction_rows) + k;
        spec.mu = material.friction;
      }
      write_tangent_rows(*friction_levers[std::size_t(k)],
                         manifold.points[std::size_t(k)].friction_impulse,
                         first_directions[std::size_t(k)]);
    }
  }
  spec.lo = 0;
  spec.hi = k_infinity;
  spec.normal_row = -1;
  spec.normal_count = 1;
  spec.mu = 0;
  spec.cone = false;
  const GapDrift drift(manifold, normal, va, vb);
  for (int k = 0; k < count; ++k) {
    const ContactState& c = manifold.points[std::size_t(k)];
    const Lever& l = levers[std::size_t(k)];
    const Real approach = dot(l.dv, n);
    const Real met = material.restitution > 0
                         ? approach_before_forces(approach, n, manifold.body_a, to_vec3(l.ra),
                                                  manifold.body_b, to_vec3(l.rb), settings)
                         : approach;
    spec.bias =
        normal_target_velocity(c.point.depth, approach, met, material.restitution, settings);
    const bool pushes_out = c.point.depth > settings.solver->slop &&
                            spec.bias == push_out_velocity(c.point.depth, settings);
    spec.position_bias = pushes_out ? spec.bias : 0;
    // Where the drift would carry a touching point past the slop, the row asks for that much
    // more separation (a body pivoting on a corner sat 12 mm deep without the arcs, bodies sliding
    // at 4 m/s up a platform turning at 1 to 3 rad/s 10.6 to 53 mm without the normal's turn), at
    // most the push-out's speed cap, as it stays in the bodies without the relax solve. A drift
    // under a fiftieth of the slop a step (a resting body's) is Baumgarte's to take back (within
    // half a millimetre past the slop at its default 0.2): the rows of stacks stay as they were.
    if (c.point.depth >= 0) {
      // The surfaces lie half the depth either side of the lever's midpoint (A's out along n),
      // each core its rounding in from its surface.
      const Real half_depth = c.point.depth / 2;
      const Lanes core_a = l.ra + splat(half_depth - manifold.rounding_a) * normal;
      const Lanes core_b = l.rb + splat(manifold.rounding_b - half_depth) * normal;
      const Real gap_acceleration = drift.acceleration(
          core_a, core_b, manifold.rounding_a + manifold.rounding_b - c.point.depth);
      const Real sink = -gap_acceleration * settings.dt * settings.dt / 2;
      const Real slop = settings.solver->slop;
      if (sink > slop / 50 && c.point.depth + sink > slop) {
        const Real catch_up = std::min(sink / settings.dt, settings.solver->max_push_speed);
        spec.bias += catch_up;
        spec.position_bias += catch_up;
      }
    }
    spec.lambda = c.normal_impulse * settings.warm_scale;
    write_row(contact_jacobian(normal, l.ra, l.rb));
  }
  rows.finish_prepared(first, next);
  const std::uint32_t normals = first + friction_rows;
  for (int k = 0; k < count; ++k) {
    if (manifold.points[std::size_t(k)].stalled >= k_stalled_steps &&
        rows.position_bias[normals + std::uint32_t(k)] > 0)
      rows.soften(normals + std::uint32_t(k), k_jammed_softness);
  }
}

void store_contact_impulses(const RowStore& rows, std::span<const ManifoldRows> manifold_rows,
                            std::span<ContactManifold> manifolds, const SolverSettings& solver,
                            Real dt, TaskPool* pool) {
  const FrictionModel model = solver.friction_model;
  run_ranges(pool, manifolds.size(), k_manifold_chunks, k_parallel_manifolds,
             [&](std::size_t begin, std::size_t end) {
               for (std::size_t k = begin; k < end; ++k) {
                 ContactManifold& m = manifolds[k];
                 if (manifold_rows[k].first_row == ManifoldRows::k_no_rows) continue;
                 const std::size_t first = manifold_rows[k].first_row;
                 const auto count = std::size_t(m.count);
                 if (count == 0) continue;
                 const std::size_t normals =
                     first + manifold_row_count(m, model) - count;  // the first normal row
                 // Row first + f pushes along friction_directions[f].
                 const std::array<Vec3, 2 * std::size_t(Manifold::k_max_points)>& directions =
                     manifold_rows[k].friction_directions;
                 const auto tangent_impulse = [&](std::size_t t1) {
                   return directions[t1 - first] * rows.lambda[t1] +
                          directions[t1 - first + 1] * rows.lambda[t1 + 1];
                 };
                 for (std::size_t j = 0; j < count; ++j) {
                   ContactState& c = m.points[j];
                   const Real after = rows.lambda[normals + j];
                   // Only a point deeper than twice the slop stalls (push_stalled): a stack's
                   // points are not, and are left unwritten (their next depth past it is compared
                   // with the depth they last had there, once).
                   if (deep_enough_to_stall(c.point.depth, solver.slop)) {
                     const bool stalled = push_stalled(c, rows.position_bias[normals + j], dt,
                                                       solver.slop, c.normal_impulse, after);
                     c.stalled = stalled ? std::uint8_t(std::min(c.stalled + 1, 255)) : 0;
                     c.stored_depth = c.point.depth;
                   } else if (c.stalled != 0) {
                     c.stalled = 0;
                   }
                   c.normal_impulse = after;
                 }
                 if (model != FrictionModel::patch) {
                   for (std::size_t j = 0; j < count; ++j)
                     m.points[j].friction_impulse = tangent_impulse(first + 2 * j);
                   continue;
                 }
                 store_patch_impulses(m, tangent_impulse(first),
                                      patch_has_twist_row(m.count) ? rows.lambda[first + 2] : 0);
               }
             });
}

}  // namespace impulse
