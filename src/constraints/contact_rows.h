#pragma once
// Contact manifolds into constraint rows (seed 001 sections 4.2 and 5, seed 004): per point a
// normal row, lambda >= 0, whose target velocity pushes out the penetration beyond the slop
// (Baumgarte, capped), lets a speculative contact close its gap and no more, and reflects a fast
// approach by the restitution; and two friction rows bounded by mu times the normal impulse, or
// under the patch model three friction rows for the whole manifold (FrictionModel).
// Impulses from the contact cache are the warm start; solved ones go back to the cache.

#include <impulse/settings.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "collision/contact_manager.h"
#include "constraints/rows.h"
#include "dynamics/body_storage.h"

namespace impulse {

/// A pair's combined material (see combine_materials).
struct ContactMaterial {
  Real friction = 0;
  Real restitution = 0;
};

/// What the `constant` friction model (seed 001 eq. 24-25) bounds a manifold's friction by: each
/// tangent impulse within mu * point_mass * gravity * dt.
struct ConstantFriction {
  Real point_mass = 0;  // kg, the contact's share of its bodies' mass
};

/// Friction is the geometric mean of the bodies' (either one frictionless makes the contact
/// frictionless), restitution the larger of the two (a ball bounces on a dead floor).
ContactMaterial combine_materials(const ContactMaterial& a, const ContactMaterial& b);

struct ContactRowSettings {
  Real dt = 0;          // s, this step
  Real warm_scale = 1;  // this dt over the last step's: impulses scale with the step
  Real gravity = 0;     // m/s^2, its magnitude (the constant friction model)
  const SolverSettings* solver = nullptr;
  // Per body: what this step's forces (gravity, applied forces, damping) added to its velocity,
  // for restitution (approach_before_forces); empty where no body bounces.
  std::span<const BodyVelocity> force_changes;
};

/// Whether a contact `depth` deep (m, negative apart) touches within a step of dt (s) at the
/// normal speed `approach` (m/s, negative closing): its speculative row lets the gap close, and
/// restitution, the impact pass and waking judge by it too.
inline bool touches_within(Real depth, Real approach, Real dt) {
  return approach * dt <= depth;
}

/// Where a contact point's normal impulses act on each body. While the surfaces touch, one point
/// midway between them, so that the pair's impulses keep angular momentum. Across a speculative
/// gap, each body's own surface point (B's is the point's position, A's the gap away along the
/// normal), where the two meet as the gap closes: from the gap's midpoint a ball struck a slope at
/// 5 m/s (a 67 mm gap at 60 Hz) with levers 13% long, and left 7% fast and 6% under-spun. (Friction
/// between two moving bodies acts at the midpoint: write_manifold_rows.)
struct ActingPoints {
  Vec3 on_a, on_b;
};
inline ActingPoints acting_points(const ContactPoint& c, const Vec3& n) {
  if (c.depth >= 0) {
    const Vec3 midpoint = c.position + n * (c.depth / 2);
    return {midpoint, midpoint};
  }
  return {c.position + n * c.depth, c.position};
}

/// The normal speed `approach` (negative closing) at a point of bodies a and b, levers ra and rb,
/// less what this step's forces added to it: the speed the bodies met with, which restitution
/// reflects. Reflecting the speed after gravity's pull gave a bouncing ball g dt more at each
/// bounce, and a ball of restitution 1 climbed 1.7% a bounce at 60 Hz.
Real approach_before_forces(Real approach, const Vec3& n, std::uint32_t body_a, const Vec3& ra,
                            std::uint32_t body_b, const Vec3& rb,
                            const ContactRowSettings& settings);

/// A manifold's rows: where they start (its friction rows, a pair per point or the patch's, then
/// the normal rows of its points), and the directions its friction rows push along, in their
/// order (the patch's two tangents), for store_contact_impulses: from here rather than from the
/// rows' Jacobians, which a sweep in lanes leaves out of the cache by then.
struct ManifoldRows {
  static constexpr std::uint32_t k_no_rows = ~std::uint32_t(0);  // an inactive manifold
  std::uint32_t first_row = k_no_rows;
  std::array<Vec3, 2 * std::size_t(Manifold::k_max_points)> friction_directions;
};

/// write_contact_rows and store_contact_impulses cut the manifolds into this many chunks, and use
/// the pool's threads from this many manifolds: the same chunks on the same threads, so each
/// thread's rows stay in its cache from the writing to the storing. The workers are awake from the
/// step's start (TaskPool::KeepAwake), and on one thread the rows stage also reads every manifold
/// the narrowphase wrote on the others (the ragdolls' 248 manifolds: their rows stage 0.81x on two
/// threads with 256 here, 1.04x with 64).
constexpr std::size_t k_manifold_chunks = 64;
constexpr std::size_t k_parallel_manifolds = 64;

/// Appends the rows of every manifold to rows (each manifold one block, in the order of `order`, a
/// permutation of the manifolds' indices: ContactOrder's), prepared (RowStore::set_prepared), and
/// records where they start and their friction directions in manifold_rows (resized to
/// manifolds.size()). motions, masses and velocities are indexed by the manifolds' body numbers;
/// only manifolds for which active(manifold) holds get rows; material(body) gives a body's
/// material; points_of(body) how many contact points the body has this step (for the constant
/// friction model's share of mass). The manifolds are written in chunks on the pool's threads when
/// given (active, material and points_of are then called at once); the rows are the same.
template <class Active, class MaterialOf, class PointsOf>
void write_contact_rows(std::span<ContactManifold> manifolds, std::span<const BodyMotion> motions,
                        std::span<const SolverBodyMass> masses,
                        std::span<const BodyVelocity> velocities, Active&& active,
                        MaterialOf&& material, PointsOf&& points_of,
                        const ContactRowSettings& settings, std::span<const std::uint32_t> order,
                        RowStore& rows, std::vector<ManifoldRows>& manifold_rows,
                        TaskPool* pool = nullptr);

/// Whether a patch of this many points has a twist row: one point cannot resist turning.
constexpr bool patch_has_twist_row(int points) {
  return points >= 2;
}

/// The rows of one manifold: 3 per point, or under the patch model one normal row per point and
/// 3 friction rows (2 without a twist row).
inline std::size_t manifold_row_count(const ContactManifold& manifold, FrictionModel model) {
  const auto count = std::size_t(manifold.count);
  if (model != FrictionModel::patch || count == 0) return 3 * count;
  return count + (patch_has_twist_row(manifold.count) ? 3 : 2);
}

/// Writes the rows of one manifold into rows [first, first + manifold_row_count), where first is
/// where.first_row, appended for them, prepared from the bodies' solver masses (see
/// write_contact_rows); and their friction directions into where.
void write_manifold_rows(const ContactManifold& manifold, const BodyMotion& a, const BodyMotion& b,
                         const SolverBodyMass& mass_a, const SolverBodyMass& mass_b,
                         const BodyVelocity& va, const BodyVelocity& vb,
                         const ContactMaterial& material, const ConstantFriction& constant,
                         const ContactRowSettings& settings, RowStore& rows, ManifoldRows& where);

/// A contact point's share of mass for the constant model: each dynamic body's mass divided
/// among its contact points, averaged over the pair's dynamic bodies (a static body has none).
ConstantFriction constant_friction(const BodyMotion& a, std::size_t points_a, const BodyMotion& b,
                                   std::size_t points_b);

/// Copies the solved impulses back into the manifolds: the next step's warm start. A patch's
/// friction goes to its points as the least point impulses of the same sum and the same moment
/// about its centre. In the chunks write_contact_rows writes them in, on the pool's threads when
/// given; solver's friction model is the one the rows were written with. Counts each point's
/// stalled push-outs (ContactState::stalled, below) by the solver's slop over the step dt.
void store_contact_impulses(const RowStore& rows, std::span<const ManifoldRows> manifold_rows,
                            std::span<ContactManifold> manifolds, const SolverSettings& solver,
                            Real dt, TaskPool* pool = nullptr);

/// Jammed points. A push-out with no solution (a box wider than the gap between two static walls)
/// moves nothing and grows the impulses of the rows that push against each other from step to
/// step along the direction they share, which no solve takes back (docs/solvers.md, "Jammed
/// points"). A point more than twice the slop deep that pushed out at
/// k_stalled_steps steps running while its depth stayed within a quarter of the push and its
/// normal impulse grew is jammed: its normal row is made soft, softness k_jammed_softness times
/// its J M^-1 J^T (a spring: its impulse settles where the push-out's bias is balanced), in the
/// relax solve too, where the softness takes the grown impulse back. It stays so while its depth
/// stays. (Twice the slop: a point the drift's catch-up holds near the slop, sliding over a
/// turning face, pushes at a steady depth while its load grows.)
constexpr std::uint8_t k_stalled_steps = 8;
constexpr Real k_jammed_softness = Real(0.1);

/// Whether a point lies deep enough to stall: past twice the slop.
inline bool deep_enough_to_stall(Real depth, Real slop) {
  return depth > 2 * slop;
}

/// Whether a point pushing out by position_bias (m/s) over dt did not take: deeper than twice the
/// slop, its depth moved by less than a quarter of that push since its impulses were stored, and
/// its normal impulse grew from `before` to `after` (or it is jammed already).
inline bool push_stalled(const ContactState& c, Real position_bias, Real dt, Real slop, Real before,
                         Real after) {
  const Real quarter_push = position_bias * dt / 4;
  return c.warm && position_bias > 0 && deep_enough_to_stall(c.point.depth, slop) &&
         std::abs(c.point.depth - c.stored_depth) < quarter_push &&
         (after > before || c.stalled >= k_stalled_steps);
}

template <class Active, class MaterialOf, class PointsOf>
void write_contact_rows(std::span<ContactManifold> manifolds, std::span<const BodyMotion> motions,
                        std::span<const SolverBodyMass> masses,
                        std::span<const BodyVelocity> velocities, Active&& active,
                        MaterialOf&& material, PointsOf&& points_of,
                        const ContactRowSettings& settings, std::span<const std::uint32_t> order,
                        RowStore& rows, std::vector<ManifoldRows>& manifold_rows, TaskPool* pool) {
  manifold_rows.resize(manifolds.size());
  // The blocks in the order given; an inactive manifold's range gets k_no_rows, and no rows.
  rows.append_blocks(
      order.size(),
      [&](std::size_t j) {
        const std::uint32_t k = order[j];
        return manifold_rows[k].first_row == ManifoldRows::k_no_rows
                   ? std::size_t(0)
                   : manifold_row_count(manifolds[k], settings.solver->friction_model);
      },
      [&](std::size_t j, std::uint32_t first) {
        const std::uint32_t k = order[j];
        manifold_rows[k].first_row = active(manifolds[k]) ? first : ManifoldRows::k_no_rows;
      });
  const bool constant = settings.solver->friction_model == FrictionModel::constant;
  run_ranges(pool, manifolds.size(), k_manifold_chunks, k_parallel_manifolds,
             [&](std::size_t begin, std::size_t end) {
               for (std::size_t k = begin; k < end; ++k) {
                 if (manifold_rows[k].first_row == ManifoldRows::k_no_rows) continue;
                 const ContactManifold& m = manifolds[k];
                 const BodyMotion& a = motions[m.body_a];
                 const BodyMotion& b = motions[m.body_b];
                 write_manifold_rows(
                     m, a, b, masses[m.body_a], masses[m.body_b], velocities[m.body_a],
                     velocities[m.body_b],
                     combine_materials(material(m.body_a), material(m.body_b)),
                     constant ? constant_friction(a, points_of(m.body_a), b, points_of(m.body_b))
                              : ConstantFriction{},
                     settings, rows, manifold_rows[k]);
               }
             });
}

}  // namespace impulse
