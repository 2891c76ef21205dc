#pragma once
// The step's handling of joints: their lifetime in the world, their rows with warm starts, their
// reactions and breaking, the optional position projection, and their errors.

#include "dynamics/world_impl.h"

namespace impulse {

/// Creates the joint after checking it against the world; throws without changing anything.
JointId add_joint(World::Impl& impl, const JointSettings& settings);
void remove_joint(World::Impl& impl, std::uint32_t index);
/// Removes every joint that holds the body (before the body goes), reporting each.
void remove_body_joints(World::Impl& impl, std::uint32_t slot);

/// Whether a joint without collide_connected keeps the two bodies from colliding.
bool joint_blocks_contacts(const World::Impl& impl, std::uint32_t a, std::uint32_t b);

/// Wakes a sleeping body that an awake joint partner pulls on.
void wake_jointed_islands(World::Impl& impl);

/// Appends each acting joint's rows to impl.rows, each joint one block, warm started.
void write_joint_rows(World::Impl& impl, Real dt);

/// Adds to the solver masses of the bodies that joints load the geometric stiffness of the last
/// step's joint forces (dynamics/geometric_stiffness.h), when the settings ask for it.
void stiffen_jointed_bodies(World::Impl& impl, Real dt);

/// Keeps the solved impulses (next warm start), computes reactions, breaks overloaded joints.
void store_joint_impulses(World::Impl& impl, Real dt);

/// Seed 002's Rectify as nonlinear Gauss-Seidel: position_iterations passes that move the bodies
/// to undo each joint's position error (after the positions are integrated).
void project_joint_positions(World::Impl& impl);

/// Each joint's linear and angular error at the current poses, and the step's largest.
void measure_joint_errors(World::Impl& impl);

}  // namespace impulse
