// The scenes in ODE: dWorldQuickStep with ODE's defaults (docs/performance.md, "Peers benchmark:
// settings") except what the scene contract fixes. ODE takes the pair's friction in each contact
// joint, so no combine rule applies.

#include "runner.h"

#include <ode/ode.h>

#include <array>
#include <numbers>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace peers {
namespace {

// Contacts kept per pair: 4, as many as Impulse's and Bullet's manifolds hold.
constexpr int k_max_contacts = 4;

class OdeRunner : public Runner {
 public:
  OdeRunner(const Scene& scene, const CommonSettings& common) : common_(common) {
    dInitODE2(0);
    // The quick step shuffles its rows with ODE's one global generator: seeded per world, a
    // scene's figures no longer depend on the scenes run before it in the same process.
    dRandSetSeed(0);
    dAllocateODEDataForThread(dAllocateMaskAll);
    world_ = dWorldCreate();
    space_ = dHashSpaceCreate(nullptr);
    contacts_ = dJointGroupCreate(0);
    dWorldSetGravity(world_, 0, -common.gravity, 0);
    dWorldSetQuickStepNumIterations(world_, common.iterations);
    // ODE's documented ERP and CFM; a double-precision build (Debian's) would default to 1e-10.
    dWorldSetERP(world_, 0.2);
    dWorldSetCFM(world_, 1e-5);
    dWorldSetAutoDisableFlag(world_, 0);
    for (const Body& body : scene.bodies) {
      const Pose& p = body.pose;
      const dQuaternion q{p.orientation.w, p.orientation.x, p.orientation.y, p.orientation.z};
      dGeomID geom = make_geom(body.shape);
      const Q4 z_to_y = axis_angle({1, 0, 0}, -std::numbers::pi / 2);
      if (body.is_static()) {
        // ODE's capsule lies along z, the scene's y.
        const Q4 turned =
            body.shape.kind == ShapeKind::capsule ? p.orientation * z_to_y : p.orientation;
        const dQuaternion geom_q{turned.w, turned.x, turned.y, turned.z};
        dGeomSetPosition(geom, p.position.x, p.position.y, p.position.z);
        dGeomSetQuaternion(geom, geom_q);
      } else {
        dBodyID b = dBodyCreate(world_);
        dMass mass = mass_of(body);
        dBodySetMass(b, &mass);
        dBodySetPosition(b, p.position.x, p.position.y, p.position.z);
        dBodySetQuaternion(b, q);
        dGeomSetBody(geom, b);
        if (body.shape.kind == ShapeKind::capsule) {
          const dQuaternion offset{z_to_y.w, z_to_y.x, z_to_y.y, z_to_y.z};
          dGeomSetOffsetQuaternion(geom, offset);
        }
      }
      geoms_.push_back(geom);
      start_poses_.push_back(p);
    }
    for (const Joint& joint : scene.joints)
      add_joint(joint);
  }

  ~OdeRunner() override {
    dJointGroupDestroy(contacts_);
    dSpaceDestroy(space_);  // and its geoms
    dWorldDestroy(world_);
    dCloseODE();
  }

  OdeRunner(const OdeRunner&) = delete;
  OdeRunner& operator=(const OdeRunner&) = delete;

  void step() override {
    dSpaceCollide(space_, this, &OdeRunner::near_callback);
    dWorldQuickStep(world_, common_.dt);
    dJointGroupEmpty(contacts_);
  }

  // A body's own frame (not its geom's, which a capsule's offset turns); a static body's never
  // moves.
  Pose pose(std::size_t body) const override {
    dBodyID b = dGeomGetBody(geoms_[body]);
    if (b == nullptr) return start_poses_[body];
    const dReal* p = dBodyGetPosition(b);
    const dReal* r = dBodyGetQuaternion(b);
    return {{p[0], p[1], p[2]}, {r[1], r[2], r[3], r[0]}};
  }

 private:
  dGeomID make_geom(const Shape& shape) {
    switch (shape.kind) {
      case ShapeKind::box: {
        const V3 size = shape.half_extents * 2;
        return dCreateBox(space_, size.x, size.y, size.z);
      }
      case ShapeKind::sphere:
        return dCreateSphere(space_, shape.radius);
      case ShapeKind::capsule:
        return dCreateCapsule(space_, shape.radius, 2 * shape.half_height);
    }
    throw std::logic_error("unknown shape kind");
  }

