#include "dynamics/world_contacts.h"

#include "constraints/impact_pass.h"
#include "dynamics/sleep.h"
#include "dynamics/world_joints.h"

#include <algorithm>
#include <array>

namespace impulse {
namespace {

bool is_dynamic(const World::Impl& impl, std::uint32_t slot) {
  return impl.motions[slot].type == BodyType::dynamic_body;
}

ContactRowSettings row_settings(const World::Impl& impl, Real dt) {
  return {dt, impl.last_dt > 0 ? dt / impl.last_dt : Real(1), length(impl.settings.gravity),
          &impl.settings.solver,
          impl.bouncy_bodies > 0 ? std::span<const BodyVelocity>(impl.force_changes)
                                 : std::span<const BodyVelocity>()};
}

bool pair_is_awake(const World::Impl& impl, const ContactManifold& m) {  // a sleeping pair rests
  return is_solved(impl, m.body_a) || is_solved(impl, m.body_b);
}

// f(shape, its pose) for each of the body's shapes at the body's pose.
template <class F>
void for_body_shapes(const World::Impl& impl, std::uint32_t slot, const F& f) {
  const BodyRecord& record = impl.records[slot];
  const Transform pose = impl.motions[slot].origin_transform();
  for (std::size_t i = 0; i < record.shapes.size(); ++i)
    f(record.shapes[i], pose * record.settings.shapes[i].local);
}

}  // namespace

void add_body_shapes(World::Impl& impl, std::uint32_t slot, std::vector<CookedShape> shapes) {
  BodyRecord& record = impl.records[slot];
  const Transform pose = impl.motions[slot].origin_transform();
  record.shapes.clear();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Transform local = record.settings.shapes[i].local;
    record.shapes.push_back(impl.contacts.add_shape(std::move(shapes[i]), slot, pose * local));
  }
}

void remove_body_shapes(World::Impl& impl, std::uint32_t slot) {
  for (const std::uint32_t shape : impl.records[slot].shapes)
    impl.contacts.remove_shape(shape);
  impl.records[slot].shapes.clear();
}

void move_body_shapes(World::Impl& impl, std::uint32_t slot) {
  for_body_shapes(impl, slot, [&](std::uint32_t shape, const Transform& pose) {
    impl.contacts.move_shape(shape, pose, {});
  });
}

// The awake bodies' shapes are placed in chunks on the pool; those that left their fat boxes then
// move in the broadphase one by one, in the order of the slots (the tree's structure follows it).
void find_pairs(World::Impl& impl, Real dt) {
  std::array<bool, World::Impl::k_body_chunks> chunk_moves{};
  impl.for_awake_chunks([&](std::size_t chunk, std::span<const std::uint32_t> slots) {
    bool moves = false;
    for (const std::uint32_t slot : slots) {
      if (impl.motions[slot].type == BodyType::static_body) continue;
      const BodyVelocity& v = impl.velocities[slot];
      const StepMotion motion{v.linear * dt, impl.motions[slot].center, length(v.angular) * dt};
      for_body_shapes(impl, slot, [&](std::uint32_t shape, const Transform& pose) {
        moves = impl.contacts.place_shape(shape, pose, motion) || moves;
      });
    }
    chunk_moves[chunk] = moves;
  });
  if (std::any_of(chunk_moves.begin(), chunk_moves.end(), [](bool m) { return m; })) {
    for (const std::uint32_t slot : impl.awake_slots) {
      for (const std::uint32_t shape : impl.records[slot].shapes)
        impl.contacts.move_placed(shape);
    }
  }
  impl.contacts.find_new_pairs();
}

