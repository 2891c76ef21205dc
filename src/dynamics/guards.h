#pragma once
// The step's guards (include/impulse/diagnostics.h): after each stage every awake body's state is
// checked, and a body that is no longer finite is frozen at its pose from the start of the
// sub-step and reported, before its NaN reaches a neighbour through a contact or a joint. Also
// reported: velocity clamps, rows the solve skips as degenerate, joints removed with a body.

#include <impulse/diagnostics.h>

#include "dynamics/world_impl.h"

#include <array>
#include <span>
#include <string>

namespace impulse {

/// "body 'crate' (3:1)", or "body 3:1" when it has no name.
std::string describe_body(const World::Impl& impl, std::uint32_t slot);
/// "joint 'hinge' (2:1)", or "joint 2:1".
std::string describe_joint(const World::Impl& impl, std::uint32_t index);

/// Holds every awake body to the world's speed limits, reporting each one slowed.
void clamp_and_report(World::Impl& impl, StepStage stage);

/// Freezes and reports every awake body whose pose or velocity is not finite after `stage`; after
/// the solve, rows whose impulse went non-finite are zeroed (so no cache warm-starts from them)
/// and named in the report of the bodies they touch. Returns whether it froze any.
bool guard_bodies(World::Impl& impl, StepStage stage);

// The same guards a chunk of awake bodies at a time (World::Impl::for_awake_chunks), for a stage
// that has its own pass over the bodies: one pass on the pool where each guard would make its own.
// Per body the order is the guards' own, so the bits and the reports are the same.

/// Keeps each awake body's pose, where a body frozen later in the sub-step goes back to: begun
/// once, then a chunk at a time.
void begin_remembering_poses(World::Impl& impl);
void remember_chunk_poses(World::Impl& impl, std::span<const std::uint32_t> slots);
/// clamp_and_report's work on chunk `chunk` of the awake bodies, then its reports of them all.
void clamp_chunk(World::Impl& impl, std::size_t chunk, std::span<const std::uint32_t> slots);
void report_clamped(World::Impl& impl, StepStage stage);
/// guard_bodies' test on a chunk, then its work given each chunk's result.
bool any_faulty(const World::Impl& impl, std::span<const std::uint32_t> slots);
bool freeze_faulty(World::Impl& impl, StepStage stage,
                   const std::array<bool, World::Impl::k_body_chunks>& chunk_faulty);

/// Bodies frozen this sub-step hold still: the relax solve may have given them velocity again.
void hold_frozen_bodies(World::Impl& impl);

/// Reports every row the prepared store leaves inert (RowStore::prepare), with its constraint.
void report_degenerate_rows(World::Impl& impl);

/// Reports that the world's solver refused the step's rows (its SolveStats `refused`) and pgs
/// solved them.
void report_refused_solve(World::Impl& impl, const SolveStats& refused);

/// Reports that remove_body removed a joint holding the body.
void report_joint_removed(World::Impl& impl, std::uint32_t joint, std::uint32_t body);

}  // namespace impulse
