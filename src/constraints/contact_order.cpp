#include "constraints/contact_order.h"

#include <algorithm>

namespace impulse {
namespace {

// How many steps an idle manifold's gap must stay open at its points' approach speeds. Without
// the look-ahead, limbs falling onto others came into contact within the step, after every other
// row, and the peers' ragdolls took 1.02x as long over 41 trajectories (docs/performance.md).
constexpr Real k_steps_ahead = 2;

// Whether manifold m is idle (the file's comment): each point more than slop apart, carrying no
// impulse (the constant friction model bounds a contact's friction without its normal impulse, so
// friction too), and its gap open after k_steps_ahead steps of its approach.
bool idle(const ContactManifold& m, std::span<const BodyMotion> motions,
          std::span<const BodyVelocity> velocities, Real slop, Real dt) {
  const BodyVelocity& va = velocities[m.body_a];
  const BodyVelocity& vb = velocities[m.body_b];
  const Vec3& ca = motions[m.body_a].center;
  const Vec3& cb = motions[m.body_b].center;
  return std::all_of(m.points.begin(), m.points.begin() + m.count, [&](const ContactState& c) {
    // The approach is found only where the rest holds (most manifolds touch).
    if (c.normal_impulse != 0 || c.friction_impulse != Vec3::zero() || c.point.depth >= -slop)
      return false;
    const Vec3& p = c.point.position;
    const Real closing =
        std::max(Real(0), -dot(relative_velocity_at(va, p - ca, vb, p - cb), m.normal));
    return c.point.depth + closing * dt * k_steps_ahead < -slop;
  });
}

}  // namespace

bool ContactOrder::take_structure(std::span<const ContactManifold> manifolds) {
  bool same = structure_.size() == manifolds.size();
  structure_.resize(manifolds.size());
  for (std::size_t k = 0; k < manifolds.size(); ++k) {
    const ContactManifold& m = manifolds[k];
    const Entry entry{m.shape_a, m.shape_b, m.count};
    same = same && structure_[k] == entry;
    structure_[k] = entry;
  }
  return same;
}

std::span<const std::uint32_t> ContactOrder::update(std::span<const ContactManifold> manifolds,
                                                    std::span<const BodyMotion> motions,
                                                    std::span<const BodyVelocity> velocities,
                                                    Real slop, Real dt) {
  if (take_structure(manifolds)) return order_;
  // The others from the front, the idle ones from the back, then those turned to list order.
  order_.resize(manifolds.size());
  auto others = order_.begin(), idle_ones = order_.end();
  for (std::size_t k = 0; k < manifolds.size(); ++k)
    *(idle(manifolds[k], motions, velocities, slop, dt) ? --idle_ones : others++) =
        std::uint32_t(k);
  std::reverse(idle_ones, order_.end());
  return order_;
}

}  // namespace impulse
