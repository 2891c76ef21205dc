// The scenes in Impulse, through its public API only. Friction combines as the geometric mean
// (src/constraints/contact_rows.cpp), so each body gets the pair's friction itself.

#include "runner.h"

#include <impulse/world.h>

#include <stdexcept>
#include <vector>

namespace peers {
namespace {

impulse::Vec3 to_impulse(const V3& v) {
  return {impulse::Real(v.x), impulse::Real(v.y), impulse::Real(v.z)};
}

impulse::ShapeGeometry geometry(const Shape& shape) {
  switch (shape.kind) {
    case ShapeKind::box:
      return impulse::Box{to_impulse(shape.half_extents)};
    case ShapeKind::sphere:
      return impulse::Sphere{impulse::Real(shape.radius)};
    case ShapeKind::capsule:
      return impulse::Capsule{impulse::Real(shape.radius), impulse::Real(shape.half_height)};
  }
  throw std::logic_error("unknown shape kind");
}

class ImpulseRunner : public Runner {
 public:
  ImpulseRunner(const Scene& scene, const CommonSettings& common, ImpulseFriction friction)
      : world_(world_settings(common, friction)), dt_(impulse::Real(common.dt)) {
    world_.set_threads(common.threads);
    world_.set_thread_use(common.every_step_on_threads ? impulse::ThreadUse::always
                                                       : impulse::ThreadUse::measured);
    for (const Body& b : scene.bodies) {
      impulse::BodySettings body;
      body.shapes = {{geometry(b.shape), {}}};
      body.position = to_impulse(b.pose.position);
      const Q4& q = b.pose.orientation;
      body.orientation = {impulse::Real(q.x), impulse::Real(q.y), impulse::Real(q.z),
                          impulse::Real(q.w)};
      if (b.is_static())
        body.type = impulse::BodyType::static_body;
      else
        body.mass = impulse::Real(b.mass);
      body.friction = impulse::Real(common.friction);
      body.restitution = impulse::Real(common.restitution);
      bodies_.push_back(world_.create_body(body));
    }
    for (const Joint& joint : scene.joints) {
      impulse::JointSettings settings;
      settings.body_a = bodies_[joint.body_a];
      if (joint.body_b >= 0) settings.body_b = bodies_[joint.body_b];
      settings.anchor = to_impulse(joint.anchor);
      settings.axis = to_impulse(joint.axis);
      switch (joint.kind) {
        case JointKind::ball:
          settings.type = impulse::JointType::ball;
          break;
        case JointKind::hinge:
          settings.type = impulse::JointType::hinge;
          settings.limits = impulse::Range{impulse::Real(joint.lo), impulse::Real(joint.hi)};
          break;
        case JointKind::cone_twist:
          settings.type = impulse::JointType::cone_twist;
          settings.swing_limit = impulse::Real(joint.swing);
          settings.twist_limits = {-impulse::Real(joint.twist), impulse::Real(joint.twist)};
          break;
      }
      world_.create_joint(settings);
    }
  }

  void step() override { world_.step(dt_); }

  std::optional<impulse::StageTimes> stages() const override {
    return impulse::StageTimes::of(world_.last_step_stats());
  }

  std::optional<bool> layout_changed() const override {
    return world_.last_step_stats().solve.layout_changed;
  }

  std::optional<int> step_threads() const override { return world_.last_step_stats().threads; }

  Pose pose(std::size_t body) const override {
    const impulse::Transform t = world_.transform(bodies_[body]);
    return {{t.position.x, t.position.y, t.position.z},
            {t.orientation.x, t.orientation.y, t.orientation.z, t.orientation.w}};
  }

 private:
  static impulse::WorldSettings world_settings(const CommonSettings& common,
                                               ImpulseFriction friction) {
    impulse::WorldSettings s;
    s.gravity = {0, impulse::Real(-common.gravity), 0};
    s.timestep = impulse::Real(common.dt);
    s.sleeping = false;
    s.solver.iterations = common.iterations;
    s.solver.friction_model = friction == ImpulseFriction::patch ? impulse::FrictionModel::patch
                                                                 : impulse::FrictionModel::coulomb;
    return s;
  }

  impulse::World world_;
  impulse::Real dt_;
  std::vector<impulse::BodyId> bodies_;
};

}  // namespace

std::unique_ptr<Runner> make_impulse_runner(const Scene& scene, const CommonSettings& settings,
                                            ImpulseFriction friction) {
  return std::make_unique<ImpulseRunner>(scene, settings, friction);
}

}  // namespace peers
