// The scenes in ODE: dWorldQuickStep with ODE's defaults (docs/performance.md, "Peers benchmark:
// settings") except what the scene contract fixes. ODE takes the pair's friction in each contact
// joint, so no combine rule applies.

#include "runner.h"

#include <ode/ode.h>

#include <array>
#include <vector>

namespace peers {
namespace {

// Box-box contacts kept per pair: 4, as many as Impulse's and Bullet's manifolds hold.
constexpr int k_max_contacts = 4;

class OdeRunner : public Runner {
 public:
  OdeRunner(const Scene& scene, const CommonSettings& common) : common_(common) {
    dInitODE2(0);
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
    for (const BoxBody& box : scene.bodies) {
      const V3 size = box.half_extents * 2;
      dGeomID geom = dCreateBox(space_, size.x, size.y, size.z);
      const Pose& p = box.pose;
      const dQuaternion q{p.orientation.w, p.orientation.x, p.orientation.y, p.orientation.z};
      dBodyID body = nullptr;
      if (box.is_static()) {
        dGeomSetPosition(geom, p.position.x, p.position.y, p.position.z);
        dGeomSetQuaternion(geom, q);
      } else {
        body = dBodyCreate(world_);
        dMass mass;
        dMassSetBoxTotal(&mass, box.mass, size.x, size.y, size.z);
        dBodySetMass(body, &mass);
        dBodySetPosition(body, p.position.x, p.position.y, p.position.z);
        dBodySetQuaternion(body, q);
        dGeomSetBody(geom, body);
      }
      geoms_.push_back(geom);
    }
    for (const BallJoint& joint : scene.joints) {
      dJointID ball = dJointCreateBall(world_, nullptr);
      dJointAttach(ball, dGeomGetBody(geoms_[joint.body_a]),
                   joint.body_b < 0 ? nullptr : dGeomGetBody(geoms_[joint.body_b]));
      dJointSetBallAnchor(ball, joint.anchor.x, joint.anchor.y, joint.anchor.z);
    }
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

  Pose pose(std::size_t body) const override {
    const dReal* p = dGeomGetPosition(geoms_[body]);
    dQuaternion q;
    dGeomGetQuaternion(geoms_[body], q);
    return {{p[0], p[1], p[2]}, {q[1], q[2], q[3], q[0]}};
  }

 private:
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
};

}  // namespace

std::unique_ptr<Runner> make_ode_runner(const Scene& scene, const CommonSettings& settings) {
  return std::make_unique<OdeRunner>(scene, settings);
}

}  // namespace peers
