#include "dynamics/world_joints.h"
#include "dynamics/geometric_stiffness.h"
#include "dynamics/guards.h"
#include "dynamics/joint_row_decoupling.h"

#include "dynamics/sleep.h"
#include "dynamics/validation.h"

#include <impulse/error.h>

#include <algorithm>
#include <cstring>
#include <span>

namespace impulse {
namespace {

std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  return (std::uint64_t(std::min(a, b)) << 32) | std::max(a, b);
}

JointBodyPose pose_of(const World::Impl& impl, std::uint32_t slot) {
  const BodyMotion& m = impl.motions[slot];
  return {m.center, m.orientation};
}

JointGeometry geometry_of(const World::Impl& impl, const World::Impl::JointRecord& joint) {
  JointGeometry g =
      joint_geometry(joint.model, pose_of(impl, joint.body_a), pose_of(impl, joint.body_b));
  g.still_axes = impl.motions[joint.body_b].type == BodyType::static_body;
  // Only the types whose rows may act there (locked_axis_row) ask for it: not a ragdoll's.
  const JointType type = joint.model.settings.type;
  if (type != JointType::prismatic && type != JointType::six_dof) return g;
  const BodyMotion& a = impl.motions[joint.body_a];
  const BodyMotion& b = impl.motions[joint.body_b];
  const Real turn_a = trace(a.inv_inertia_local), turn_b = trace(b.inv_inertia_local);
  if (turn_a + turn_b > 0)
    g.locked_point = (turn_a * a.center + turn_b * b.center) / (turn_a + turn_b);
  return g;
}

// Bitwise: the same rows follow from the same bits, where +0 and -0 could round differently.
bool same_pose(const JointBodyPose& x, const JointBodyPose& y) {
  return std::memcmp(&x.center, &y.center, sizeof(Vec3)) == 0 &&
         std::memcmp(&x.orientation, &y.orientation, sizeof(Quat)) == 0;
}

// Whether the joint's measured rows are its rows now (World::Impl::JointRecord::measured).
bool measured_rows_hold(const World::Impl& impl, const World::Impl::JointRecord& joint) {
  return !joint.measured.empty() && same_pose(joint.measured_a, pose_of(impl, joint.body_a)) &&
         same_pose(joint.measured_b, pose_of(impl, joint.body_b));
}

// Where the joint is in the world, for its state.
void place_joint(JointState& state, const JointGeometry& g) {
  state.anchor_a = g.p_a;
  state.anchor_b = g.p_b;
  state.frame_a = g.frame_a;
  state.frame_b = g.frame_b;
}

bool is_dynamic(const World::Impl& impl, std::uint32_t slot) {
  return impl.motions[slot].type == BodyType::dynamic_body;
}

// A joint acts unless broken or the solve moves none of its bodies (a sleeping body on a static
// one holds still, as contacts do).
bool is_acting(const World::Impl& impl, const World::Impl::JointRecord& joint) {
  return !joint.state.broken && (is_solved(impl, joint.body_a) || is_solved(impl, joint.body_b));
}

void rebuild_unconnected_pairs(World::Impl& impl) {
  impl.unconnected_pairs.clear();
  impl.unconnected_bodies.assign(impl.motions.size(), 0);
  for (const std::uint32_t j : impl.live_joints) {
    const World::Impl::JointRecord& joint = impl.joints[j];
    if (!joint.state.broken && !joint.model.settings.collide_connected) {
      impl.unconnected_pairs.push_back(pair_key(joint.body_a, joint.body_b));
      impl.unconnected_bodies[joint.body_a] = impl.unconnected_bodies[joint.body_b] = 1;
    }
  }
  std::sort(impl.unconnected_pairs.begin(), impl.unconnected_pairs.end());
}

void wake_joint_bodies(World::Impl& impl, const World::Impl::JointRecord& joint) {
  wake_body(impl, joint.body_a);
  wake_body(impl, joint.body_b);
}

// Turns a joint's rows into solver rows: Baumgarte (or none while projecting), springs as soft
// rows, rigid limits speculative while not reached (soft ones no row until passed), motors
// bounded, warm starts by slot; then (finish) its limits and motors decoupled from its rigid rows,
// and its springs and those rows from each other for the solvers that visit them one by one. The
// rows go prepared into `out`, the staging of the joint's chunk (write_joint_rows appends them).
class StoreSink final : public JointRowSink {
 public:
  StoreSink(const World::Impl& impl, World::Impl::JointRecord& joint, Real dt, Real warm_scale,
            std::vector<World::Impl::PreparedJointRow>& out)
      : impl_(impl),
        joint_(joint),
        dt_(dt),
        warm_scale_(warm_scale),
        mass_a_(impl.solver_masses[joint.body_a]),
        mass_b_(impl.solver_masses[joint.body_b]),
        out_(out),
        first_(out.size()) {}

