#pragma once
// The world's state behind the public World handle.

#include <impulse/diagnostics.h>
#include <impulse/world.h>

#include "collision/contact_manager.h"
#include "constraints/contact_order.h"
#include "constraints/contact_rows.h"
#include "constraints/impact_pass.h"
#include "constraints/joints/joint_model.h"
#include "constraints/rows.h"
#include "core/island_sets.h"
#include "core/task_pool.h"
#include "core/team_choice.h"
#include "dynamics/body_storage.h"
#include "solver/solver.h"
#include "solver/warm_start_line_search.h"

#include <array>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace impulse {

/// What a body's contacts combine (combine_materials) of its settings.
inline ContactMaterial material_of(const BodySettings& settings) {
  return {settings.friction, settings.restitution};
}

struct World::Impl {
  WorldSettings settings;
  // Per slot; a removed body's slot is reused with a new generation.
  std::vector<BodyRecord> records;
  std::vector<BodyMotion> motions;
  std::vector<BodyVelocity> velocities;
  std::vector<BodyVelocity> free_velocities;  // before the solve, for the relax solve
  // What this sub-step's forces added to each body's velocity, while any body bounces
  // (ContactRowSettings::force_changes); zero for a body not stepped.
  std::vector<BodyVelocity> force_changes;
  // While any body bounces: the velocity change of this sub-step's impacts that each body's
  // move misses (impact_pass.h), and which bodies share their velocity with a joint or a movable
  // contact partner this sub-step (they keep none).
  std::vector<BodyVelocity> impact_lags;
  std::vector<std::uint8_t> impact_shared;
  std::vector<ManifoldImpact> impacts;  // the impact pass's scratch
  SolveStats relax_stats;
  std::vector<BodySleep> sleep;
  // Each body's friction and restitution as its settings give them, apart from the records (some
  // 250 bytes each): the rows stage reads two a manifold, and from the records each read waited on
  // memory (docs/performance.md).
  std::vector<ContactMaterial> materials;
  std::vector<std::uint32_t> awake_slots;  // live and not asleep, in creation order: this step's
  std::vector<std::uint32_t> free_slots;
  std::vector<std::uint32_t> live_slots;  // in creation order: the order of every iteration
  // Live bodies whose restitution is above 0: without one, no pair bounces and the impact pass
  // (resolve_contact_impacts) has nothing to do.
  std::size_t bouncy_bodies = 0;
  // Each body's collision filter, apart from the records as the materials are, and the live
  // bodies whose filter is not the default: without one every pair passes and none is asked.
  std::vector<CollisionFilter> filters;
  std::size_t filtered_bodies = 0;
  std::map<std::string, std::uint32_t, std::less<>> names;  // ordered: no hash-order effects
  StepStats stats;
  double time = 0;

  // Guards (dynamics/guards.h): this step's reports, each awake body's pose at the start of the
  // sub-step, and scratch.
  std::vector<Diagnostic> diagnostics;
  struct Pose {
    Vec3 center;
    Quat orientation;
  };
  std::vector<Pose> start_poses;  // per slot
  std::vector<std::uint32_t> clamped_slots;
  std::vector<std::uint32_t> frozen_this_step;

  // The per-body passes (integration, clamps, guards over the awake slots, the solver masses over
  // all) run on the pool in fixed chunks, on the calling thread in one: each body's update is its
  // own, so the bits are the same on any thread count.
  static constexpr std::size_t k_body_chunks = 16;
  static constexpr std::size_t k_parallel_bodies = 256;  // fewer stay on the calling thread
  // The move after a solve shared by threads (clamp_and_move) from fewer: they left the
  // velocities in their caches, and one thread moving every body waits on the other cores'
  // lines (the pyramid's 210 bodies: 11.3 us on two threads against 6.5 on one;
  // docs/performance.md).
  static constexpr std::size_t k_parallel_moves = 64;
  std::array<std::vector<std::uint32_t>, k_body_chunks> clamped_by_chunk;

  // Constraint rows of this step and the solver that finds their impulses.
  RowStore rows;
  SolverInstance solver;
  // Scales a jointed island's warm start back where it would add energy, before every solver.
  WarmStartLineSearch warm_start_line_search;
  // Solves what `solver` refuses (DiagnosticKind::solve_refused), and then its relax solve.
  SolverInstance fallback_solver{SolverType::pgs};
  TaskPoolInstance pool;  // the world's threads (World::set_threads)
  // One thread, for the steps that ThreadUse::measured keeps off the team (TeamChoice).
  TaskPoolInstance alone;
  ThreadUse thread_use = ThreadUse::measured;
  TeamChoice team_choice;
  bool on_team = false;  // this step runs on pool
  /// The pool of this step's loops.
  TaskPool& step_pool() const { return on_team ? *pool : *alone; }
  std::vector<SolverBodyMass> solver_masses;  // per slot

  // Shapes, pairs and the contact cache; the order the manifolds write their rows in and the rows
  // each manifold wrote this step.
  ContactManager contacts;
  ContactOrder contact_order;
  std::vector<ManifoldRows> manifold_rows;
  std::vector<std::uint32_t> contact_points_per_body;  // per slot, this step

  // Sleeping (dynamics/sleep.h): this step's islands and each island's least idle time.
  IslandSets islands;
  std::vector<Real> island_idle;
  Real last_dt = 0;  // s, of the previous step: warm-start impulses scale by dt / last_dt

