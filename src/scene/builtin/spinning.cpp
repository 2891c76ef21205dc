// Torque-free rotation: spin about principal axes, and the tumbling of the intermediate axis.

#include "scene/builtin/builtin_scenes.h"

namespace impulse::builtin {
namespace {

Scene weightless(const char* name) {
  Scene scene;
  scene.name = name;
  scene.settings.gravity = Vec3::zero();
  scene.settings.sleeping = false;
  return scene;
}

// A box spinning about each of its principal axes: each keeps its angular velocity.
Scene spin_principal() {
  Scene scene = weightless("spin-principal");
  scene.settings.gyroscopic = true;
  const Vec3 axes[] = {Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z()};
  const char* names[] = {"spin-x", "spin-y", "spin-z"};
  for (int i = 0; i < 3; ++i) {
    BodySettings box =
        dynamic_body(names[i], Box{{Real(0.2), Real(0.5), Real(0.8)}}, {Real(3 * i), 0, 0});
    box.angular_velocity = axes[i] * Real(6);
    scene.bodies.push_back(box);
  }
  return scene;
}

// The Dzhanibekov effect: a T-handle spun about its intermediate axis with a small disturbance
// flips over and back, periodically, while its angular momentum stays fixed. Needs the gyroscopic
// term; without it the handle simply keeps spinning (seed 001 section 5).
Scene dzhanibekov() {
  Scene scene = weightless("dzhanibekov");
  scene.settings.gyroscopic = true;
  BodySettings handle;
  handle.name = "t-handle";
  // A bar along z with a shaft along x fixed to its middle; moments 0.44 (x) < 0.62 (z) < 1.04
  // (y) kg m^2: z is the intermediate axis.
  handle.shapes = {
      ShapeSettings{Box{{Real(0.05), Real(0.05), Real(0.4)}}, {}},
      ShapeSettings{Box{{Real(0.3), Real(0.05), Real(0.05)}},
                    {{Real(0.35), 0, 0}, Quat::identity()}},
  };
  handle.angular_velocity = {Real(0.02), 0, Real(5)};
  scene.bodies.push_back(handle);
  return scene;
}

}  // namespace

std::vector<BuiltinScene> spinning_scenes() {
  return {{"spin-principal", spin_principal}, {"dzhanibekov", dzhanibekov}};
}

}  // namespace impulse::builtin