  void add(const JointRow& row) override {
    // A soft limit pulls only once passed: not reached, it is no row. As a speculative row (a
    // rigid limit's) it stopped a body dead at its edge, whatever the spring.
    const bool soft_limit = row.kind == JointRow::Kind::limit && row.spring.frequency > 0;
    if (soft_limit && !(row.error < 0)) return;
    const bool spring = row.spring.frequency > 0 && !(soft_limit && pass_soft_limit(row));
    // A row its bodies cannot move along (a nail's out-of-plane row in a plane world, a hinge's
    // angular rows on a particle) holds by itself: not written, so not reported as degenerate.
    // One whose J M^-1 J^T rounds to below zero is left out too: its bodies' response along it is
    // rounding, a needle's on its own inertia (no min_inertia_ratio), whose R I^-1 R^T is definite
    // only to rounding (docs/integration.md).
    World::Impl::PreparedJointRow& prepared =
        out_.emplace_back(std::array{row.lin_a, row.ang_a, row.lin_b, row.ang_b}, mass_a_, mass_b_);
    const LaneRow& response = prepared.response;
    const Real w = response.diagonal;
    if (w <= 0 || (planar() && !(w > k_off_plane * unheld_diagonal(row)))) {
      out_.pop_back();
      return;
    }
    const SolverSettings& solver = impl_.settings.solver;
    const Real beta = solver.position_iterations > 0 ? Real(0) : solver.baumgarte;
    // Written in place: a RowSpec built aside and copied whole was read back in 16-byte pieces
    // just after its fields' smaller stores, which the processor does not forward (a stall each).
    // Its Jacobian is the response's (RowStore::set_prepared).
    RowSpec& spec = prepared.spec;
    spec.body_a = joint_.body_a;
    spec.body_b = joint_.body_b;
    switch (row.kind) {
      case JointRow::Kind::equality:
        spec.bias = -beta / dt_ * row.error;
        // Baumgarte pumps energy into long chains when the iterations stop short of
        // convergence; a little constraint force mixing (as ODE's CFM) damps it (docs/joints.md).
        if (beta > 0 && !impl_.solver->solves_bilateral_rows_exactly())
          spec.softness = solver.joint_softness * unlevered_diagonal(response);
        break;
      case JointRow::Kind::limit:
        spec.lo = 0;
        // Not reached yet: it may approach the limit this step but not pass it. Passed, a push
        // back as a contact's out of an overlap: it moves the bodies, and the relax solve takes
        // its velocity away again (docs/solvers.md, "Relax"). An angular one at most
        // max_angular_push_speed: a twist back from a six_dof's swing of half a turn, where it is
        // undefined, read 2.8 rad past its limit, and a turn that large in a step is integrated
        // off the joint's circle, which the point rows' bias then corrects with a speed the relax
        // keeps (docs/joints.md, "Limits passed far").
        spec.bias = row.error > 0 ? -row.error / dt_ : -beta / dt_ * row.error;
        if (row.error < 0) {
          if (row.angular) spec.bias = std::min(spec.bias, solver.max_angular_push_speed);
          spec.position_bias = spec.bias;
        }
        break;
      case JointRow::Kind::motor:
        spec.bias = row.speed;
        spec.lo = -row.max_force * dt_;
        spec.hi = row.max_force * dt_;
        break;
    }
    // (w is not finite only where the Jacobian is not: prepare leaves such a row inert.)
    if (spring && is_finite(w)) {
      const SoftRow soft = soft_row(unlevered_diagonal(response), row.spring.frequency,
                                    row.spring.damping_ratio, dt_);
      spec.softness = soft.softness;
      spec.bias = -soft.bias_factor / dt_ * row.error;
      spec.position_bias = 0;  // a spring's pull is a force, not a correction
      if (soft_limit)
        softness_per_inverse_mass_[row.slot] =
            soft_row(1, row.spring.frequency, row.spring.damping_ratio, dt_).softness;
    }
    spec.lambda = solver.warm_start ? joint_.impulses[row.slot] * warm_scale_ : 0;
    const auto index = std::uint8_t(joint_.row_count);
    errors_[index] = row.error;
    place_[index] = row.kind == JointRow::Kind::limit ? k_limit_end : k_other_row;
    // The upper end of a range whose lower end was written (both rigid, or both soft and passed).
    if (row.upper_end && index > 0 && place_[index - 1] == k_limit_end &&
        joint_.row_slots[index - 1] + 1 == row.slot)
      place_[errors_[index] < errors_[index - 1] ? index - 1 : index] = k_farther_end;
    if (row.kind != JointRow::Kind::equality)
      roles_.bounded[roles_.bounded_count++] = index;
    else if (!spring)
      roles_.equalities[roles_.equality_count++] = index;
    else
      roles_.springs[roles_.spring_count++] = index;
    joint_.row_slots[joint_.row_count++] = row.slot;
  }

