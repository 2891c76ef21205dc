#include "dynamics/geometric_stiffness.h"

#include <algorithm>
#include <cmath>

namespace impulse {

namespace {
// The load's share of the body's inertia about its anchor (x above) from which the whole
// stiffness is added: below it the stiffness fades as (10 x) x, so a lightly loaded pendulum's
// period moves by 4e-5 of itself rather than 1.3e-3
// (GeometricStiffness.ALightlyLoadedPendulumKeepsItsPeriod).
constexpr Real k_full_share = Real(0.1);
}  // namespace

Mat33 geometric_stiffness_inertia(const Vec3& force, const Vec3& lever, Real inv_mass, Real dt) {
  const Real reach = length(lever);
  if (!(reach > 0)) return Mat33::zero();
  const Real load = std::abs(dot(force, lever)) / reach;
  if (!(load > 0)) return Mat33::zero();
  const Real share = dt * dt * load * inv_mass / reach;
  const Real size = dt * dt * load * reach * std::min(Real(1), share / k_full_share);
  if (!std::isfinite(size)) return Mat33::zero();  // a load past float's range: left to the guards
  const Vec3 along = lever / reach;
  // dt^2 t |r| (I - r r^T / |r|^2): no inertia is added about the lever itself, which the load
  // does not turn.
  return (Mat33::identity() - Mat33::outer(along, along)) * size;
}

Mat33 stiffened_inverse_inertia(const Mat33& inv_inertia, const Mat33& added) {
  // (I + A)^-1 = I^-1 (1 + A I^-1)^-1; 1 + A I^-1 is invertible for positive semi-definite A and
  // I^-1, and the product keeps I^-1's null space.
  const Mat33 stiffened = inv_inertia * inverse(Mat33::identity() + added * inv_inertia);
  return (stiffened + transpose(stiffened)) * Real(0.5);
}

}  // namespace impulse
