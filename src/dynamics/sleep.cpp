#include "dynamics/sleep.h"

#include <algorithm>

#include "constraints/contact_rows.h"

namespace impulse {
namespace {

bool is_dynamic(const World::Impl& impl, std::uint32_t slot) {
  return impl.motions[slot].type == BodyType::dynamic_body;
}

// Overlapping, or held apart by the last step's impulse: a body that a speculative contact
// stopped exactly at the surface rests there without ever overlapping.
bool touching(const ContactManifold& m) {
  for (int k = 0; k < m.count; ++k) {
    const ContactState& c = m.points[std::size_t(k)];
    if (c.point.depth >= 0 || c.normal_impulse > 0) return true;
  }
  return false;
}

// Apart but closing the gap within the coming step at the bodies' speeds, gravity's pull over the
// step allowed for: the speculative contact would stop the moving body at the sleeping one's
// surface as at a static one's (a ball thrown at a sleeping box came back off it, the box never
// woken), so the sleeping one wakes first.
bool reached_this_step(const World::Impl& impl, const ContactManifold& m, Real dt) {
  const Real pull = length(impl.settings.gravity) * dt;
  const BodyVelocity& va = impl.velocities[m.body_a];
  const BodyVelocity& vb = impl.velocities[m.body_b];
  for (int k = 0; k < m.count; ++k) {
    const ContactPoint& c = m.points[std::size_t(k)].point;
    const ActingPoints at = acting_points(c, m.normal);
    const Vec3 rel = relative_velocity_at(va, at.on_a - impl.motions[m.body_a].center, vb,
                                          at.on_b - impl.motions[m.body_b].center);
    if (touches_within(c.depth, dot(m.normal, rel) - pull, dt)) return true;
  }
  return false;
}

}  // namespace

bool is_moving(const World::Impl& impl, std::uint32_t slot) {
  switch (impl.motions[slot].type) {
    case BodyType::dynamic_body:
      return !impl.sleep[slot].asleep;
    case BodyType::kinematic_body: {
      const BodyVelocity& v = impl.velocities[slot];
      return v.linear != Vec3::zero() || v.angular != Vec3::zero();
    }
    case BodyType::static_body:
      break;
  }
  return false;
}

void wake_body(World::Impl& impl, std::uint32_t slot) {
  if (impl.sleep[slot].frozen) return;
  if (!impl.sleep[slot].asleep) {
    impl.sleep[slot].idle_time = 0;
    return;
  }
  const std::uint32_t island = impl.sleep[slot].island;
  for (const std::uint32_t other : impl.live_slots) {
    BodySleep& s = impl.sleep[other];
    if (s.asleep && s.island == island) s = {};
  }
}

void wake_touched_islands(World::Impl& impl, Real dt) {
  for (const ContactManifold& m : impl.contacts.manifolds()) {
    if (!touching(m) && !reached_this_step(impl, m, dt)) continue;
    const bool a_asleep = impl.sleep[m.body_a].asleep, b_asleep = impl.sleep[m.body_b].asleep;
    if (a_asleep && is_moving(impl, m.body_b)) wake_body(impl, m.body_a);
    if (b_asleep && is_moving(impl, m.body_a)) wake_body(impl, m.body_b);
  }
}

bool pair_is_active(const World::Impl& impl, std::uint32_t a, std::uint32_t b) {
  return is_moving(impl, a) || is_moving(impl, b);
}

void collect_awake(World::Impl& impl) {
  impl.awake_slots.clear();
  for (const std::uint32_t slot : impl.live_slots) {
    if (!impl.sleep[slot].asleep) impl.awake_slots.push_back(slot);
  }
}

void update_sleep(World::Impl& impl, Real dt) {
  if (!impl.settings.sleeping) return;
  const Real lin2 = k_sleep_linear_speed * k_sleep_linear_speed;
  const Real ang2 = k_sleep_angular_speed * k_sleep_angular_speed;
  for (const std::uint32_t slot : impl.awake_slots) {
    const BodyVelocity& v = impl.velocities[slot];
    BodySleep& s = impl.sleep[slot];
    const bool idle = length_squared(v.linear) < lin2 && length_squared(v.angular) < ang2;
    s.idle_time = idle ? s.idle_time + dt : 0;
  }
  // Islands: dynamic bodies joined by touching contacts, joints and custom constraints. A moving
  // kinematic body keeps whatever it touches awake.
  IslandSets& sets = impl.islands;
  sets.reset(impl.motions.size());
  for (const ContactManifold& m : impl.contacts.manifolds()) {
    if (!touching(m)) continue;
    if (is_dynamic(impl, m.body_a) && is_dynamic(impl, m.body_b)) sets.join(m.body_a, m.body_b);
    for (const auto& [body, other] :
         {std::pair{m.body_a, m.body_b}, std::pair{m.body_b, m.body_a}}) {
      if (impl.motions[other].type != BodyType::kinematic_body) continue;
      const BodyVelocity& v = impl.velocities[other];
      if (length_squared(v.linear) >= lin2 || length_squared(v.angular) >= ang2)
        impl.sleep[body].idle_time = 0;
    }
  }
  for (const std::uint32_t j : impl.live_joints) {
    const World::Impl::JointRecord& joint = impl.joints[j];
    if (!joint.state.broken && is_dynamic(impl, joint.body_a) && is_dynamic(impl, joint.body_b))
      sets.join(joint.body_a, joint.body_b);
  }
  for (const auto& c : impl.custom_constraints) {
    for (const ConstraintRow& row : c.rows) {
      const std::uint32_t a = row.body_a.index, b = row.body_b.index;
      if (row.body_b.is_null()) continue;
      if (is_dynamic(impl, a) && is_dynamic(impl, b)) sets.join(a, b);
    }
  }
  // An island sleeps when its least idle body has idled long enough.
  std::vector<Real>& least_idle = impl.island_idle;
  least_idle.assign(impl.motions.size(), k_infinity);
  for (const std::uint32_t slot : impl.awake_slots) {
    if (!is_dynamic(impl, slot)) continue;
    Real& least = least_idle[sets.find(slot)];
    least = std::min(least, impl.sleep[slot].idle_time);
  }
  for (const std::uint32_t slot : impl.awake_slots) {
    if (!is_dynamic(impl, slot)) continue;
    const std::uint32_t root = sets.find(slot);
    if (least_idle[root] < k_time_to_sleep) continue;
    impl.sleep[slot] = {impl.sleep[slot].idle_time, root, true};
    impl.velocities[slot] = {};
  }
}

}  // namespace impulse