  // After the joint's last row: its limits and motors decoupled from its rigid rows, which may
  // come before or after them (a six_dof's), and those from each other for the solvers that do not
  // solve them together (joint_row_decoupling.h). A rigid row that is a combination of the
  // others goes: the others hold it, and its own bias could differ from theirs, a demand no
  // velocity meets (a ball joint in a plane world whose normal is no axis: its three point rows
  // are two in the plane, and pgs and pivoting flung the pendulum to the speed limit). Bodies held
  // to a plane are where such rows arise, so only their joints are factored for them alone.
  void finish() {
    const std::uint16_t dependent =
        decouple_joint_rows(std::span(out_).subspan(first_), roles_, mass_a_, mass_b_,
                            !impl_.solver->solves_bilateral_rows_exactly(), planar(),
                            impl_.settings.solver.joint_softness);
    keep_soft_limit_stiffness();
    if (dependent != 0) {
      std::uint32_t kept = 0;
      for (std::uint32_t k = 0; k < joint_.row_count; ++k) {
        if (dependent & (1u << k)) continue;
        if (kept != k) {
          out_[first_ + kept] = out_[first_ + k];
          joint_.row_slots[kept] = joint_.row_slots[k];
          place_[kept] = place_[k];
          errors_[kept] = errors_[k];
        }
        ++kept;
      }
      out_.erase(out_.begin() + std::ptrdiff_t(first_ + kept), out_.end());
      joint_.row_count = kept;
    }
    order_limit_ends();
  }

 private:
  // Where a row goes among its joint's rows (order_limit_ends), in that order.
  static constexpr std::uint8_t k_farther_end = 0, k_other_row = 1, k_limit_end = 2;

  // The farther end of each range first, then the joint's other rows in their order, then the
  // nearer ends and the one-ended limits by their error, the most passed first (docs/joints.md, "A
  // joint's limits in order"). A limit's impulse turns the body the joint's other limits measure: a
  // six_dof's linear limits at an anchor 5 m from a small sphere are turns about its centre, as its
  // angular ones are, and visited one by one under pgs each undid the last one's push (the sphere's
  // energy rose 60%). Consecutive, the nearer ends are groups pgs solves together (RowGroup: up to
  // four one-sided rows between the same bodies), the likeliest to push in the first. The other
  // rows (rigid, springs, motors: none of them one-sided) keep the nearer ends' groups apart from
  // the farther ends', so no group holds both ends of a range, and a section holds one end of each
  // range whatever the errors: pgs's groups follow from the rows' places alone, and a kept layout
  // keeps the groups a fresh one finds. A joint of limits alone is left as written (each range's
  // two ends side by side, in no group).
  void order_limit_ends() {
    // One limit row has nothing to be grouped with (a hinge's one-ended limit).
    const auto rows = std::span(place_).first(joint_.row_count);
    const auto others = std::size_t(std::count(rows.begin(), rows.end(), k_other_row));
    if (rows.size() - others < 2 || others == 0) return;
    const auto goes_after = [&](std::uint32_t i, std::uint32_t j) {
      return place_[i] > place_[j] ||
             (place_[i] == k_limit_end && place_[j] == k_limit_end && errors_[i] > errors_[j]);
    };
    for (std::uint32_t k = 1; k < joint_.row_count; ++k) {
      for (std::uint32_t j = k; j > 0 && goes_after(j - 1, j); --j) {
        std::swap(out_[first_ + j - 1], out_[first_ + j]);
        std::swap(joint_.row_slots[j - 1], joint_.row_slots[j]);
        std::swap(place_[j - 1], place_[j]);
        std::swap(errors_[j - 1], errors_[j]);
      }
    }
  }