void find_contacts(World::Impl& impl) {
  // Contacts need a dynamic body (static and kinematic bodies push, they are not pushed), and a
  // pair at rest keeps its contacts while it sleeps. Jointed bodies collide only when asked to,
  // and bodies only as their filters let them.
  impl.contacts.set_reuse(impl.settings.reuse_contacts ? ContactReuse{} : ContactReuse{0, 0});
  impl.contacts.collide_pairs(
      impl.settings.speculative_margin,
      [&](std::uint32_t a, std::uint32_t b) {
        if (!is_dynamic(impl, a) && !is_dynamic(impl, b)) return PairUpdate::ignore;
        if (joint_blocks_contacts(impl, a, b)) return PairUpdate::ignore;
        if (impl.filtered_bodies > 0 && !filters_collide(impl.filters[a], impl.filters[b]))
          return PairUpdate::ignore;
        return pair_is_active(impl, a, b) ? PairUpdate::collide : PairUpdate::keep;
      },
      impl.step_pool());
}

void resolve_contact_impacts(World::Impl& impl, Real dt) {
  if (impl.bouncy_bodies == 0) return;  // every pair's restitution is 0: a pass over them all
  // The bodies the solve may move together with another: their impacts' lags stay zero. Custom
  // constraints name their bodies only as they write their rows: any live one shares them all.
  std::vector<std::uint8_t>& shared = impl.impact_shared;
  const bool custom = std::any_of(impl.custom_constraints.begin(), impl.custom_constraints.end(),
                                  [](const auto& c) { return c.alive; });
  shared.assign(impl.motions.size(), custom ? 1 : 0);
  for (const ContactManifold& m : impl.contacts.manifolds()) {
    if (pair_is_awake(impl, m) && impl.solver_mass(m.body_a).movable() &&
        impl.solver_mass(m.body_b).movable())
      shared[m.body_a] = shared[m.body_b] = 1;
  }
  for (const std::uint32_t j : impl.live_joints) {
    const World::Impl::JointRecord& joint = impl.joints[j];
    if (!joint.state.broken) shared[joint.body_a] = shared[joint.body_b] = 1;
  }
  resolve_impacts(
      impl.contacts.manifolds(), impl.motions, impl.velocities,
      [&](const ContactManifold& m) { return pair_is_awake(impl, m); },
      [&](const ContactManifold& m) {
        return combine_materials(impl.materials[m.body_a], impl.materials[m.body_b]);
      },
      [&](std::uint32_t slot) { return impl.solver_mass(slot); },
      [&](std::uint32_t slot) { return shared[slot] ? nullptr : &impl.impact_lags[slot]; },
      row_settings(impl, dt), impl.impacts);
}

void write_contact_rows(World::Impl& impl, Real dt) {
  const ContactRowSettings settings = row_settings(impl, dt);
  // Contact points per body: the constant friction model divides a body's mass among them (the
  // others never ask).
  std::vector<std::uint32_t>& points = impl.contact_points_per_body;
  if (impl.settings.solver.friction_model == FrictionModel::constant) {
    points.assign(impl.motions.size(), 0);
    for (const ContactManifold& m : impl.contacts.manifolds()) {
      points[m.body_a] += std::uint32_t(m.count);
      points[m.body_b] += std::uint32_t(m.count);
    }
  }
  const std::span<const std::uint32_t> order = impl.contact_order.update(
      impl.contacts.manifolds(), impl.motions, impl.velocities, settings.solver->slop, dt);
  write_contact_rows(
      impl.contacts.manifolds(), impl.motions, impl.solver_masses, impl.velocities,
      [&](const ContactManifold& m) { return pair_is_awake(impl, m); },
      [&](std::uint32_t slot) { return impl.materials[slot]; },
      [&](std::uint32_t slot) { return points[slot]; }, settings, order, impl.rows,
      impl.manifold_rows, &impl.step_pool());
}

void store_contact_impulses(World::Impl& impl, Real dt) {
  store_contact_impulses(impl.rows, impl.manifold_rows, impl.contacts.manifolds(),
                         impl.settings.solver, dt, &impl.step_pool());
}

}  // namespace impulse
