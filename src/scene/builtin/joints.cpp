// Joints (issue 6, item 5): a pendulum, a hanging chain and rope, a bridge, ragdolls, a catapult,
// seed 000's point-mass net (figure 11) and impossible constraints (figure 8), and Newton's cradle.

#include "scene/builtin/builtin_scenes.h"

#include <cmath>
#include <string>

namespace impulse::builtin {
namespace {

SceneJoint joint(std::string name, JointType type, std::string body_a, std::string body_b = {}) {
  SceneJoint j;
  j.settings.name = std::move(name);
  j.settings.type = type;
  j.body_a = std::move(body_a);
  j.body_b = std::move(body_b);
  return j;
}

SceneJoint nail(std::string name, std::string body, const Vec3& anchor) {
  SceneJoint j = joint(std::move(name), JointType::nail, std::move(body));
  j.settings.anchor = anchor;
  return j;
}

SceneJoint ball(std::string name, std::string a, std::string b, const Vec3& anchor) {
  SceneJoint j = joint(std::move(name), JointType::ball, std::move(a), std::move(b));
  j.settings.anchor = anchor;
  return j;
}

BodySettings with_mass(BodySettings body, Real mass) {
  body.mass = mass;
  return body;
}

// A 1 m pendulum: a 1 kg point mass (so that it is the ideal pendulum, T = 2 pi sqrt(L / g) for
// small swings) on a 1 m rigid distance joint to the pivot (a nail would pin a particle outright:
// it cannot turn about the pivot), released from rest at 5 degrees. Stepped at 1/240 s, the rate
// the period acceptance asks for.
Scene pendulum() {
  Scene scene;
  scene.name = "pendulum";
  scene.settings.timestep = Real(1.0 / 240.0);
  scene.settings.sleeping = false;
  const Vec3 pivot{0, 2, 0};
  const Real angle = Real(5) * k_pi / 180;
  const Vec3 start = pivot + Vec3{std::sin(angle), -std::cos(angle), 0};
  BodySettings bob = with_mass(dynamic_body("bob", Sphere{Real(0.05)}, start), 1);
  bob.particle = true;
  scene.bodies.push_back(bob);
  SceneJoint rod = joint("rod", JointType::distance, "bob");
  rod.settings.anchor_a = start;
  rod.settings.anchor_b = pivot;
  scene.joints.push_back(rod);
  return scene;
}

// 100 links of 1 kg, boxes 0.2 m long (5 cm square), ball joints at their ends, the top link
// nailed at y = 21 m: 20 m of chain hanging straight down at rest. No sleeping, so the joint
// error is the solver's and not frozen by a sleeping island.
Scene chain100() {
  Scene scene;
  scene.name = "chain100";
  scene.settings.sleeping = false;
  constexpr int k_links = 100;
  constexpr Real k_length = Real(0.2), k_top = 21;
  for (int i = 0; i < k_links; ++i) {
    const Real top = k_top - Real(i) * k_length;
    const std::string name = "link" + std::to_string(i);
    scene.bodies.push_back(
        with_mass(dynamic_body(name, Box{{Real(0.025), k_length / 2, Real(0.025)}},
                               {0, top - k_length / 2, 0}),
                  1));
    if (i == 0)
      scene.joints.push_back(nail("nail", name, {0, top, 0}));
    else
      scene.joints.push_back(
          ball("ball" + std::to_string(i), "link" + std::to_string(i - 1), name, {0, top, 0}));
  }
  return scene;
}

// 10 planks (1 x 0.1 x 1.5 m, 15 kg) hinged end to end about z between two static posts whose
// tops are 9.8 m apart: the hinge points start on a circular arc (0.86 m sag) so every hinge holds
// at creation, and the bridge can take load by tension without being pulled straight. Three 20 kg
// boxes (0.5 m) drop onto it from 1 m.
Scene bridge() {
  Scene scene;
  scene.name = "bridge";
  scene.bodies.push_back(ground());
  constexpr int k_planks = 10;
  constexpr Real k_plank = 1, k_span = Real(9.8), k_top = 3;
  // Half-angle alpha of the arc: a chord of k_span spanned by k_planks chords of k_plank,
  // sin(alpha) / sin(alpha / n) = span / plank, by bisection (the ratio falls as alpha grows).
  Real lo = 0, hi = k_pi / 2;
  for (int i = 0; i < 60; ++i) {
    const Real mid = (lo + hi) / 2;
    const Real ratio = std::sin(mid) / std::sin(mid / k_planks);
    (ratio > k_span / k_plank ? lo : hi) = mid;
  }
  const Real alpha = (lo + hi) / 2, radius = k_span / (2 * std::sin(alpha));
  const Vec3 centre{0, k_top + radius * std::cos(alpha), 0};
  const auto hinge_point = [&](int i) {
    const Real a = -alpha + 2 * alpha * Real(i) / k_planks;  // from the left post to the right
    return centre + Vec3{radius * std::sin(a), -radius * std::cos(a), 0};
  };
  for (const int side : {-1, 1}) {
    BodySettings post = dynamic_body(side < 0 ? "post-left" : "post-right",
                                     Box{{Real(0.25), k_top / 2, Real(0.75)}},
                                     {Real(side) * (k_span / 2 + Real(0.25)), k_top / 2, 0});
    post.type = BodyType::static_body;
    scene.bodies.push_back(post);
  }
  for (int i = 0; i < k_planks; ++i) {
    const Vec3 p = hinge_point(i), q = hinge_point(i + 1);
    const std::string name = "plank" + std::to_string(i);
    BodySettings plank =
        with_mass(dynamic_body(name, Box{{k_plank / 2, Real(0.05), Real(0.75)}}, (p + q) / 2), 15);
    plank.orientation = Quat::from_axis_angle({0, 0, 1}, std::atan2(q.y - p.y, q.x - p.x));
    scene.bodies.push_back(plank);
    SceneJoint h = joint("hinge" + std::to_string(i), JointType::hinge, name,
                         i == 0 ? "post-left" : "plank" + std::to_string(i - 1));
    h.settings.anchor = p;
    h.settings.axis = {0, 0, 1};
    scene.joints.push_back(h);
  }
  SceneJoint last = joint("hinge" + std::to_string(k_planks), JointType::hinge,
                          "plank" + std::to_string(k_planks - 1), "post-right");
  last.settings.anchor = hinge_point(k_planks);
  last.settings.axis = {0, 0, 1};
  scene.joints.push_back(last);
  int n = 0;
  for (const Real x : {Real(-2), Real(0), Real(2.5)}) {
    scene.bodies.push_back(
        with_mass(dynamic_body("load" + std::to_string(n++), Box{Vec3::splat(Real(0.25))},
                               {x, k_top + Real(1.25), 0}),
                  20));
  }
  return scene;
}

// One ragdoll of 11 bodies (80 kg), described standing with the pelvis at the origin, arms out,
// then placed by `pose`. Cone-twist joints at the spine, neck, shoulders and hips (twist axis
// along the child limb); limited hinges at the elbows (flex forward, 0 to 2.5 rad) and knees
// (flex backward, 0 to 2.4 rad).
void add_ragdoll(Scene& scene, const std::string& prefix, const Transform& pose) {
  const auto part = [&](const std::string& name, ShapeGeometry shape, const Vec3& at,
                        const Quat& turn, Real mass) {
    BodySettings body =
        with_mass(dynamic_body(prefix + name, std::move(shape), apply(pose, at)), mass);
    body.orientation = pose.orientation * turn;
    scene.bodies.push_back(body);
  };
  const auto cone = [&](const std::string& name, const std::string& a, const std::string& b,
                        const Vec3& at, const Vec3& axis, Real swing, Real twist) {
    SceneJoint j = joint(prefix + name, JointType::cone_twist, prefix + a, prefix + b);
    j.settings.anchor = apply(pose, at);
    j.settings.axis = rotate(pose.orientation, axis);
    j.settings.swing_limit = swing;
    j.settings.twist_limits = {-twist, twist};
    scene.joints.push_back(j);
  };
  const auto hinge = [&](const std::string& name, const std::string& a, const std::string& b,
                         const Vec3& at, const Vec3& axis, Real flex) {
    SceneJoint j = joint(prefix + name, JointType::hinge, prefix + a, prefix + b);
    j.settings.anchor = apply(pose, at);
    j.settings.axis = rotate(pose.orientation, axis);
    j.settings.limits = Range{0, flex};
    scene.joints.push_back(j);
  };
  const Quat upright{}, along_x = Quat::from_axis_angle({0, 0, 1}, k_pi / 2);
  part("pelvis", Box{{Real(0.15), Real(0.1), Real(0.1)}}, {}, upright, 12);
  part("torso", Box{{Real(0.18), Real(0.25), Real(0.11)}}, {0, Real(0.37), 0}, upright, 25);
  part("head", Sphere{Real(0.1)}, {0, Real(0.74), 0}, upright, 5);
  cone("spine", "pelvis", "torso", {0, Real(0.11), 0}, {0, 1, 0}, Real(0.3), Real(0.2));
  cone("neck", "torso", "head", {0, Real(0.63), 0}, {0, 1, 0}, Real(0.5), Real(0.6));
  for (const int side : {-1, 1}) {
    const std::string s = side < 0 ? "left-" : "right-";
    const Real x = Real(side);
    part(s + "upper-arm", Capsule{Real(0.05), Real(0.1)}, {x * Real(0.36), Real(0.52), 0}, along_x,
         3);
    part(s + "lower-arm", Capsule{Real(0.045), Real(0.1)}, {x * Real(0.675), Real(0.52), 0},
         along_x, 2);
    part(s + "upper-leg", Capsule{Real(0.07), Real(0.15)}, {x * Real(0.09), Real(-0.34), 0},
         upright, 9);
    part(s + "lower-leg", Capsule{Real(0.06), Real(0.15)}, {x * Real(0.09), Real(-0.79), 0},
         upright, 5);
    cone(s + "shoulder", "torso", s + "upper-arm", {x * Real(0.2), Real(0.52), 0}, {x, 0, 0},
         Real(1.2), Real(0.5));
    cone(s + "hip", "pelvis", s + "upper-leg", {x * Real(0.09), Real(-0.11), 0}, {0, -1, 0},
         Real(0.8), Real(0.3));
    // About -y on the right (+x) arm and +y on the left, the forearm swings toward +z.
    hinge(s + "elbow", s + "upper-arm", s + "lower-arm", {x * Real(0.515), Real(0.52), 0},
          {0, -x, 0}, Real(2.5));
    hinge(s + "knee", s + "upper-leg", s + "lower-leg", {x * Real(0.09), Real(-0.565), 0},
          {1, 0, 0}, Real(2.4));
  }
}

// 10 ragdolls lying face down, 0.6 m apart in height and each turned 36 degrees about y from the
// one below, dropped onto a pyramid of 30 boxes (0.6 m, 20 kg) on the ground.
Scene ragdolls() {
  Scene scene;
  scene.name = "ragdolls";
  scene.bodies.push_back(ground());
  constexpr Real k_box = Real(0.6);
  int n = 0;
  for (int layer = 0; layer < 4; ++layer) {
    const int side = 4 - layer;
    for (int i = 0; i < side; ++i) {
      for (int k = 0; k < side; ++k) {
        const Vec3 at{(Real(i) - Real(side - 1) / 2) * k_box, (Real(layer) + Real(0.5)) * k_box,
                      (Real(k) - Real(side - 1) / 2) * k_box};
        scene.bodies.push_back(with_mass(
            dynamic_body("box" + std::to_string(n++), Box{Vec3::splat(k_box / 2)}, at), 20));
      }
    }
  }
  const Quat face_down = Quat::from_axis_angle({1, 0, 0}, -k_pi / 2);
  for (int r = 0; r < 10; ++r) {
    const Quat turn = Quat::from_axis_angle({0, 1, 0}, Real(r) * k_pi / 5);
    const Transform pose{{0, Real(3.5) + Real(0.6) * Real(r), 0}, turn * face_down};
    add_ragdoll(scene, "ragdoll" + std::to_string(r) + "-", pose);
  }
  return scene;
}

// Issue 9's soak: 500 dynamic bodies kept busy. 20 ragdolls (220 bodies, 200 joints) and 279
// boxes, spheres, capsules and hulls fall into a walled 10 m square bin, where a paddle on a
// motorised hinge (0.5 rad/s, at most 10,000 N m, so it stalls rather than crush what jams against
// a wall; at 40,000 N m it squeezed 5 kg pieces between others at 12 kN until one popped out like
// a melon seed at 12 m/s) stirs them for as long as it runs: contacts are made and broken, islands
// merge and split, and joints are thrown about every step.
Scene soak() {
  Scene scene;
  scene.name = "soak";
  scene.bodies.push_back(ground());
  constexpr Real k_half = 5;
  for (int wall = 0; wall < 4; ++wall) {
    const bool along_x = wall < 2;
    const Real side = wall % 2 == 0 ? -1 : 1;
    BodySettings w =
        dynamic_body("wall" + std::to_string(wall),
                     Box{along_x ? Vec3{k_half + 1, 3, Real(0.5)} : Vec3{Real(0.5), 3, k_half + 1}},
                     along_x ? Vec3{0, 3, side * (k_half + Real(0.5))}
                             : Vec3{side * (k_half + Real(0.5)), 3, 0});
    w.type = BodyType::static_body;
    scene.bodies.push_back(w);
  }
  scene.bodies.push_back(with_mass(
      dynamic_body("paddle", Box{{k_half - 1, Real(0.4), Real(0.15)}}, {0, Real(0.45), 0}), 200));
  SceneJoint stirrer = joint("stirrer", JointType::hinge, "paddle");
  stirrer.settings.anchor = {0, Real(0.45), 0};
  stirrer.settings.axis = {0, 1, 0};
  stirrer.settings.motor = Motor{Real(0.5), 10000};
  scene.joints.push_back(stirrer);

  const ConvexHull rock{{{Real(0.3), 0, 0},
                         {Real(-0.2), Real(0.25), 0},
                         {Real(-0.2), Real(-0.2), Real(0.2)},
                         {0, 0, Real(-0.3)},
                         {0, Real(0.3), Real(0.2)}}};
  const ShapeGeometry shapes[] = {Box{Vec3::splat(Real(0.25))}, Sphere{Real(0.25)},
                                  Capsule{Real(0.15), Real(0.2)}, rock};
  for (int n = 0; n < 279; ++n) {
    const int layer = n / 49, cell = n % 49;
    const Vec3 at{Real(cell % 7 - 3) * Real(1.2), Real(2 + layer), Real(cell / 7 - 3) * Real(1.2)};
    scene.bodies.push_back(
        with_mass(dynamic_body("piece" + std::to_string(n), shapes[std::size_t(n % 4)], at), 5));
  }
  const Quat face_down = Quat::from_axis_angle({1, 0, 0}, -k_pi / 2);
  for (int r = 0; r < 20; ++r) {
    const Quat turn = Quat::from_axis_angle({0, 1, 0}, Real(r) * k_pi / 5);
    const Vec3 at{Real(r % 2 == 0 ? -2 : 2), Real(9) + Real(0.6) * Real(r), 0};
    add_ragdoll(scene, "ragdoll" + std::to_string(r) + "-", {at, turn * face_down});
  }
  return scene;
}

// A 3 m arm (20 kg) on a hinge 1.2 m up a post, 2.5 m of it behind the pivot with a stop at the
// end holding a 5 kg box. The motor drives it at 6 rad/s with up to 1500 N m (gravity's torque on
// arm and box is about 310 N m); the limit stops the arm 45 degrees up and the box flies on at
// about 14 m/s, 45 degrees up.
Scene catapult() {
  Scene scene;
  scene.name = "catapult";
  scene.settings.sleeping = false;
  scene.bodies.push_back(ground());
  BodySettings post =
      dynamic_body("post", Box{{Real(0.2), Real(0.55), Real(0.4)}}, {0, Real(0.55), 0});
  post.type = BodyType::static_body;
  scene.bodies.push_back(post);
  const Vec3 pivot{0, Real(1.2), 0};
  BodySettings arm;
  arm.name = "arm";
  arm.position = pivot;
  arm.shapes = {
      ShapeSettings{Box{{Real(1.5), Real(0.05), Real(0.15)}}, {{-1, 0, 0}, {}}},
      ShapeSettings{Box{{Real(0.05), Real(0.1), Real(0.15)}}, {{Real(-2.45), Real(0.15), 0}, {}}}};
  arm.mass = 20;
  scene.bodies.push_back(arm);
  scene.bodies.push_back(with_mass(
      dynamic_body("stone", Box{Vec3::splat(Real(0.15))}, pivot + Vec3{Real(-2.2), Real(0.2), 0}),
      5));
  // About -z the arm's rotation (its short end down, its long end up and over) counts positive.
  SceneJoint h = joint("arm-hinge", JointType::hinge, "post", "arm");
  h.settings.anchor = pivot;
  h.settings.axis = {0, 0, -1};
  h.settings.limits = Range{0, k_pi / 4};
  h.settings.motor = Motor{6, 1500};
  scene.joints.push_back(h);
  return scene;
}

// 50 capsules (0.2 m long, 0.5 kg) joined end to end by ball joints: a 10 m rope nailed at one
// end 12 m up, released horizontal so that it swings down past the nail.
Scene rope() {
  Scene scene;
  scene.name = "rope";
  scene.settings.sleeping = false;
  scene.bodies.push_back(ground());
  constexpr int k_segments = 50;
  constexpr Real k_length = Real(0.2);
  const Vec3 start{0, 12, 0};
  const Quat along_x = Quat::from_axis_angle({0, 0, 1}, k_pi / 2);
  for (int i = 0; i < k_segments; ++i) {
    const std::string name = "segment" + std::to_string(i);
    BodySettings segment =
        with_mass(dynamic_body(name, Capsule{Real(0.02), Real(0.08)},
                               start + Vec3{(Real(i) + Real(0.5)) * k_length, 0, 0}),
                  Real(0.5));
    segment.orientation = along_x;
    scene.bodies.push_back(segment);
    const Vec3 end = start + Vec3{Real(i) * k_length, 0, 0};
    if (i == 0)
      scene.joints.push_back(nail("nail", name, end));
    else
      scene.joints.push_back(
          ball("ball" + std::to_string(i), "segment" + std::to_string(i - 1), name, end));
  }
  return scene;
}

// Seed 000 figure 11: an 11 x 11 net of 1 kg point masses 0.5 m apart, 4 m up, each joined to its
// neighbours by a rope of 5% slack (distance joints with a max length only, so the net can sag
// instead of being held flat and taut), the four corners nailed; a 40 kg sphere of radius 0.8 m
// drops onto its middle from 2 m above.
Scene net() {
  Scene scene;
  scene.name = "net";
  scene.settings.sleeping = false;
  scene.bodies.push_back(ground());
  constexpr int k_side = 11;
  constexpr Real k_pitch = Real(0.5), k_height = 4, k_slack = Real(1.05);
  const auto name = [](int i, int k) {
    return "mass" + std::to_string(i) + "_" + std::to_string(k);
  };
  const auto at = [&](int i, int k) {
    const Real half = Real(k_side - 1) / 2;
    return Vec3{(Real(i) - half) * k_pitch, k_height, (Real(k) - half) * k_pitch};
  };
  for (int i = 0; i < k_side; ++i) {
    for (int k = 0; k < k_side; ++k) {
      BodySettings mass = with_mass(dynamic_body(name(i, k), Sphere{Real(0.05)}, at(i, k)), 1);
      mass.particle = true;
      scene.bodies.push_back(mass);
    }
  }
  const auto link = [&](int i, int k, int i2, int k2) {
    SceneJoint j = joint("rope" + std::to_string(i) + "_" + std::to_string(k) + "-" +
                             std::to_string(i2) + "_" + std::to_string(k2),
                         JointType::distance, name(i, k), name(i2, k2));
    j.settings.anchor_a = at(i, k);
    j.settings.anchor_b = at(i2, k2);
    j.settings.max_distance = k_pitch * k_slack;
    scene.joints.push_back(j);
  };
  for (int i = 0; i < k_side; ++i) {
    for (int k = 0; k < k_side; ++k) {
      if (i + 1 < k_side) link(i, k, i + 1, k);
      if (k + 1 < k_side) link(i, k, i, k + 1);
    }
  }
  for (const int i : {0, k_side - 1}) {
    for (const int k : {0, k_side - 1})
      scene.joints.push_back(
          nail("corner" + std::to_string(i) + "_" + std::to_string(k), name(i, k), at(i, k)));
  }
  scene.bodies.push_back(
      with_mass(dynamic_body("ball", Sphere{Real(0.8)}, {0, k_height + 2, 0}), 40));
  return scene;
}

// Seed 000's 2D point-mass demo: a 12 x 8 sheet of 0.2 kg point masses 0.25 m apart in the plane
// z = 0 (the world keeps every body in it: plane_normal), joined to its neighbours by rigid rods
// and braced by diagonal rods on alternate cells, its top-left corner nailed; released sideways
// so it swings within the plane.
Scene cloth2d() {
  Scene scene;
  scene.name = "cloth2d";
  scene.settings.sleeping = false;
  scene.settings.plane_normal = Vec3::unit_z();
  constexpr int k_columns = 12, k_rows = 8;
  constexpr Real k_pitch = Real(0.25), k_top = 4;
  const auto name = [](int i, int k) {
    return "mass" + std::to_string(i) + "_" + std::to_string(k);
  };
  const auto at = [&](int i, int k) {
    return Vec3{Real(i) * k_pitch, k_top - Real(k) * k_pitch, 0};
  };
  for (int k = 0; k < k_rows; ++k) {
    for (int i = 0; i < k_columns; ++i) {
      BodySettings mass =
          with_mass(dynamic_body(name(i, k), Sphere{Real(0.03)}, at(i, k)), Real(0.2));
      mass.particle = true;
      mass.linear_velocity = {Real(1.5), 0, 0};
      scene.bodies.push_back(mass);
    }
  }
  const auto rod = [&](int i, int k, int i2, int k2) {
    SceneJoint j = joint("rod" + std::to_string(i) + "_" + std::to_string(k) + "-" +
                             std::to_string(i2) + "_" + std::to_string(k2),
                         JointType::distance, name(i, k), name(i2, k2));
    j.settings.anchor_a = at(i, k);
    j.settings.anchor_b = at(i2, k2);
    scene.joints.push_back(j);
  };
  for (int k = 0; k < k_rows; ++k) {
    for (int i = 0; i < k_columns; ++i) {
      if (i + 1 < k_columns) rod(i, k, i + 1, k);
      if (k + 1 < k_rows) rod(i, k, i, k + 1);
      if (i + 1 < k_columns && k + 1 < k_rows && (i + k) % 2 == 0) rod(i, k, i + 1, k + 1);
    }
  }
  // One corner: with both, the taut top row and the braced sheet below it hold the sheet still.
  scene.joints.push_back(nail("corner0", name(0, 0), at(0, 0)));
  return scene;
}

// Newton's cradle: five 1 kg balls of radius 0.1 m (restitution 1, friction 0) touching in a row,
// each hung 1 m below a pair of world points 0.5 m either side in z by two rigid distance joints:
// the V keeps each in the xy plane. The first is pulled out 30 degrees: it strikes at
// sqrt(2 g (1 - cos 30)) = 1.62 m/s.
Scene cradle() {
  Scene scene;
  scene.name = "cradle";
  scene.settings.sleeping = false;
  constexpr int k_balls = 5;
  constexpr Real k_radius = Real(0.1), k_drop = 1, k_top = 2;
  const Real pull = Real(30) * k_pi / 180;
  for (int i = 0; i < k_balls; ++i) {
    const Real x = 2 * k_radius * Real(i);
    const Vec3 at = i == 0 ? Vec3{x - k_drop * std::sin(pull), k_top - k_drop * std::cos(pull), 0}
                           : Vec3{x, k_top - k_drop, 0};
    const std::string name = "ball" + std::to_string(i);
    BodySettings ball = with_mass(dynamic_body(name, Sphere{k_radius}, at), 1);
    ball.restitution = 1;
    ball.friction = 0;
    scene.bodies.push_back(ball);
    for (const Real z : {Real(-0.5), Real(0.5)}) {
      SceneJoint string = joint(name + (z < 0 ? "-back" : "-front"), JointType::distance, name);
      string.settings.anchor_a = at;
      string.settings.anchor_b = {x, k_top, z};
      scene.joints.push_back(string);
    }
  }
  return scene;
}

// Seed 000 figure 8: two 10 kg boxes (0.5 m) nailed at their centres 2 m apart and tied face to
// face by a zero-length joint between points 1.5 m apart that their nails keep out of reach. A
// ball joint cannot be posed this way (its anchor is one world point, met at creation), so the tie
// is a distance joint with max length 0: the ball joint's "these points together" as one row.
Scene impossible() {
  Scene scene;
  scene.name = "impossible";
  scene.settings.sleeping = false;
  for (const int side : {-1, 1}) {
    const std::string name = side < 0 ? "left" : "right";
    const Vec3 at{Real(side), 3, 0};
    scene.bodies.push_back(with_mass(dynamic_body(name, Box{Vec3::splat(Real(0.25))}, at), 10));
    scene.joints.push_back(nail(name + "-nail", name, at));
  }
  SceneJoint tie = joint("tie", JointType::distance, "left", "right");
  tie.settings.anchor_a = {Real(-0.75), 3, 0};
  tie.settings.anchor_b = {Real(0.75), 3, 0};
  tie.settings.max_distance = 0;
  scene.joints.push_back(tie);
  return scene;
}

}  // namespace

Scene heavy_chain(int links, Real weight_ratio, Real release_degrees) {
  Scene scene;
  scene.name = "heavy_chain";
  scene.settings.sleeping = false;
  constexpr Real k_link = Real(0.5);
  const Real a = release_degrees * k_pi / 180;
  const Vec3 along{std::cos(a), std::sin(a), 0}, top{0, 20, 0};
  for (int i = 0; i <= links; ++i) {
    const bool weight = i == links;
    const std::string name = weight ? "weight" : "link" + std::to_string(i);
    const Real reach = weight ? Real(links) * k_link + Real(0.5) : (Real(i) + Real(0.5)) * k_link;
    scene.bodies.push_back(
        with_mass(dynamic_body(name, Sphere{weight ? Real(0.5) : Real(0.1)}, top + along * reach),
                  weight ? weight_ratio : 1));
    const Vec3 end = top + along * (Real(i) * k_link);
    if (i == 0)
      scene.joints.push_back(nail("nail", name, end));
    else
      scene.joints.push_back(
          ball("ball" + std::to_string(i), scene.bodies[std::size_t(i) - 1].name, name, end));
  }
  return scene;
}

std::vector<BuiltinScene> joint_scenes() {
  return {{"pendulum", pendulum},
          {"chain100", chain100},
          {"bridge", bridge},
          {"ragdolls", ragdolls},
          {"catapult", catapult},
          {"rope", rope},
          {"net", net},
          {"cloth2d", cloth2d},
          {"cradle", cradle},
          {"impossible", impossible},
          {"soak", soak},
          // Ten links under 100 times their weight released 15 degrees up: the hardest swing of
          // GeometricStiffness's tests.
          {"heavy_chain", [] { return heavy_chain(10, 100, 15); }}};
}

}  // namespace impulse::builtin