  struct CustomConstraintRecord {
    CustomConstraint build;
    std::uint32_t generation = 1;
    bool alive = false;
    std::vector<ConstraintRow> rows;  // written this step
    std::vector<Real> impulses;       // of the last step; the warm start of the next
    std::size_t first_row = 0;        // this step's rows in the store
  };
  std::vector<CustomConstraintRecord> custom_constraints;

  // A soft limit from the step it was passed to the step it is no longer (docs/joints.md, "Soft
  // limits"): its reading, the inverse effective mass it was sized by when passed (0 where it has
  // none), and whether its reading jumped past it, which holds it rigidly until back near it.
  struct SoftLimitPass {
    bool passed = false;
    bool jumped = false;
    bool near_half_turn = false;  // the reading's JointRow::near_half_turn
    Real error = 0;
    Real inverse_mass = 0;
  };
  struct JointRecord {
    JointModel model;
    std::uint32_t body_a = 0, body_b = 0;  // slots; body_b is k_world_slot for the world
    std::uint32_t generation = 1;
    bool alive = false;
    JointState state;
    std::array<Real, k_max_joint_rows> impulses{};  // by row slot: the next warm start
    // By row slot: the soft limits passed in the last step (docs/joints.md, "Soft limits").
    std::array<SoftLimitPass, k_max_joint_rows> soft_limits{};
    std::uint32_t first_row = 0, row_count = 0;  // this step's rows in the store
    std::array<std::uint8_t, k_max_joint_rows> row_slots{};
    // The rows measure_joint_errors found at the end of the last step, and the poses they were
    // found at: the next step writes the same rows while the poses are bitwise the same, without
    // finding them again (none kept when empty; a motor change drops them).
    JointRowList measured;
    JointBodyPose measured_a, measured_b;
  };
  std::vector<JointRecord> joints;
  std::vector<std::uint32_t> live_joints;  // in creation order
  // The per-joint passes (rows, measures) run on the pool in fixed chunks of the live joints, as
  // the per-body ones do: each joint's are its own. A chunk's rows are written prepared (their
  // response at hand) into its staging, then appended to the store in joint order.
  static constexpr std::size_t k_joint_chunks = 16;
  static constexpr std::size_t k_parallel_joints = 64;  // fewer stay on the calling thread
  struct PreparedJointRow {
    // Not value-initialised (a zeroing of the whole row): the spec gets its defaults, then fields.
    // The response written where it stays (write_response).
    PreparedJointRow(const std::array<Vec3, 4>& jacobian, const LaneMass& a, const LaneMass& b) {
      for (std::size_t k = 0; k < 4; ++k)
        response.j[k] = lanes_of(jacobian[k]);
      write_response(response, a, b);
    }
    RowSpec spec;
    LaneRow response;
  };
  std::array<std::vector<PreparedJointRow>, k_joint_chunks> joint_rows_by_chunk;
  std::vector<std::uint32_t> free_joints;
  std::map<std::string, std::uint32_t, std::less<>> joint_names;
  std::vector<std::uint64_t> unconnected_pairs;  // sorted body-pair keys: no contacts between
  std::vector<std::uint8_t> unconnected_bodies;  // per slot: 1 where unconnected_pairs names it
  std::vector<JointBreakEvent> joint_events;     // of the last step
  // The rotational inertia the joints' loads add to each body for the step's solve
  // (stiffen_jointed_bodies): by slot, zero but for the slots listed.
  std::vector<Mat33> joint_stiffness;
  std::vector<std::uint32_t> stiffened_slots;

  /// The slot of a live body; throws StaleHandle otherwise.
  std::uint32_t slot(BodyId id) const;
  /// The record of a live custom constraint; throws StaleHandle otherwise.
  CustomConstraintRecord& custom(ConstraintId id);
  const CustomConstraintRecord& custom(ConstraintId id) const;
  /// The record of a live joint; throws StaleHandle otherwise.
  JointRecord& joint(JointId id);
  const JointRecord& joint(JointId id) const;

  /// What the solver sees of a body: its inverse mass and inertia, zero while it sleeps (a
  /// sleeping body holds still like a static one), and the plane it moves in.
  SolverBodyMass solver_mass(std::uint32_t slot) const {
    const BodyMotion& m = motions[slot];
    return sleep[slot].asleep ? SolverBodyMass{}
                              : SolverBodyMass{m.inv_mass, m.inv_inertia_world, m.plane_normal};
  }

  /// pass(chunk, slots) for each fixed chunk of the awake slots (the per-body passes above), on
  /// the pool from parallel_from awake bodies; on the calling thread, chunk 0 holds them all (a
  /// small scene's sixteen chunks cost more than its bodies).
  template <class Pass>
  void for_awake_chunks(const Pass& pass, std::size_t parallel_from = k_parallel_bodies) {
    const std::span<const std::uint32_t> slots(awake_slots);
    run_span_chunks(&step_pool(), slots,
                    chunks_on(&step_pool(), slots.size(), k_body_chunks, parallel_from),
                    parallel_from, pass);
  }

  /// Slot 0 is the world itself: immovable, never listed, the body of rows with no body b.
  static constexpr std::uint32_t k_world_slot = 0;
};

}  // namespace impulse
