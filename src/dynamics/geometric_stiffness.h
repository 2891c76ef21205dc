#pragma once
// Geometric stiffness of joint loads (Andrews, Teichmann and Kry, "Geometric Stiffness for
// Real-time Constrained Multibody Dynamics", 2017): a body that carries a large force at an anchor
// off its centre of mass feels a torque that turns with the body, a stiffness of the body's
// rotation the velocity solve cannot see (its Jacobians are frozen over the step). Under a load
// much heavier than the body (a light link above a heavy weight) that stiffness oscillates far
// faster than the step resolves, and the links spin up and the joints part. Added to the inertia
// the step's solve sees of the body, it keeps the impulses from whipping those rotations up
// (docs/joints.md, "Geometric stiffness").

#include <impulse/math/mat33.h>

namespace impulse {

/// The rotational inertia, world axes, that a load `force` (N) at `lever` (m, from the body's
/// centre of mass) adds to a body of inverse mass `inv_mass` for a step of `dt`: dt^2 t |r|
/// across the lever, t = |f . r| / |r| the load along the lever, the size of the load's geometric
/// stiffness d(r x f)/d(theta) (a load across the lever turns with the body but stiffens
/// nothing); faded by min(1, 10 x), where x = dt^2 t / (m |r|) is that inertia's share of the
/// body's own m r^2 about the anchor, what it would distort a swing about the anchor by (a
/// pendulum's bob: x = dt^2 g / L, whose period it would lengthen by 0.13% at 60 Hz unfaded).
Mat33 geometric_stiffness_inertia(const Vec3& force, const Vec3& lever, Real inv_mass, Real dt);

/// (I + added)^-1 from I^-1, for an inverse inertia that may be singular (a body that turns only
/// about a plane's normal keeps doing so); symmetric.
Mat33 stiffened_inverse_inertia(const Mat33& inv_inertia, const Mat33& added);

}  // namespace impulse
