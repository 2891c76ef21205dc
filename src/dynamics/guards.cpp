#include "dynamics/guards.h"

#include "core/number_text.h"

#include "dynamics/integrator.h"
#include "dynamics/sleep.h"
#include "dynamics/world_contacts.h"

#include <algorithm>
#include <array>

namespace impulse {
namespace {

std::string described(const std::string& kind, const std::string& name, std::uint32_t index,
                      std::uint32_t generation) {
  const std::string id = std::to_string(index) + ":" + std::to_string(generation);
  return name.empty() ? kind + " " + id : kind + " '" + name + "' (" + id + ")";
}

BodyId body_id(const World::Impl& impl, std::uint32_t slot) {
  return slot == World::Impl::k_world_slot ? BodyId{} : BodyId{slot, impl.records[slot].generation};
}

std::string stage_prefix(StepStage stage) {
  return std::string("step (") + step_stage_name(stage) + "): ";
}

// Whose row i is: a joint's, a custom constraint's, or else a contact's (contacts write first).
struct RowOwner {
  std::optional<std::uint32_t> joint;
  std::optional<std::uint32_t> constraint;
};

RowOwner owner_of_row(const World::Impl& impl, std::size_t i) {
  for (const std::uint32_t j : impl.live_joints) {
    const World::Impl::JointRecord& joint = impl.joints[j];
    if (i >= joint.first_row && i < joint.first_row + joint.row_count) return {j, std::nullopt};
  }
  for (std::size_t c = 0; c < impl.custom_constraints.size(); ++c) {
    const World::Impl::CustomConstraintRecord& record = impl.custom_constraints[c];
    if (record.alive && i >= record.first_row && i < record.first_row + record.rows.size())
      return {std::nullopt, std::uint32_t(c)};
  }
  return {};
}

// Fills the row's part of a report: its bodies, its constraint, and how the message names it.
std::string describe_row(const World::Impl& impl, std::size_t i, Diagnostic& d) {
  const std::uint32_t a = impl.rows.body_a[i], b = impl.rows.body_b[i];
  d.body = body_id(impl, a);
  d.other_body = body_id(impl, b);
  const RowOwner owner = owner_of_row(impl, i);
  const std::string bodies =
      describe_body(impl, a) +
      (b == World::Impl::k_world_slot ? " and the world" : " and " + describe_body(impl, b));
  if (owner.joint) {
    d.joint = JointId{*owner.joint, impl.joints[*owner.joint].generation};
    return "a row of " + describe_joint(impl, *owner.joint) + " (" + bodies + ")";
  }
  if (owner.constraint) {
    d.constraint =
        ConstraintId{*owner.constraint, impl.custom_constraints[*owner.constraint].generation};
    return "a row of custom constraint " + std::to_string(*owner.constraint) + " (" + bodies + ")";
  }
  d.contact = true;
  return "a contact row between " + bodies;
}

// 0 where a body's position, orientation and velocity are finite, NaN otherwise: x * 0 is 0 for a
// finite x and NaN for an infinite or NaN one, and a sum of them NaN if any is. Without a branch
// per number: the guards pass over every awake body twice a step, and thirteen tests a body took
// 1% of the pyramid's step.
Real state_zero(const BodyMotion& m, const BodyVelocity& v) {
  const auto zero = [](const Vec3& a) { return (a.x * 0 + a.y * 0) + a.z * 0; };
  const Quat& q = m.orientation;
  return (zero(m.center) + ((q.x * 0 + q.y * 0) + (q.z * 0 + q.w * 0))) +
         (zero(v.linear) + zero(v.angular));
}

bool faulty(const World::Impl& impl, std::uint32_t slot) {
  return !(state_zero(impl.motions[slot], impl.velocities[slot]) == 0);
}

// The first row on the body whose impulse is not finite, if any.
std::optional<std::size_t> non_finite_row_of(const World::Impl& impl, std::uint32_t slot) {
  for (std::size_t i = 0; i < impl.rows.size(); ++i) {
    if ((impl.rows.body_a[i] == slot || impl.rows.body_b[i] == slot) &&
        !is_finite(impl.rows.lambda[i]))
      return i;
  }
  return std::nullopt;
}

void freeze(World::Impl& impl, std::uint32_t slot) {
  BodyMotion& m = impl.motions[slot];
  const World::Impl::Pose& pose = impl.start_poses[slot];
  m.center = pose.center;
  m.orientation = pose.orientation;
  m.refresh_world_inertia();
  m.force = Vec3::zero();
  m.torque = Vec3::zero();
  impl.velocities[slot] = {};
  impl.sleep[slot] = BodySleep::frozen_state();
  move_body_shapes(impl, slot);
  impl.frozen_this_step.push_back(slot);
}

}  // namespace

std::string describe_body(const World::Impl& impl, std::uint32_t slot) {
  return described("body", impl.records[slot].settings.name, slot, impl.records[slot].generation);
}

std::string describe_joint(const World::Impl& impl, std::uint32_t index) {
  const World::Impl::JointRecord& joint = impl.joints[index];
  return described("joint", joint.model.settings.name, index, joint.generation);
}

void begin_remembering_poses(World::Impl& impl) {
  impl.start_poses.resize(impl.motions.size());
  impl.frozen_this_step.clear();
}

void remember_chunk_poses(World::Impl& impl, std::span<const std::uint32_t> slots) {
  for (const std::uint32_t slot : slots)
    impl.start_poses[slot] = {impl.motions[slot].center, impl.motions[slot].orientation};
}

void clamp_chunk(World::Impl& impl, std::size_t chunk, std::span<const std::uint32_t> slots) {
  // The chunk's list is empty: report_clamped, which follows every pass, empties what it reads.
  clamp_velocities(slots, impl.velocities, impl.settings.max_linear_speed,
                   impl.settings.max_angular_speed, impl.clamped_by_chunk[chunk]);
}

void report_clamped(World::Impl& impl, StepStage stage) {
  impl.clamped_slots.clear();
  // Each chunk's list emptied once read: a pass on fewer chunks (one thread) leaves the others'.
  for (std::vector<std::uint32_t>& clamped : impl.clamped_by_chunk) {
    impl.clamped_slots.insert(impl.clamped_slots.end(), clamped.begin(), clamped.end());
    clamped.clear();
  }
  for (const std::uint32_t slot : impl.clamped_slots) {
    Diagnostic d;
    d.kind = DiagnosticKind::velocity_clamped;
    d.stage = stage;
    d.body = body_id(impl, slot);
    d.message = stage_prefix(stage) + describe_body(impl, slot) +
                " moved faster than the world's limits (max_linear_speed " +
                number_text(impl.settings.max_linear_speed) + " m/s, max_angular_speed " +
                number_text(impl.settings.max_angular_speed) + " rad/s) and was slowed to them";
    impl.diagnostics.push_back(std::move(d));
  }
}

void clamp_and_report(World::Impl& impl, StepStage stage) {
  impl.for_awake_chunks([&](std::size_t chunk, std::span<const std::uint32_t> slots) {
    clamp_chunk(impl, chunk, slots);
  });
  report_clamped(impl, stage);
}

bool any_faulty(const World::Impl& impl, std::span<const std::uint32_t> slots) {
  Real sum = 0;
  for (const std::uint32_t slot : slots)
    sum += state_zero(impl.motions[slot], impl.velocities[slot]);
  return !(sum == 0);
}

bool freeze_faulty(World::Impl& impl, StepStage stage,
                   const std::array<bool, World::Impl::k_body_chunks>& chunk_faulty) {
  if (std::none_of(chunk_faulty.begin(), chunk_faulty.end(), [](bool f) { return f; }))
    return false;
  for (const std::uint32_t slot : impl.awake_slots) {
    if (!faulty(impl, slot)) continue;
    Diagnostic d;
    d.kind = DiagnosticKind::non_finite_body;
    d.stage = stage;
    std::string cause;
    if (const auto row = non_finite_row_of(impl, slot)) {
      cause = "; " + describe_row(impl, *row, d) + " gave it a non-finite impulse";
    }
    d.body = body_id(impl, slot);
    d.message = stage_prefix(stage) + describe_body(impl, slot) +
                " has a non-finite position, orientation or velocity" + cause +
                "; frozen at its pose from the start of the step";
    impl.diagnostics.push_back(std::move(d));
    freeze(impl, slot);
  }
  // No cache or joint may warm-start the next step from a non-finite impulse.
  for (Real& lambda : impl.rows.lambda) {
    if (!is_finite(lambda)) lambda = 0;
  }
  std::erase_if(impl.awake_slots, [&](std::uint32_t slot) { return impl.sleep[slot].frozen; });
  return true;
}

bool guard_bodies(World::Impl& impl, StepStage stage) {
  std::array<bool, World::Impl::k_body_chunks> chunk_faulty{};
  impl.for_awake_chunks([&](std::size_t chunk, std::span<const std::uint32_t> slots) {
    chunk_faulty[chunk] = any_faulty(impl, slots);
  });
  return freeze_faulty(impl, stage, chunk_faulty);
}

void hold_frozen_bodies(World::Impl& impl) {
  for (const std::uint32_t slot : impl.frozen_this_step)
    impl.velocities[slot] = {};
}

void report_degenerate_rows(World::Impl& impl) {
  if (impl.rows.degenerate_rows() == 0) return;
  for (std::size_t i = 0; i < impl.rows.size(); ++i) {
    // A custom row on bodies that all sleep (or are static) rests with them: not a fault.
    if (impl.rows.inv_eff_mass[i] != 0 ||
        !(is_solved(impl, impl.rows.body_a[i]) || is_solved(impl, impl.rows.body_b[i])))
      continue;
    Diagnostic d;
    d.kind = DiagnosticKind::degenerate_row;
    d.stage = StepStage::solve;
    const std::string row = describe_row(impl, i, d);
    d.message = stage_prefix(StepStage::solve) + row +
                " has a zero, negative or non-finite J M^-1 J^T (its bodies cannot move along it); "
                "skipped";
    impl.diagnostics.push_back(std::move(d));
  }
}

void report_refused_solve(World::Impl& impl, const SolveStats& refused) {
  Diagnostic d;
  d.kind = DiagnosticKind::solve_refused;
  d.stage = StepStage::solve;
  d.message = stage_prefix(StepStage::solve) + "the " +
              solver_type_name(impl.settings.solver.type) + " solver refused the step's rows (" +
              refused.diagnostic + "); pgs solved them instead";
  impl.diagnostics.push_back(std::move(d));
}

void report_joint_removed(World::Impl& impl, std::uint32_t joint, std::uint32_t body) {
  Diagnostic d;
  d.kind = DiagnosticKind::joint_removed;
  d.stage = StepStage::api;
  d.body = body_id(impl, body);
  d.joint = JointId{joint, impl.joints[joint].generation};
  d.message = "remove_body: " + describe_joint(impl, joint) + " held " + describe_body(impl, body) +
              " and was removed with it";
  impl.diagnostics.push_back(std::move(d));
}

}  // namespace impulse
