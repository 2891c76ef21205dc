// The scenes in Bullet: btDiscreteDynamicsWorld with btSequentialImpulseConstraintSolver and
// Bullet's defaults (docs/performance.md, "Peers benchmark: settings"), except what the scene
// contract fixes: iterations, gravity, friction, restitution, no sleeping.

#include "runner.h"

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <vector>

namespace peers {
namespace {

btVector3 to_bullet(const V3& v) {
  return {btScalar(v.x), btScalar(v.y), btScalar(v.z)};
}

btTransform to_bullet(const Pose& p) {
  const Q4& q = p.orientation;
  return btTransform(btQuaternion(btScalar(q.x), btScalar(q.y), btScalar(q.z), btScalar(q.w)),
                     to_bullet(p.position));
}

class BulletRunner : public Runner {
 public:
  BulletRunner(const Scene& scene, const CommonSettings& common)
      : dispatcher_(&config_),
        world_(&dispatcher_, &broadphase_, &solver_, &config_),
        dt_(btScalar(common.dt)) {
    world_.setGravity({0, btScalar(-common.gravity), 0});
    world_.getSolverInfo().m_numIterations = common.iterations;
    // Bullet multiplies the bodies' frictions and restitutions into the pair's.
    const btScalar friction = btScalar(std::sqrt(common.friction));
    for (const BoxBody& box : scene.bodies) {
      shapes_.push_back(std::make_unique<btBoxShape>(to_bullet(box.half_extents)));
      btBoxShape* shape = shapes_.back().get();
      btVector3 inertia(0, 0, 0);
      if (!box.is_static()) shape->calculateLocalInertia(btScalar(box.mass), inertia);
      btRigidBody::btRigidBodyConstructionInfo info(btScalar(box.mass), nullptr, shape, inertia);
      info.m_startWorldTransform = to_bullet(box.pose);
      info.m_friction = friction;
      info.m_restitution = btScalar(std::sqrt(common.restitution));
      bodies_.push_back(std::make_unique<btRigidBody>(info));
      bodies_.back()->setActivationState(DISABLE_DEACTIVATION);
      world_.addRigidBody(bodies_.back().get());
    }
    for (const BallJoint& joint : scene.joints) {
      btRigidBody& a = *bodies_[joint.body_a];
      const btVector3 pivot_a = a.getWorldTransform().invXform(to_bullet(joint.anchor));
      if (joint.body_b < 0) {
        joints_.push_back(std::make_unique<btPoint2PointConstraint>(a, pivot_a));
      } else {
        btRigidBody& b = *bodies_[joint.body_b];
        const btVector3 pivot_b = b.getWorldTransform().invXform(to_bullet(joint.anchor));
        joints_.push_back(std::make_unique<btPoint2PointConstraint>(a, b, pivot_a, pivot_b));
      }
      world_.addConstraint(joints_.back().get(), /*disableCollisionsBetweenLinkedBodies=*/true);
    }
  }

  ~BulletRunner() override {
    for (auto& joint : joints_)
      world_.removeConstraint(joint.get());
    for (auto& body : bodies_)
      world_.removeRigidBody(body.get());
  }

  // maxSubSteps 0: exactly one step of dt, no interpolation.
  void step() override { world_.stepSimulation(dt_, 0); }

  Pose pose(std::size_t body) const override {
    const btTransform& t = bodies_[body]->getWorldTransform();
    const btVector3& p = t.getOrigin();
    const btQuaternion q = t.getRotation();
    return {{p.x(), p.y(), p.z()}, {q.x(), q.y(), q.z(), q.w()}};
  }

 private:
  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  btSequentialImpulseConstraintSolver solver_;
  btDiscreteDynamicsWorld world_;
  btScalar dt_;
  std::vector<std::unique_ptr<btBoxShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btPoint2PointConstraint>> joints_;
};

}  // namespace

std::unique_ptr<Runner> make_bullet_runner(const Scene& scene, const CommonSettings& settings) {
  return std::make_unique<BulletRunner>(scene, settings);
}

}  // namespace peers
