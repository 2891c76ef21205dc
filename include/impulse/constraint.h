#pragma once
// Custom constraints: a user's own rows in the same solve as contacts and joints (seed 000's
// "snap-together" constraints). A row asks J v = bias of the velocities of one or two bodies,
//   J v = dot(linear_a, v_a) + dot(angular_a, w_a) + dot(linear_b, v_b) + dot(angular_b, w_b),
// with its impulse lambda (N s) kept within [lo, hi]. Write C, differentiate, read J off; put the
// position feedback -beta / dt * C in bias (Baumgarte, seed 001 section 4.2).

#include <impulse/body.h>

#include <cstdint>
#include <functional>

namespace impulse {

struct ConstraintRow {
  BodyId body_a;             ///< a dynamic, kinematic or static body
  BodyId body_b;             ///< null for the world (immovable)
  Vec3 linear_a, angular_a;  ///< J for body a (angular part about its centre of mass)
  Vec3 linear_b, angular_b;  ///< J for body b
  Real bias = 0;             ///< target constraint velocity
  Real lo = -k_infinity;     ///< impulse bounds: equality -inf..inf, contact 0..inf
  Real hi = k_infinity;
  std::int32_t friction_of = -1;  ///< index of an earlier row of the same constraint whose
                                  ///< impulse bounds this one to [-mu lambda, mu lambda]
  Real mu = 0;
};

/// Receives the rows of a custom constraint for one step.
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  /// Adds a row (validated: live bodies, finite values, lo <= hi); throws InvalidArgument.
  virtual void add(const ConstraintRow& row) = 0;
};

class World;

/// Called once per step, after forces are applied and before the solve, with the step's dt.
using CustomConstraint = std::function<void(const World& world, Real dt, RowWriter& rows)>;

/// A handle to a custom constraint, with a generation so a stale handle is caught.
struct ConstraintId {
  std::uint32_t index = ~std::uint32_t(0);
  std::uint32_t generation = 0;
  friend constexpr bool operator==(const ConstraintId&, const ConstraintId&) = default;
};

}  // namespace impulse
