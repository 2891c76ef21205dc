// Friction and restitution: boxes on a slope, balls that bounce, and a pile of mixed shapes.

#include "scene/builtin/builtin_scenes.h"

#include <cmath>
#include <random>
#include <string>

namespace impulse::builtin {
namespace {

// Two boxes on a 30 degree slope, each on a strip of its own friction (the pair's friction is
// the geometric mean, so equal values give exactly mu): with mu 0.7 (> tan 30 = 0.577) one stays;
// with mu 0.3 the other slides at g (sin 30 - mu cos 30).
Scene incline() {
  Scene scene;
  scene.name = "incline";
  scene.settings.sleeping = false;
  const Quat tilt = Quat::from_axis_angle({0, 0, 1}, k_pi / 6);
  for (const Real mu : {Real(0.3), Real(0.7)}) {
    const std::string label = mu < Real(0.5) ? "mu0.3" : "mu0.7";
    const Real z = mu < Real(0.5) ? Real(-1.5) : Real(1.5);
    BodySettings slope = dynamic_body("slope-" + label, Box{{20, Real(0.5), Real(1.5)}}, {0, 0, z});
    slope.type = BodyType::static_body;
    slope.orientation = tilt;
    slope.friction = mu;
    scene.bodies.push_back(slope);
    BodySettings box = dynamic_body("box-" + label, Box{Vec3::splat(Real(0.5))},
                                    rotate(tilt, {5, 1, 0}) + Vec3{0, 0, z});
    box.orientation = tilt;
    box.friction = mu;
    scene.bodies.push_back(box);
  }
  return scene;
}

// Balls dropped from 1 m (their lowest point) with restitution 0, 0.5 and 0.9: they rebound to
// e^2 of the drop height.
Scene bounce() {
  Scene scene;
  scene.name = "bounce";
  scene.settings.sleeping = false;
  scene.bodies.push_back(ground());
  const Real radius = Real(0.1);
  int i = 0;
  for (const Real e : {Real(0), Real(0.5), Real(0.9)}) {
    BodySettings ball =
        dynamic_body("ball-e" + std::to_string(i), Sphere{radius}, {Real(i) - 1, 1 + radius, 0});
    ball.restitution = e;
    scene.bodies.push_back(ball);
    ++i;
  }
  return scene;
}

// 1000 spheres, boxes, capsules and hulls in a 10 x 10 x 10 grid at 1.5 m pitch, turned by a
// seeded generator, dropped into a walled box 16 m square.
Scene pile() {
  Scene scene;
  scene.name = "pile";
  scene.bodies.push_back(ground());
  constexpr Real k_inner = 8, k_wall = Real(0.5), k_wall_height = 4;
  for (int side = 0; side < 4; ++side) {
    const bool along_x = side < 2;
    const Real at = (side % 2 ? -1 : 1) * (k_inner + k_wall);
    const Vec3 half = along_x ? Vec3{k_wall, k_wall_height, k_inner + 2 * k_wall}
                              : Vec3{k_inner, k_wall_height, k_wall};
    BodySettings wall =
        dynamic_body("wall" + std::to_string(side), Box{half},
                     along_x ? Vec3{at, k_wall_height, 0} : Vec3{0, k_wall_height, at});
    wall.type = BodyType::static_body;
    scene.bodies.push_back(wall);
  }
  const ConvexHull rock{{{Real(0.5), 0, 0},
                         {Real(-0.4), Real(0.1), Real(0.2)},
                         {0, Real(0.45), 0},
                         {Real(0.1), Real(-0.4), Real(0.1)},
                         {0, 0, Real(0.5)},
                         {Real(-0.1), Real(0.1), Real(-0.45)},
                         {Real(0.3), Real(0.3), Real(0.3)}}};
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> unit(-1, 1);
  int n = 0;
  for (int y = 0; y < 10; ++y) {
    for (int x = 0; x < 10; ++x) {
      for (int z = 0; z < 10; ++z, ++n) {
        ShapeGeometry shape;
        switch (n % 4) {
          case 0:
            shape = Box{{Real(0.5), Real(0.3), Real(0.4)}};
            break;
          case 1:
            shape = Sphere{Real(0.4)};
            break;
          case 2:
            shape = Capsule{Real(0.25), Real(0.35)};
            break;
          default:
            shape = rock;
            break;
        }
        BodySettings body =
            dynamic_body("body" + std::to_string(n), shape,
                         {(Real(x) - Real(4.5)) * Real(1.5), 2 + Real(y) * Real(1.5),
                          (Real(z) - Real(4.5)) * Real(1.5)});
        body.orientation = normalize(Quat{unit(rng), unit(rng), unit(rng), unit(rng)});
        scene.bodies.push_back(body);
      }
    }
  }
  return scene;
}

// 40 balls, boxes and capsules tumbling in a drum: a kinematic ring of 16 flat panels, 3 m to
// their inner faces and 2.8 m deep between two end walls, turning at 2 rad/s about z (its rim at
// 6 m/s), the bodies carried up its wall and thrown back across it. Faces turning under sliding
// bodies and boxes tipping over each other's edges: docs/results.md.
Scene drum() {
  Scene scene;
  scene.name = "drum";
  scene.settings.sleeping = false;
  constexpr int k_panels = 16;
  constexpr Real k_radius = 3, k_panel_half_thickness = Real(0.25), k_half_depth = Real(1.4);
  const Real panel_half_width = k_radius * std::tan(k_pi / k_panels) + Real(0.3);
  BodySettings drum;
  drum.name = "drum";
  drum.type = BodyType::kinematic_body;
  drum.angular_velocity = {0, 0, 2};
  drum.friction = Real(0.6);
  drum.shapes.clear();  // the settings' default unit box would sit in the drum's middle
  for (int i = 0; i < k_panels; ++i) {
    const Real angle = 2 * k_pi * Real(i) / k_panels;
    const Real reach = k_radius + k_panel_half_thickness;
    drum.shapes.push_back(
        ShapeSettings{Box{{panel_half_width, k_panel_half_thickness, k_half_depth}},
                      {{reach * std::sin(angle), -reach * std::cos(angle), 0},
                       Quat::from_axis_angle(Vec3::unit_z(), angle)}});
  }
  for (const Real side : {Real(-1), Real(1)}) {
    drum.shapes.push_back(
        ShapeSettings{Box{{Real(3.6), Real(3.6), Real(0.2)}},
                      {{0, 0, side * (k_half_depth + Real(0.2))}, Quat::identity()}});
  }
  scene.bodies.push_back(drum);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> depth(Real(-0.8), Real(0.8));
  for (int i = 0; i < 40; ++i) {
    ShapeGeometry shape = Sphere{Real(0.22)};
    if (i % 3 == 1) shape = Box{{Real(0.2), Real(0.2), Real(0.2)}};
    if (i % 3 == 2) shape = Capsule{Real(0.15), Real(0.1)};
    BodySettings body = dynamic_body(
        "body" + std::to_string(i), shape,
        {Real(-1.5) + Real(0.6) * Real(i % 6), Real(-2.2) + Real(0.6) * Real(i / 6), depth(rng)});
    body.friction = Real(0.5);
    scene.bodies.push_back(body);
  }
  return scene;
}

}  // namespace

std::vector<BuiltinScene> material_scenes() {
  return {{"incline", incline}, {"bounce", bounce}, {"pile", pile}, {"drum", drum}};
}

}  // namespace impulse::builtin
