// The scenes in Bullet: btDiscreteDynamicsWorld with btSequentialImpulseConstraintSolver and
// Bullet's defaults (docs/performance.md, "Peers benchmark: settings"), except what the scene
// contract fixes: iterations, gravity, friction, restitution, no sleeping.

#include "runner.h"

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <stdexcept>
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

std::unique_ptr<btCollisionShape> make_shape(const Shape& shape) {
  switch (shape.kind) {
    case ShapeKind::box:
      return std::make_unique<btBoxShape>(to_bullet(shape.half_extents));
    case ShapeKind::sphere:
      return std::make_unique<btSphereShape>(btScalar(shape.radius));
    case ShapeKind::capsule:  // along y, as the scene's; Bullet takes the inner segment's length
      return std::make_unique<btCapsuleShape>(btScalar(shape.radius),
                                              btScalar(2 * shape.half_height));
  }
  throw std::logic_error("unknown shape kind");
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
    for (const Body& body : scene.bodies) {
      shapes_.push_back(make_shape(body.shape));
      btCollisionShape* shape = shapes_.back().get();
      btVector3 inertia(0, 0, 0);
      if (!body.is_static()) shape->calculateLocalInertia(btScalar(body.mass), inertia);
      btRigidBody::btRigidBodyConstructionInfo info(btScalar(body.mass), nullptr, shape, inertia);
      info.m_startWorldTransform = to_bullet(body.pose);
      info.m_friction = friction;
      info.m_restitution = btScalar(std::sqrt(common.restitution));
      bodies_.push_back(std::make_unique<btRigidBody>(info));
      bodies_.back()->setActivationState(DISABLE_DEACTIVATION);
      world_.addRigidBody(bodies_.back().get());
    }
    for (const Joint& joint : scene.joints) {
      joints_.push_back(make_joint(joint));
      world_.addConstraint(joints_.back().get(), /*disableCollisionsBetweenLinkedBodies=*/true);
    }
  }

  ~BulletRunner() override {
    for (auto& joint : joints_)
      world_.removeConstraint(joint.get());
    for (auto& body : bodies_)
      world_.removeRigidBody(body.get());
  }

  // Bullet's hinge turns about its frames' z axis, its cone-twist twists about their x axis: the
  // frame at the anchor with that axis along the joint's, in body a's and body b's frames.
  std::unique_ptr<btTypedConstraint> make_joint(const Joint& joint) {
    btRigidBody& a = *bodies_[std::size_t(joint.body_a)];
    btRigidBody& b =
        joint.body_b < 0 ? btTypedConstraint::getFixedBody() : *bodies_[std::size_t(joint.body_b)];
    const btVector3 anchor = to_bullet(joint.anchor);
    if (joint.kind == JointKind::ball) {
      return std::make_unique<btPoint2PointConstraint>(a, b, a.getWorldTransform().invXform(anchor),
                                                       b.getWorldTransform().invXform(anchor));
    }
    const btVector3 axis = to_bullet(joint.axis), side = to_bullet(perpendicular(joint.axis));
    btMatrix3x3 basis;
    if (joint.kind == JointKind::hinge)  // columns side, axis x side, axis
      basis.setValue(side.x(), axis.cross(side).x(), axis.x(), side.y(), axis.cross(side).y(),
                     axis.y(), side.z(), axis.cross(side).z(), axis.z());
    else  // columns axis, side, axis x side
      basis.setValue(axis.x(), side.x(), axis.cross(side).x(), axis.y(), side.y(),
                     axis.cross(side).y(), axis.z(), side.z(), axis.cross(side).z());
    const btTransform frame(basis, anchor);
    const btTransform frame_a = a.getWorldTransform().inverse() * frame;
    const btTransform frame_b = b.getWorldTransform().inverse() * frame;
    if (joint.kind == JointKind::hinge) {
      auto hinge = std::make_unique<btHingeConstraint>(a, b, frame_a, frame_b);
      // Bullet's hinge angle is a's turn relative to b (the scene's is b's relative to a).
      hinge->setLimit(btScalar(-joint.hi), btScalar(-joint.lo));
      return hinge;
    }
    auto cone = std::make_unique<btConeTwistConstraint>(a, b, frame_a, frame_b);
    cone->setLimit(btScalar(joint.swing), btScalar(joint.swing), btScalar(joint.twist));
    return cone;
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
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btTypedConstraint>> joints_;
};

}  // namespace

std::unique_ptr<Runner> make_bullet_runner(const Scene& scene, const CommonSettings& settings) {
  return std::make_unique<BulletRunner>(scene, settings);
}

}  // namespace peers