  // Keeps a passed soft limit's pass for the next step, and says whether it is held as a rigid one
  // this step (its push capped as "Limits passed far" says), as it is from a step its angular
  // reading went deeper by more than the bodies' motion along its row explains until the reading
  // is back within k_unexplained_jump of the limit. Such a reading jumped: a six_dof's twist at a
  // swing of half a turn, where the twist is undefined, read 2.7 rad past its limit from one step
  // to the next, and the spring's pull from there, a potential nothing had paid for, threw a 0.9
  // kg box from 3.6 J to 35 J. Other readings are continuous.
  bool pass_soft_limit(const JointRow& row) {
    const BodyVelocity& a = impl_.velocities[joint_.body_a];
    const BodyVelocity& b = impl_.velocities[joint_.body_b];
    const Real explained =
        k_unexplained_jump + k_explained_steps * dt_ *
                                 std::abs(dot(row.lin_a, a.linear) + dot(row.ang_a, a.angular) +
                                          dot(row.lin_b, b.linear) + dot(row.ang_b, b.angular));
    const World::Impl::SoftLimitPass& last = joint_.soft_limits[row.slot];
    World::Impl::SoftLimitPass& pass = next_soft_limits_[row.slot];
    pass.passed = true;
    pass.error = row.error;
    pass.near_half_turn = row.near_half_turn;
    // Passed anew, it was at the limit (last step's reading was short of it).
    const Real went_deeper = (last.passed ? last.error : 0) - row.error;
    // Only where the reading can jump: elsewhere a reading that went deeper than the rate said did
    // so by the step's other corrections, and held rigidly a spring stretched 2 rad was pushed back
    // through the joint's other springs, taking a ball from 34 J to 45 J. Held, until back within
    // k_unexplained_jump of the limit: the motion that brings it back is no stretch of the
    // spring's to let go from there.
    const bool may_jump = row.near_half_turn || (last.passed && last.near_half_turn);
    pass.jumped = (last.passed && last.jumped && row.error < -k_unexplained_jump) ||
                  (may_jump && went_deeper > explained);
    return pass.jumped;
  }
  // How many steps of the row's speed its reading may go deeper by in one step before it is taken
  // for a jump (the speed changes within the step; the reading is not linear in the motion).
  static constexpr Real k_explained_steps = 2;
  // rad a reading may go deeper by beyond that, the rounding of a body at rest on its spring's pull
  // and a limit's reach: a spring k pulled this far has stored k 2e-4 J.
  static constexpr Real k_unexplained_jump = Real(0.02);

  // A soft limit is sized by its row's effective mass (decoupled from the rigid rows: the motion
  // the joint allows), which turns with the bodies: a six_dof's swing part about an axis that
  // comes near the line to a far body weighs little there and much elsewhere, and a stiffness
  // that followed it stored little energy on the way in and gave back far more on the way out (a
  // 0.17 kg ball 5 m out went from 0.47 J to 5.4 J). Taken when the limit is passed and kept
  // while it stays passed, the stiffness is a spring's: it pulls from the potential k C^2 / 2.
  void keep_soft_limit_stiffness() {
    for (std::uint32_t k = 0; k < joint_.row_count; ++k) {
      const std::uint8_t slot = joint_.row_slots[k];
      const Real per_inverse_mass = softness_per_inverse_mass_[slot];
      if (per_inverse_mass == 0) continue;
      Real& softness = out_[first_ + k].spec.softness;
      Real& inverse_mass = next_soft_limits_[slot].inverse_mass;
      inverse_mass = joint_.soft_limits[slot].passed ? joint_.soft_limits[slot].inverse_mass : 0;
      if (inverse_mass > 0)
        softness = inverse_mass * per_inverse_mass;
      else if (is_finite(softness) && softness > 0)
        inverse_mass = softness / per_inverse_mass;
    }
    joint_.soft_limits = next_soft_limits_;
  }

  bool planar() const { return mass_a_.in_plane || mass_b_.in_plane; }
  // A row's J M^-1 J^T were its bodies free to move along all of it (M^-1 of the plane's
  // directions too: the inverse mass, the inverse inertia's trace). Against a plane whose normal is
  // no axis, a row across the plane (a hinge's swing rows on its normal) keeps J M^-1 J^T of
  // rounding, 1e-8 of this or negative, not 0, and held to it the solvers flung the body.
  Real unheld_diagonal(const JointRow& row) const {
    const SolverBodyMass& a = mass_a_.mass;
    const SolverBodyMass& b = mass_b_.mass;
    return a.inv_mass * dot(row.lin_a, row.lin_a) +
           trace(a.inv_inertia) * dot(row.ang_a, row.ang_a) +
           b.inv_mass * dot(row.lin_b, row.lin_b) +
           trace(b.inv_inertia) * dot(row.ang_b, row.ang_b);
  }
  // Below this of unheld_diagonal a row runs across a plane the body is held to (float's rounding
  // of J M^-1 J^T is some 1e-7 of it).
  static constexpr Real k_off_plane = Real(1e-5);

