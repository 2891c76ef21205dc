// Bodies under gravity alone: the closed forms every integrator must reproduce.

#include "scene/builtin/builtin_scenes.h"

namespace impulse::builtin {
namespace {

// One body of each dynamic shape dropped from rest side by side, and a static marker they pass.
Scene free_fall() {
  Scene scene;
  scene.name = "free-fall";
  scene.settings.sleeping = false;
  BodySettings marker = dynamic_body("marker", Box{{Real(0.1), Real(0.1), Real(0.1)}}, {0, 0, -2});
  marker.type = BodyType::static_body;
  scene.bodies.push_back(marker);
  scene.bodies.push_back(dynamic_body("sphere", Sphere{Real(0.5)}, {-3, 10, 0}));
  scene.bodies.push_back(
      dynamic_body("box", Box{{Real(0.5), Real(0.25), Real(0.75)}}, {-1, 10, 0}));
  scene.bodies.push_back(dynamic_body("capsule", Capsule{Real(0.3), Real(0.6)}, {1, 10, 0}));
  scene.bodies.push_back(dynamic_body(
      "tetrahedron", ConvexHull{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {3, 10, 0}));
  return scene;
}

// A ball thrown at 45 degrees: a parabola, with a kinematic platform gliding beneath it.
Scene projectile() {
  Scene scene;
  scene.name = "projectile";
  scene.settings.sleeping = false;
  BodySettings ball = dynamic_body("ball", Sphere{Real(0.11)}, {0, 1, 0});
  ball.mass = Real(0.43);
  ball.linear_velocity = {10, 10, 0};
  scene.bodies.push_back(ball);
  BodySettings platform = dynamic_body("platform", Box{{1, Real(0.05), 1}}, {0, 0, 0});
  platform.type = BodyType::kinematic_body;
  platform.linear_velocity = {5, 0, 0};
  platform.angular_velocity = {0, Real(0.5), 0};
  scene.bodies.push_back(platform);
  return scene;
}

}  // namespace

std::vector<BuiltinScene> falling_scenes() {
  return {{"free-fall", free_fall}, {"projectile", projectile}};
}

}  // namespace impulse::builtin