  static dMass mass_of(const Body& body) {
    const Shape& shape = body.shape;
    dMass mass;
    switch (shape.kind) {
      case ShapeKind::box: {
        const V3 size = shape.half_extents * 2;
        dMassSetBoxTotal(&mass, body.mass, size.x, size.y, size.z);
        break;
      }
      case ShapeKind::sphere:
        dMassSetSphereTotal(&mass, body.mass, shape.radius);
        break;
      case ShapeKind::capsule:  // direction 2: along the body's y
        dMassSetCapsuleTotal(&mass, body.mass, 2, shape.radius, 2 * shape.half_height);
        break;
    }
    return mass;
  }

  // Ball: dJointCreateBall. Hinge: dJointCreateHinge with its stops; ODE's angle is that of its
  // first body relative to its second, so b is attached first. Cone-twist: ODE has none; a ball
  // joint and an Euler angular motor (ODE's manual's recipe for ragdolls) whose axis 2 is b's
  // twist axis, stopped at +-twist, and whose axes 0 (fixed in a, across the twist axis) and 1
  // are each stopped at +-swing: a square of swing angles around the cone.
  void add_joint(const Joint& joint) {
    dBodyID a = dGeomGetBody(geoms_[std::size_t(joint.body_a)]);
    dBodyID b = joint.body_b < 0 ? nullptr : dGeomGetBody(geoms_[std::size_t(joint.body_b)]);
    const V3& at = joint.anchor;
    const V3& axis = joint.axis;
    if (joint.kind == JointKind::hinge) {
      dJointID hinge = dJointCreateHinge(world_, nullptr);
      dJointAttach(hinge, b, a);
      dJointSetHingeAnchor(hinge, at.x, at.y, at.z);
      dJointSetHingeAxis(hinge, axis.x, axis.y, axis.z);
      dJointSetHingeParam(hinge, dParamLoStop, joint.lo);
      dJointSetHingeParam(hinge, dParamHiStop, joint.hi);
      return;
    }
    dJointID ball = dJointCreateBall(world_, nullptr);
    dJointAttach(ball, a, b);
    dJointSetBallAnchor(ball, at.x, at.y, at.z);
    if (joint.kind == JointKind::ball) return;
    dJointID motor = dJointCreateAMotor(world_, nullptr);
    dJointAttach(motor, a, b);
    dJointSetAMotorMode(motor, dAMotorEuler);
    const V3 side = perpendicular(axis);
    dJointSetAMotorAxis(motor, 0, 1, side.x, side.y, side.z);
    dJointSetAMotorAxis(motor, 2, 2, axis.x, axis.y, axis.z);
    for (const auto& [lo, hi, limit] : {std::tuple{dParamLoStop, dParamHiStop, joint.swing},
                                        std::tuple{dParamLoStop2, dParamHiStop2, joint.swing},
                                        std::tuple{dParamLoStop3, dParamHiStop3, joint.twist}}) {
      dJointSetAMotorParam(motor, lo, -limit);
      dJointSetAMotorParam(motor, hi, limit);
    }
  }

  static void near_callback(void* data, dGeomID g1, dGeomID g2) {
    auto* self = static_cast<OdeRunner*>(data);
    dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
    // Jointed bodies do not collide (the other engines' collide_connected = false).
    if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact)) return;
    std::array<dContact, k_max_contacts> contacts{};
    const int count = dCollide(g1, g2, k_max_contacts, &contacts[0].geom, sizeof(dContact));
    for (int i = 0; i < count; ++i) {
      dSurfaceParameters& surface = contacts[i].surface;
      surface.mode = dContactApprox1;  // friction pyramid scaled by the normal force
      surface.mu = self->common_.friction;
      if (self->common_.restitution > 0) {
        surface.mode |= dContactBounce;
        surface.bounce = self->common_.restitution;
      }
      dJointID joint = dJointCreateContact(self->world_, self->contacts_, &contacts[i]);
      dJointAttach(joint, b1, b2);
    }
  }

  CommonSettings common_;
  dWorldID world_ = nullptr;
  dSpaceID space_ = nullptr;
  dJointGroupID contacts_ = nullptr;
  std::vector<dGeomID> geoms_;
  std::vector<Pose> start_poses_;
};

}  // namespace

std::unique_ptr<Runner> make_ode_runner(const Scene& scene, const CommonSettings& settings) {
  return std::make_unique<OdeRunner>(scene, settings);
}

}  // namespace peers