  const World::Impl& impl_;
  World::Impl::JointRecord& joint_;
  Real dt_, warm_scale_;
  LaneMass mass_a_, mass_b_;  // a joint's rows all join its two bodies
  std::vector<World::Impl::PreparedJointRow>& out_;
  std::size_t first_;  // the joint's first row in out_
  JointRowRoles roles_;
  // By row index: its error and its place (order_limit_ends).
  std::array<Real, k_max_joint_rows> errors_{};
  std::array<std::uint8_t, k_max_joint_rows> place_{};
  // By row slot, for the passed soft limits: their softness per inverse effective mass this step
  // (0 for other rows), and their passes as the joint keeps them for the next step.
  std::array<Real, k_max_joint_rows> softness_per_inverse_mass_{};
  std::array<World::Impl::SoftLimitPass, k_max_joint_rows> next_soft_limits_{};
};

// The pool for the per-joint passes, or null: a hundred joints' rows or measures take
// microseconds, less than a team of their own costs (and then moving the joints' data between
// cores), so they share only once this stretch of the step has run a team for heavier work (a
// scene's contacts).
TaskPool* joint_pool(World::Impl& impl) {
  return impl.step_pool().teamed_in_stretch() ? &impl.step_pool() : nullptr;
}

// task(chunk, joints) for each fixed chunk of the live joints, on the pool's threads (if given)
// from k_parallel_joints on.
template <class Task>
void for_joint_chunks(World::Impl& impl, TaskPool* pool, const Task& task) {
  run_span_chunks(pool, std::span<const std::uint32_t>(impl.live_joints),
                  World::Impl::k_joint_chunks, World::Impl::k_parallel_joints, task);
}

// Whether a row pulls as a spring: it has one, and is no soft limit held as a rigid one since its
// reading jumped (StoreSink::pass_soft_limit), which is projected and reported as a rigid limit.
bool pulls_as_spring(const JointRow& row, const World::Impl::JointRecord& joint) {
  return row.spring.frequency > 0 &&
         !(row.kind == JointRow::Kind::limit && joint.soft_limits[row.slot].jumped);
}

// Whether a row's error is a violation to undo: rigid equalities
// and passed limits, a soft one where it is held rigidly (its reading jumped).
Real violation(const JointRow& row, const World::Impl::JointRecord& joint) {
  if (pulls_as_spring(row, joint)) return 0;
  switch (row.kind) {
    case JointRow::Kind::equality:
      return row.error;
    case JointRow::Kind::limit:
      return std::min(row.error, Real(0));
    case JointRow::Kind::motor:
      break;
  }
  return 0;
}

}  // namespace

World::Impl::JointRecord& World::Impl::joint(JointId id) {
  return const_cast<JointRecord&>(std::as_const(*this).joint(id));
}

const World::Impl::JointRecord& World::Impl::joint(JointId id) const {
  if (id.index >= joints.size() || !joints[id.index].alive ||
      joints[id.index].generation != id.generation)
    throw StaleHandle("joint handle " + std::to_string(id.index) + "." +
                      std::to_string(id.generation) + " does not name a live joint");
  return joints[id.index];
}

JointId add_joint(World::Impl& impl, const JointSettings& settings) {
  throw_if_problem(find_problem(settings), "joint settings");
  if (settings.type == JointType::nail && settings.body_a.is_null())
    throw InvalidArgument(
        "joint settings: /body_a: a nail pins body_a to the "
        "world: name it");
  if (settings.type == JointType::nail && !settings.body_b.is_null())
    throw InvalidArgument(
        "joint settings: /body_b: a nail pins body_a to the "
        "world: no body_b");
  const std::uint32_t a =
      settings.body_a.is_null() ? World::Impl::k_world_slot : impl.slot(settings.body_a);
  const std::uint32_t b =
      settings.body_b.is_null() ? World::Impl::k_world_slot : impl.slot(settings.body_b);
  if (a == b)
    throw InvalidArgument(
        "joint settings: /body_b: a joint between a body and "
        "itself");
  if (!is_dynamic(impl, a) && !is_dynamic(impl, b))
    throw InvalidArgument(
        "joint settings: /body_a: neither body is dynamic, "
        "nothing can move");
  if (!settings.name.empty() && impl.joint_names.contains(settings.name))
    throw InvalidArgument("joint settings: /name: a joint named '" + settings.name +
                          "' exists already");
  JointSettings unit = settings;  // axes within tolerance of unit
                                  // length, made exact
  unit.axis = normalize(settings.axis);
  unit.frame = normalize(settings.frame);

  std::uint32_t index;
  if (impl.free_joints.empty()) {
    index = std::uint32_t(impl.joints.size());
    impl.joints.emplace_back();
  } else {
    index = impl.free_joints.back();
    impl.free_joints.pop_back();
  }
  World::Impl::JointRecord& joint = impl.joints[index];
  const std::uint32_t generation = joint.generation;
  joint = {};
  joint.generation = generation;
  joint.alive = true;
  joint.body_a = a;
  joint.body_b = b;
  joint.model = make_joint_model(unit, pose_of(impl, a), pose_of(impl, b));
  joint.model.settings.body_a = settings.body_a;
  joint.model.settings.body_b = settings.body_b;
  place_joint(joint.state, geometry_of(impl, joint));
  impl.live_joints.push_back(index);
  if (!settings.name.empty()) impl.joint_names.emplace(settings.name, index);
  rebuild_unconnected_pairs(impl);
  wake_joint_bodies(impl, joint);
  return {index, generation};
}

