#pragma once
// What went wrong inside a step, reported instead of thrown or printed (World::diagnostics).
// The step checks every awake body after each stage; a body whose state is no longer finite is
// frozen where it was at the start of the step, so that it cannot spread NaN to its neighbours,
// and the rest of the world simulates on.

#include <impulse/body.h>
#include <impulse/constraint.h>
#include <impulse/joint.h>

#include <cstdint>
#include <optional>
#include <string>

namespace impulse {

/// The stage of a step at which something was caught.
enum class StepStage : std::uint8_t {
  velocities,  ///< forces, gravity and damping applied (and the velocity clamps before them)
  solve,       ///< the constraint solve (and the relax solve)
  positions,   ///< positions integrated and joints projected
  api,         ///< outside a step, by a World call (remove_body)
};

enum class DiagnosticKind : std::uint8_t {
  /// A body's position, orientation or velocity stopped being finite: the body is frozen
  /// (World::is_frozen) at its pose from the start of the step, with zero velocity.
  non_finite_body,
  /// A body moved faster than WorldSettings::max_linear_speed or max_angular_speed and was slowed
  /// to it.
  velocity_clamped,
  /// A constraint row whose J M^-1 J^T is zero, negative or not finite (seed 000's "diagonal
  /// zeros": its bodies cannot move along it) was skipped by the solve.
  degenerate_row,
  /// remove_body removed a joint that held the body.
  joint_removed,
  /// The world's solver refused the step's rows (a global or pivoting solver's size limit, or
  /// non-finite data: SolveStats::diagnostic) and pgs solved them instead, so that the contacts
  /// and joints still held; the step's SolveStats are pgs's.
  solve_refused,
};

/// "non_finite_body", "velocity_clamped", ...; "velocities", "solve", ...
const char* diagnostic_kind_name(DiagnosticKind kind);
const char* step_stage_name(StepStage stage);

/// One report. The ids name what it concerns; a handle may be stale by the time it is read (a
/// removed body). The message says all of it in one line, for a log.
struct Diagnostic {
  DiagnosticKind kind = DiagnosticKind::non_finite_body;
  StepStage stage = StepStage::velocities;
  BodyId body;                             ///< the body frozen, clamped or removed; a row's first
  BodyId other_body;                       ///< a row's second body (null for the world)
  std::optional<JointId> joint;            ///< the row's or the removed joint
  std::optional<ConstraintId> constraint;  ///< the row's custom constraint
  bool contact = false;                    ///< the row is a contact's
  std::string message;
};

}  // namespace impulse
