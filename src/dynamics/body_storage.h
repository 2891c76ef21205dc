#pragma once
// Body data split by who touches it (Box2D's habit): the solver reads and writes only
// BodyVelocity; integration reads BodyMotion; the API and bookkeeping live in BodyRecord.

#include <impulse/body.h>

#include "core/lanes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace impulse {

/// The solver's state of a body: 24 bytes in float.
struct BodyVelocity {
  Vec3 linear;   // m/s of the centre of mass
  Vec3 angular;  // rad/s, world frame
};
static_assert(sizeof(BodyVelocity) == 6 * sizeof(Real));

/// The velocity of b's material point at lever rb less a's at lever ra (levers from each body's
/// centre of mass), summed in this order wherever a contact's approach is judged from it.
inline Vec3 relative_velocity_at(const BodyVelocity& va, const Vec3& ra, const BodyVelocity& vb,
                                 const Vec3& rb) {
  return vb.linear + cross(vb.angular, rb) - va.linear - cross(va.angular, ra);
}

/// What integration needs: pose, mass and the forces of this step.
struct BodyMotion {
  Vec3 center;  // m, centre of mass in the world
  Quat orientation;
  Vec3 local_center;    // m, centre of mass in the body frame
  Real inv_mass = 0;    // 0 for static and kinematic bodies
  Mat33 inertia_local;  // about the centre of mass, body axes (for the gyroscopic term)
  Mat33 inv_inertia_local;
  Mat33 inv_inertia_world;  // R I^-1 R^T, refreshed after every orientation change
  Vec3 force;               // N, accumulated until the next step
  Vec3 torque;              // N m
  Real linear_damping = 0;
  Real angular_damping = 0;
  Real gravity_scale = 1;
  BodyType type = BodyType::dynamic_body;
  // A dynamic body of a plane world (WorldSettings::plane_normal): moves only perpendicular to
  // this unit normal and turns only about it. Zero otherwise.
  Vec3 plane_normal;

  Transform origin_transform() const {
    return {center - rotate(orientation, local_center), orientation};
  }
  void refresh_world_inertia() {
    const Mat33 r = to_matrix(orientation);
    // R I^-1 R^T column by column in lanes, each entry summed as Mat33's products sum it (the
    // same bits): a vector operation for three scalar ones, for every awake body every step.
    const LaneMat33 turn = to_lanes(r);
    LaneMat33 turned;  // R I^-1
    for (std::size_t c = 0; c < 3; ++c)
      turned[c] = times(turn, lanes_of(inv_inertia_local.col(int(c))));
    inv_inertia_world = {to_vec3(times(turned, lanes_of(r.row(0)))),
                         to_vec3(times(turned, lanes_of(r.row(1)))),
                         to_vec3(times(turned, lanes_of(r.row(2))))};
    if (plane_normal == Vec3::zero() || inv_inertia_local == Mat33::zero()) return;
    // Turning only about n, the body answers a torque t with n (n . t) / (n . I n): its inverse
    // inertia is n n^T / (n . I n), which is P I^-1 P (P = n n^T) only when n is a principal axis.
    const Vec3 n_body = inverse_rotate(orientation, plane_normal);
    inv_inertia_world =
        Mat33::outer(plane_normal, plane_normal) * (Real(1) / dot(n_body, inertia_local * n_body));
  }
  /// The part of a linear velocity (change) the body can take: in a plane world, its in-plane part.
  Vec3 allowed_linear(const Vec3& v) const {
    return plane_normal == Vec3::zero() ? v : reject(v, plane_normal);
  }
  /// The part of an angular velocity the body can take: in a plane world, its part about the
  /// normal.
  Vec3 allowed_angular(const Vec3& w) const {
    return plane_normal == Vec3::zero() ? w : dot(w, plane_normal) * plane_normal;
  }
};

/// Sleeping (dynamics/sleep.h): how long the body has idled, and the island it sleeps in.
/// A frozen body (dynamics/guards.h) sleeps in no island and nothing but World::unfreeze wakes it.
struct BodySleep {
  Real idle_time = 0;        // s under the sleep thresholds
  std::uint32_t island = 0;  // while asleep: the island's smallest slot, shared by its bodies
  bool asleep = false;
  bool frozen = false;
  static constexpr BodySleep frozen_state() { return {0, ~std::uint32_t(0), true, true}; }
};

/// Bookkeeping: identity, names, what the body was made of.
struct BodyRecord {
  std::uint32_t generation = 1;  // bumped on removal so old handles go stale
  bool alive = false;
  BodySettings settings;  // as created; pose and velocities are not kept current here
  MassProperties mass;
  std::vector<std::uint32_t> shapes;  // the ContactManager's handles, in settings' order
};

}  // namespace impulse