void remove_joint(World::Impl& impl, std::uint32_t index) {
  World::Impl::JointRecord& joint = impl.joints[index];
  wake_joint_bodies(impl, joint);
  if (!joint.model.settings.name.empty()) impl.joint_names.erase(joint.model.settings.name);
  joint.alive = false;
  ++joint.generation;
  impl.live_joints.erase(std::find(impl.live_joints.begin(), impl.live_joints.end(), index));
  impl.free_joints.push_back(index);
  rebuild_unconnected_pairs(impl);
}

void remove_body_joints(World::Impl& impl, std::uint32_t slot) {
  for (std::size_t k = impl.live_joints.size(); k-- > 0;) {
    const World::Impl::JointRecord& joint = impl.joints[impl.live_joints[k]];
    if (joint.body_a != slot && joint.body_b != slot) continue;
    report_joint_removed(impl, impl.live_joints[k], slot);
    remove_joint(impl, impl.live_joints[k]);
  }
}

bool joint_blocks_contacts(const World::Impl& impl, std::uint32_t a, std::uint32_t b) {
  // Most pairs name a body no such joint holds (a ragdoll's arm on a box): no search for those,
  // whose branches the processor cannot predict (1.2% of the ragdolls' step). A body added since
  // the last rebuild is in no joint.
  const auto named = [&](std::uint32_t slot) {
    return slot < impl.unconnected_bodies.size() && impl.unconnected_bodies[slot] != 0;
  };
  return named(a) && named(b) &&
         std::binary_search(impl.unconnected_pairs.begin(), impl.unconnected_pairs.end(),
                            pair_key(a, b));
}

void wake_jointed_islands(World::Impl& impl) {
  for (const std::uint32_t j : impl.live_joints) {
    const World::Impl::JointRecord& joint = impl.joints[j];
    if (joint.state.broken) continue;
    const bool a_asleep = impl.sleep[joint.body_a].asleep;
    const bool b_asleep = impl.sleep[joint.body_b].asleep;
    if (a_asleep && is_moving(impl, joint.body_b)) wake_body(impl, joint.body_a);
    if (b_asleep && is_moving(impl, joint.body_a)) wake_body(impl, joint.body_b);
  }
}

void write_joint_rows(World::Impl& impl, Real dt) {
  const Real warm_scale = impl.last_dt > 0 ? dt / impl.last_dt : Real(1);
  RowStore& rows = impl.rows;
  using Staging = std::vector<World::Impl::PreparedJointRow>;
  // A chunk's joints' rows, prepared, into a staging.
  const auto stage = [&](Staging& staged, std::span<const std::uint32_t> joints) {
    staged.clear();
    for (const std::uint32_t j : joints) {
      World::Impl::JointRecord& joint = impl.joints[j];
      joint.row_count = 0;
      if (!is_acting(impl, joint)) continue;
      StoreSink sink(impl, joint, dt, warm_scale, staged);
      if (measured_rows_hold(impl, joint)) {
        for (const JointRow& row : joint.measured.rows())
          sink.add(row);
      } else {
        write_joint_rows(joint.model, geometry_of(impl, joint), sink);
      }
      sink.finish();
    }
  };
  // The joints' places after the store's rows, in joint order, a block each.
  const auto place = [&](std::span<const std::uint32_t> joints) {
    rows.append_blocks(
        joints.size(), [&](std::size_t k) { return impl.joints[joints[k]].row_count; },
        [&](std::size_t k, std::uint32_t first) { impl.joints[joints[k]].first_row = first; });
  };
  // A chunk's staged rows from where its first joint's start.
  const auto copy = [&](const Staging& staged, std::span<const std::uint32_t> joints) {
    if (joints.empty()) return;
    const std::uint32_t first = impl.joints[joints.front()].first_row;
    for (std::size_t k = 0; k < staged.size(); ++k)
      rows.set_prepared(first + k, staged[k].spec, staged[k].response);
  };
  TaskPool* pool = joint_pool(impl);
  if (chunks_in_parallel(pool, impl.live_joints.size(), World::Impl::k_parallel_joints)) {
    // Each chunk's rows copied where they were staged (on the same thread, unless one thread took
    // over another's share).
    for_joint_chunks(impl, pool, [&](std::size_t chunk, std::span<const std::uint32_t> joints) {
      stage(impl.joint_rows_by_chunk[chunk], joints);
    });
    place(impl.live_joints);
    for_joint_chunks(impl, pool, [&](std::size_t chunk, std::span<const std::uint32_t> joints) {
      copy(impl.joint_rows_by_chunk[chunk], joints);
    });
    return;
  }
  // On one thread each chunk is staged, placed and copied through one staging, which stays in the
  // first-level cache (the chunks' own stagings hold 70 KB for a chain of 100 ball joints).
  Staging& staged = impl.joint_rows_by_chunk[0];
  for_joint_chunks(impl, nullptr, [&](std::size_t, std::span<const std::uint32_t> joints) {
    if (joints.empty()) return;  // fewer joints than chunks
    stage(staged, joints);
    place(joints);
    copy(staged, joints);
  });
}

