// Stacks: seed 001's box stacks and mass-ratio test (table 1, section 9.2), a pyramid, a wall,
// seed 000's tower of 700 boxes, dominoes and a house of cards.

#include "scene/builtin/builtin_scenes.h"

#include <cmath>
#include <string>

namespace impulse::builtin {
namespace {

// Seed 001 table 1, in the paper's own units: boxes 200 x 100 x 200 (y up) of density
// 0.0000275 (110 units of mass), gravity 3, beta 0.1, mu 0.2, time step 0.5, 10 PGS iterations,
// the constant friction model, boxes first 10 units apart. No sleeping and no push-out cap
// (the paper has neither); the slop and speculative margin scale with the units.
constexpr Real k_seed_half_width = 100;
constexpr Real k_seed_half_height = 50;
constexpr Real k_seed_density = Real(0.0000275);
constexpr Real k_seed_gap = 10;

Scene seed001_world(std::string name, bool caching) {
  Scene scene;
  scene.name = std::move(name);
  WorldSettings& w = scene.settings;
  w.gravity = {0, -3, 0};
  w.timestep = Real(0.5);
  w.sleeping = false;
  w.speculative_margin = 2;
  w.solver.baumgarte = Real(0.1);
  w.solver.slop = Real(0.5);
  w.solver.iterations = 10;
  w.solver.friction_model = FrictionModel::constant;
  w.solver.warm_start = caching;
  w.solver.max_push_speed = Real(1e6);
  w.solver.restitution_threshold = 100;
  scene.bodies.push_back(ground(20 * k_seed_half_width, k_seed_half_height));
  scene.bodies.back().friction = Real(0.2);
  return scene;
}

BodySettings seed001_box(int level, Real density) {
  const Real y =
      k_seed_gap + k_seed_half_height + Real(level) * (2 * k_seed_half_height + k_seed_gap);
  BodySettings box =
      dynamic_body("box" + std::to_string(level),
                   Box{{k_seed_half_width, k_seed_half_height, k_seed_half_width}}, {0, y, 0});
  box.density = density;
  box.friction = Real(0.2);
  return box;
}

Scene seed001_stack(std::string name, int count, bool caching) {
  Scene scene = seed001_world(std::move(name), caching);
  for (int i = 0; i < count; ++i)
    scene.bodies.push_back(seed001_box(i, k_seed_density));
  return scene;
}

Scene seed001_stack3_nocache() {
  return seed001_stack("seed001-stack3-nocache", 3, false);
}
Scene seed001_stack10() {
  return seed001_stack("seed001-stack10", 10, true);
}
Scene seed001_mass_ratio_default() {
  return seed001_mass_ratio(Real(0.03), true);
}

// Seed 000's 2D pyramid: rows of unit boxes resting exactly on each other, 1.05 m apart.
Scene pyramid() {
  Scene scene;
  scene.name = "pyramid";
  scene.bodies.push_back(ground());
  constexpr int k_base = 20;
  constexpr Real k_pitch = Real(1.05);
  for (int row = 0; row < k_base; ++row) {
    for (int i = 0; i < k_base - row; ++i) {
      const Real x = (Real(i) - Real(k_base - row - 1) / 2) * k_pitch;
      scene.bodies.push_back(dynamic_body("box" + std::to_string(row) + "_" + std::to_string(i),
                                          Box{}, {x, Real(0.5) + Real(row), 0}));
    }
  }
  return scene;
}

// Bricks 1 x 0.5 x 0.5 m, 20 to a course; every other course is shifted by half a brick, with a
// half brick at each end so that no brick overhangs the wall's ends.
Scene wall() {
  Scene scene;
  scene.name = "wall";
  scene.bodies.push_back(ground());
  constexpr int k_courses = 10, k_bricks = 20;
  const Box brick{{Real(0.5), Real(0.25), Real(0.25)}};
  const Box half_brick{{Real(0.25), Real(0.25), Real(0.25)}};
  const Real end = Real(k_bricks) / 2;  // the wall spans [-end, end]
  for (int course = 0; course < k_courses; ++course) {
    const Real y = Real(0.25) + Real(0.5) * Real(course);
    const std::string prefix = "brick" + std::to_string(course) + "_";
    const bool shifted = course % 2 == 1;
    const int full = shifted ? k_bricks - 1 : k_bricks;
    for (int i = 0; i < full; ++i) {
      const Real x = -end + (shifted ? Real(1) : Real(0.5)) + Real(i);
      scene.bodies.push_back(dynamic_body(prefix + std::to_string(i), brick, {x, y, 0}));
    }
    if (shifted) {
      scene.bodies.push_back(dynamic_body(prefix + "left", half_brick, {-end + Real(0.25), y, 0}));
      scene.bodies.push_back(dynamic_body(prefix + "right", half_brick, {end - Real(0.25), y, 0}));
    }
  }
  return scene;
}

Scene tower700() {
  Scene scene;
  scene.name = "tower700";
  scene.bodies.push_back(ground());
  for (BodySettings& box : tower_boxes(20, 35, Real(6.2)))
    scene.bodies.push_back(std::move(box));
  return scene;
}

// Thin slabs on end in a row; the first is tipped onto the second.
Scene dominoes() {
  Scene scene;
  scene.name = "dominoes";
  scene.bodies.push_back(ground());
  constexpr int k_count = 30;
  const Box tile{{Real(0.05), Real(0.5), Real(0.25)}};
  for (int i = 0; i < k_count; ++i) {
    BodySettings d =
        dynamic_body("domino" + std::to_string(i), tile, {Real(0.6) * Real(i), Real(0.5), 0});
    d.friction = Real(0.6);
    if (i == 0) d.angular_velocity = {0, 0, -2};  // tipped towards +x
    scene.bodies.push_back(d);
  }
  return scene;
}

// A house of cards three storeys high: leaning pairs (an inverted V, each card 14 degrees off
// vertical) under flat cards that roof each pair of neighbouring Vs.
Scene cards() {
  Scene scene;
  scene.name = "cards";
  BodySettings floor = ground();
  floor.friction = 1;
  scene.bodies.push_back(floor);
  const Vec3 half{Real(0.3), Real(0.44), Real(0.005)};  // a card on end: x wide, y tall, z thin
  const Real lean = Real(14) * k_pi / 180;
  const Real height = 2 * half.y * std::cos(lean) + 2 * half.z * std::sin(lean);
  const Real spread = 2 * half.y * std::sin(lean);  // one card's lean: half a V's base
  const Real pitch = 2 * spread + Real(0.1);
  constexpr int k_storeys = 3;
  Real base_y = 0;
  int n = 0;
  for (int storey = 0; storey < k_storeys; ++storey) {
    const int pairs = k_storeys - storey;
    for (int p = 0; p < pairs; ++p) {
      const Real cx = (Real(p) - Real(pairs - 1) / 2) * pitch;
      for (const int side : {-1, 1}) {
        BodySettings card =
            dynamic_body("card" + std::to_string(n++), Box{{half.z, half.y, half.x}},
                         {cx + Real(side) * spread / 2, base_y + height / 2, 0});
        card.orientation = Quat::from_axis_angle({0, 0, 1}, Real(side) * lean);
        card.friction = 1;
        scene.bodies.push_back(card);
      }
    }
    base_y += height;
    for (int p = 0; p + 1 < pairs; ++p) {  // roofs between neighbouring Vs
      const Real cx = (Real(p) - Real(pairs - 2) / 2) * pitch;
      BodySettings roof =
          dynamic_body("card" + std::to_string(n++), Box{{pitch / 2 + Real(0.05), half.z, half.x}},
                       {cx, base_y + half.z, 0});
      roof.friction = 1;
      scene.bodies.push_back(roof);
    }
    if (pairs > 1) base_y += 2 * half.z;
  }
  return scene;
}

}  // namespace

BodySettings ground(Real half_width, Real half_height) {
  BodySettings g =
      dynamic_body("ground", Box{{half_width, half_height, half_width}}, {0, -half_height, 0});
  g.type = BodyType::static_body;
  return g;
}

Scene seed001_mass_ratio(Real density_ratio, bool light_at_bottom) {
  Scene scene = seed001_world("seed001-mass-ratio", true);
  const Real light = k_seed_density * density_ratio;
  scene.bodies.push_back(seed001_box(0, light_at_bottom ? light : k_seed_density));
  scene.bodies.push_back(seed001_box(1, light_at_bottom ? k_seed_density : light));
  return scene;
}

std::vector<BodySettings> tower_boxes(int rings, int per_ring, Real radius) {
  std::vector<BodySettings> boxes;
  const Real step = 2 * k_pi / Real(per_ring);
  for (int ring = 0; ring < rings; ++ring) {
    const Real offset = ring % 2 ? step / 2 : 0;  // half a box against the ring below
    for (int i = 0; i < per_ring; ++i) {
      const Real angle = Real(i) * step + offset;
      // Local z points outward: the box's face looks away from the tower's axis.
      const Vec3 out{std::sin(angle), 0, std::cos(angle)};
      BodySettings box = dynamic_body("box" + std::to_string(ring) + "_" + std::to_string(i), Box{},
                                      out * radius + Vec3{0, Real(0.5) + Real(ring), 0});
      box.orientation = Quat::from_axis_angle({0, 1, 0}, angle);
      boxes.push_back(std::move(box));
    }
  }
  return boxes;
}

std::vector<BuiltinScene> stacking_scenes() {
  return {{"seed001-stack3-nocache", seed001_stack3_nocache},
          {"seed001-stack10", seed001_stack10},
          {"seed001-mass-ratio", seed001_mass_ratio_default},
          {"pyramid", pyramid},
          {"wall", wall},
          {"tower700", tower700},
          {"dominoes", dominoes},
          {"cards", cards}};
}

}  // namespace impulse::builtin