void stiffen_jointed_bodies(World::Impl& impl, Real dt) {
  if (!impl.settings.solver.geometric_stiffness || impl.live_joints.empty()) return;
  impl.joint_stiffness.resize(impl.motions.size());
  // Room for every body, so that a step loading more bodies than the last ones allocates nothing.
  impl.stiffened_slots.reserve(impl.motions.size());
  // The last step's force at each anchor, on the anchor's lever now, summed in joint order so
  // that the sums have the same bits on any thread count.
  const auto add = [&](std::uint32_t slot, const Vec3& force, const Vec3& anchor) {
    // The solve never turns it: the world, static, kinematic, asleep or a particle.
    if (impl.solver_masses[slot].inv_inertia == Mat33::zero()) return;
    const BodyMotion& m = impl.motions[slot];
    const Mat33 added =
        geometric_stiffness_inertia(force, rotate(m.orientation, anchor), m.inv_mass, dt);
    if (added == Mat33::zero()) return;
    if (impl.joint_stiffness[slot] == Mat33::zero()) impl.stiffened_slots.push_back(slot);
    impl.joint_stiffness[slot] += added;
  };
  for (const std::uint32_t j : impl.live_joints) {
    const World::Impl::JointRecord& joint = impl.joints[j];
    if (!is_acting(impl, joint)) continue;
    add(joint.body_a, joint.state.force, joint.model.anchor_a);
    add(joint.body_b, -joint.state.force, joint.model.anchor_b);
  }
  for (const std::uint32_t slot : impl.stiffened_slots) {
    Mat33& inv_inertia = impl.solver_masses[slot].inv_inertia;
    // Each joint's term is finite, their sum need not be: a body past float's range keeps its own.
    if (is_finite(impl.joint_stiffness[slot]))
      inv_inertia = stiffened_inverse_inertia(inv_inertia, impl.joint_stiffness[slot]);
    impl.joint_stiffness[slot] = Mat33::zero();
  }
  impl.stiffened_slots.clear();
}

void store_joint_impulses(World::Impl& impl, Real dt) {
  bool broke = false;
  for (const std::uint32_t j : impl.live_joints) {
    World::Impl::JointRecord& joint = impl.joints[j];
    if (!is_acting(impl, joint)) continue;
    joint.impulses.fill(0);  // a row not written this step starts cold next time
    Vec3 force, torque;
    for (std::uint32_t k = 0; k < joint.row_count; ++k) {
      const std::size_t i = joint.first_row + k;
      const Real lambda = impl.rows.lambda[i];
      joint.impulses[joint.row_slots[k]] = lambda;
      force += impl.rows.j_lin_a(i) * (lambda / dt);
      torque += impl.rows.j_ang_a(i) * (lambda / dt);
    }
    // About the anchor rather than the centre of mass: what a
    // breakable weld feels.
    const Vec3 r_a = rotate(impl.motions[joint.body_a].orientation, joint.model.anchor_a);
    joint.state.force = force;
    joint.state.torque = torque - cross(r_a, force);
    const JointSettings& s = joint.model.settings;
    if ((s.break_force && length(joint.state.force) > *s.break_force) ||
        (s.break_torque && length(joint.state.torque) > *s.break_torque)) {
      joint.state.broken = true;
      joint.impulses.fill(0);
      impl.joint_events.push_back({{j, joint.generation}, joint.state.force, joint.state.torque});
      wake_joint_bodies(impl, joint);
      broke = true;
    }
  }
  if (broke) rebuild_unconnected_pairs(impl);
}

void project_joint_positions(World::Impl& impl) {
  for (int pass = 0; pass < impl.settings.solver.position_iterations; ++pass) {
    for (const std::uint32_t j : impl.live_joints) {
      const World::Impl::JointRecord& joint = impl.joints[j];
      if (!is_acting(impl, joint)) continue;
      JointRowList list;
      write_joint_rows(joint.model, geometry_of(impl, joint), list);
      const SolverBodyMass mass_a = impl.solver_mass(joint.body_a),
                           mass_b = impl.solver_mass(joint.body_b);
      // Gauss-Seidel over the rows on the geometry of this visit:
      // each row sees the moves the earlier ones made through its
      // Jacobian (linearised), then the poses move once.
      Vec3 move_a, turn_a, move_b, turn_b;
      for (const JointRow& row : list.rows()) {
        if (row.kind == JointRow::Kind::motor || pulls_as_spring(row, joint)) continue;
        const Real k = lane_row(to_lanes({row.lin_a, row.ang_a, row.lin_b, row.ang_b}),
                                LaneMass(mass_a), LaneMass(mass_b))
                           .diagonal;
        if (!(k > 0)) continue;
        const Real error = row.error + dot(row.lin_a, move_a) + dot(row.ang_a, turn_a) +
                           dot(row.lin_b, move_b) + dot(row.ang_b, turn_b);
        Real impulse = -error / k;
        if (row.kind == JointRow::Kind::limit) impulse = std::max(impulse, Real(0));
        move_a += mass_a.linear_response(row.lin_a) * impulse;
        turn_a += mass_a.inv_inertia * row.ang_a * impulse;
        move_b += mass_b.linear_response(row.lin_b) * impulse;
        turn_b += mass_b.inv_inertia * row.ang_b * impulse;
      }
      for (const auto& [slot, move, turn] :
           {std::tuple{joint.body_a, move_a, turn_a}, std::tuple{joint.body_b, move_b, turn_b}}) {
        BodyMotion& m = impl.motions[slot];
        if (m.inv_mass == 0 || impl.sleep[slot].asleep) continue;
        m.center += move;
        m.orientation = integrate(m.orientation, turn, 1);
        m.refresh_world_inertia();
      }
    }
  }
}

void measure_joint_errors(World::Impl& impl) {
  // Each chunk's largest errors, then the largest of those in chunk order.
  std::array<Real, World::Impl::k_joint_chunks> worst{}, worst_angular{};
  for_joint_chunks(
      impl, joint_pool(impl), [&](std::size_t chunk, std::span<const std::uint32_t> joints) {
        Real chunk_worst = 0, chunk_worst_angular = 0;
        for (const std::uint32_t j : joints) {
          World::Impl::JointRecord& joint = impl.joints[j];
          joint.state.error = joint.state.angular_error = 0;
          joint.measured.clear();
          const JointGeometry g = geometry_of(impl, joint);
          place_joint(joint.state, g);
          if (joint.state.broken) continue;
          write_joint_rows(joint.model, g, joint.measured);
          joint.measured_a = pose_of(impl, joint.body_a);
          joint.measured_b = pose_of(impl, joint.body_b);
          // The rows of a joint run along orthogonal axes: their
          // violations add as a vector's parts. Summed apart from the state, whose two fields
          // read back at once after their separate stores would stall the processor.
          Real squared = 0, squared_angular = 0;
          for (const JointRow& row : joint.measured.rows())
            (row.angular ? squared_angular : squared) +=
                violation(row, joint) * violation(row, joint);
          joint.state.error = std::sqrt(squared);
          joint.state.angular_error = std::sqrt(squared_angular);
          chunk_worst = std::max(chunk_worst, joint.state.error);
          chunk_worst_angular = std::max(chunk_worst_angular, joint.state.angular_error);
        }
        worst[chunk] = chunk_worst;
        worst_angular[chunk] = chunk_worst_angular;
      });
  impl.stats.max_joint_error = impl.stats.max_joint_angular_error = 0;
  for (std::size_t chunk = 0; chunk < World::Impl::k_joint_chunks; ++chunk) {
    impl.stats.max_joint_error = std::max(impl.stats.max_joint_error, worst[chunk]);
    impl.stats.max_joint_angular_error =
        std::max(impl.stats.max_joint_angular_error, worst_angular[chunk]);
  }
}

}  // namespace impulse
