// Issue 8's scenes, exactly, so that other measurements can be compared with these.

#include "scene.h"

#include <impulse/scene.h>

#include <functional>
#include <map>
#include <numbers>
#include <random>
#include <stdexcept>
#include <utility>
#include <variant>

namespace peers {
namespace {

constexpr V3 k_unit_half{0.5, 0.5, 0.5};
constexpr double k_unit_mass = 1;

Shape box(const V3& half_extents) {
  return {ShapeKind::box, half_extents};
}

// A static box 100 x 1 x 100 m whose top is at y = 0.
Body ground() {
  return {box({50, 0.5, 50}), 0, {{0, -0.5, 0}, {}}};
}

Body unit_box(const V3& position, const Q4& orientation = {}) {
  return {box(k_unit_half), k_unit_mass, {position, orientation}};
}

Joint ball(int body_a, int body_b, const V3& anchor) {
  Joint joint;
  joint.body_a = body_a;
  joint.body_b = body_b;
  joint.anchor = anchor;
  return joint;
}

// Rows of base, base - 1, ... 1 boxes at 1.05 m pitch, centred, each row resting on the one
// below.
Scene pyramid(const std::string& name, int base) {
  Scene s{name, {ground()}, {}, true};
  for (int row = 0; row < base; ++row) {
    const int count = base - row;
    for (int i = 0; i < count; ++i)
      s.bodies.push_back(unit_box({(i - (count - 1) / 2.0) * 1.05, 0.5 + row, 0}));
  }
  return s;
}

Scene pyramid20() {
  return pyramid("pyramid20", 20);
}

// Not one of issue 8's scenes: the pyramid scaled to 820 boxes, whose rows do not stay in L2 and
// which sags at 10 iterations in every engine (its contacts change every step).
Scene pyramid40() {
  return pyramid("pyramid40", 40);
}

Scene column(const char* name, int height) {
  Scene s{name, {ground()}, {}, true};
  for (int i = 0; i < height; ++i)
    s.bodies.push_back(unit_box({0, 0.5 + i, 0}));
  return s;
}

Scene stack10() {
  return column("stack10", 10);
}

// Not issue 8's: taller columns, where ten iterations leave the load's path through the column
// unconverged and a turn of its boxes can grow.
Scene stack20() {
  return column("stack20", 20);
}

Scene stack30() {
  return column("stack30", 30);
}

// Seed 000's tower (as src/scene/builtin/stacking.cpp builds it): 20 rings of 35 boxes on a
// circle of 6.2 m, each box's local z outward, each ring turned half a box against the one below.
Scene tower700() {
  Scene s{"tower700", {ground()}, {}, true};
  constexpr int k_rings = 20, k_per_ring = 35;
  constexpr double k_radius = 6.2;
  const double pitch = 2 * std::numbers::pi / k_per_ring;
  for (int ring = 0; ring < k_rings; ++ring) {
    const double offset = ring % 2 ? pitch / 2 : 0;
    for (int i = 0; i < k_per_ring; ++i) {
      const double angle = i * pitch + offset;
      const V3 out{std::sin(angle), 0, std::cos(angle)};  // the box's local z, turned about y
      s.bodies.push_back(
          unit_box(out * k_radius + V3{0, 0.5 + ring, 0}, axis_angle({0, 1, 0}, angle)));
    }
  }
  return s;
}

// Shoemake's uniform random rotation from three uniform numbers in [0, 1). The numbers come
// straight from mt19937's 32-bit output (not std::uniform_real_distribution, whose algorithm the
// standard library chooses), so the orientations are the same with any library.
Q4 uniform_rotation(std::mt19937& rng) {
  const auto unit = [&rng] { return double(rng()) / 4294967296.0; };
  const double u1 = unit(), u2 = 2 * std::numbers::pi * unit(), u3 = 2 * std::numbers::pi * unit();
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return {a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)};
}

// A 10 x 10 x 10 grid at 2 m pitch (no two boxes touch whatever their turn), lowest layer at
// y = 3, dropped onto the ground; the orientations from `seed`.
Scene pile1000(std::uint32_t seed) {
  Scene s{"pile1000", {ground()}, {}, false};
  std::mt19937 rng(seed);
  for (int y = 0; y < 10; ++y)
    for (int z = 0; z < 10; ++z)
      for (int x = 0; x < 10; ++x)
        s.bodies.push_back(
            unit_box({(x - 4.5) * 2, 3.0 + 2 * y, (z - 4.5) * 2}, uniform_rotation(rng)));
  return s;
}

// 100 links of 1 x 0.2 x 0.2 m along +x, ball joints at the link ends, the first link's free end
// pinned to the world; it swings down under gravity. No ground.
Scene chain100() {
  Scene s{"chain100", {}, {}, false};
  constexpr int k_links = 100;
  for (int i = 0; i < k_links; ++i)
    s.bodies.push_back({box({0.5, 0.1, 0.1}), 1, {{i + 0.5, 0, 0}, {}}});
  s.joints.push_back(ball(0, -1, {0, 0, 0}));
  for (int i = 0; i + 1 < k_links; ++i)
    s.joints.push_back(ball(i, i + 1, {i + 1.0, 0, 0}));
  return s;
}

V3 from_impulse(const impulse::Vec3& v) {
  return {v.x, v.y, v.z};
}

Shape shape_of(const impulse::ShapeSettings& shape) {
  if (shape.local != impulse::Transform{})
    throw std::logic_error("ragdolls: a shape off its body's origin");
  if (const auto* b = std::get_if<impulse::Box>(&shape.geometry))
    return box(from_impulse(b->half_extents));
  if (const auto* s = std::get_if<impulse::Sphere>(&shape.geometry))
    return {ShapeKind::sphere, {}, s->radius};
  if (const auto* c = std::get_if<impulse::Capsule>(&shape.geometry))
    return {ShapeKind::capsule, {}, c->radius, c->half_height};
  throw std::logic_error("ragdolls: a shape the benchmark has no counterpart for");
}

// Impulse's built-in `ragdolls` (src/scene/builtin/joints.cpp), one description for every engine:
// 10 ragdolls of 11 bodies (boxes, a sphere, capsules), each with cone-twist joints at the spine,
// neck, shoulders and hips and limited hinges at the elbows and knees, dropped face down onto a
// pyramid of 30 boxes of 0.6 m and 20 kg on the ground.
Scene ragdolls() {
  const impulse::Scene source = *impulse::builtin_scene("ragdolls");
  Scene s{"ragdolls", {}, {}, false};
  std::map<std::string, int> index;
  for (const impulse::BodySettings& body : source.bodies) {
    index[body.name] = int(s.bodies.size());
    const impulse::Quat& q = body.orientation;
    const bool fixed = body.type == impulse::BodyType::static_body;
    s.bodies.push_back({shape_of(body.shapes.at(0)),
                        fixed ? 0.0 : double(body.mass.value()),
                        {from_impulse(body.position), {q.x, q.y, q.z, q.w}}});
  }
  for (const impulse::SceneJoint& joint : source.joints) {
    const impulse::JointSettings& j = joint.settings;
    Joint out = ball(index.at(joint.body_a), joint.body_b.empty() ? -1 : index.at(joint.body_b),
                     from_impulse(j.anchor));
    out.axis = from_impulse(j.axis);
    if (j.type == impulse::JointType::hinge) {
      out.kind = JointKind::hinge;
      out.lo = j.limits.value().lo;
      out.hi = j.limits.value().hi;
    } else if (j.type == impulse::JointType::cone_twist &&
               j.twist_limits.lo == -j.twist_limits.hi) {
      out.kind = JointKind::cone_twist;
      out.swing = j.swing_limit;
      out.twist = j.twist_limits.hi;
    } else {
      throw std::logic_error("ragdolls: a joint the benchmark has no counterpart for");
    }
    s.joints.push_back(out);
  }
  return s;
}

// Each scene's maker, given the seed (which only pile1000 reads), and whether a run without
// --scenes runs it (issue 8's six; the others on request).
struct Entry {
  std::string name;
  std::function<Scene(std::uint32_t)> make;
  bool by_default;
};

const std::vector<Entry>& registry() {
  const auto fixed = [](Scene (*make)()) {
    return std::function<Scene(std::uint32_t)>([make](std::uint32_t) { return make(); });
  };
  static const std::vector<Entry> scenes{
      {"pyramid20", fixed(pyramid20), true},  {"stack10", fixed(stack10), true},
      {"tower700", fixed(tower700), true},    {"pile1000", pile1000, true},
      {"chain100", fixed(chain100), true},    {"ragdolls", fixed(ragdolls), true},
      {"pyramid40", fixed(pyramid40), false}, {"stack20", fixed(stack20), false},
      {"stack30", fixed(stack30), false}};
  return scenes;
}

}  // namespace

Scene nudged(Scene scene, std::uint32_t nudge) {
  if (nudge == 0) return scene;
  std::mt19937 rng(nudge);
  // From the generator's raw output, as uniform_rotation's: the same offsets with any library.
  const auto offset = [&rng] { return (double(rng()) / 4294967296.0 * 2 - 1) * k_nudge_m; };
  for (Body& body : scene.bodies) {
    if (body.is_static()) continue;
    const double x = offset(), y = offset(), z = offset();
    body.pose.position = body.pose.position + V3{x, y, z};
  }
  return scene;
}

std::vector<std::string> scene_names(bool all) {
  std::vector<std::string> names;
  for (const Entry& entry : registry()) {
    if (all || entry.by_default) names.push_back(entry.name);
  }
  return names;
}

Scene make_scene(const std::string& name, std::uint32_t seed) {
  for (const Entry& entry : registry())
    if (entry.name == name) return entry.make(seed);
  throw std::invalid_argument("unknown scene '" + name + "'");
}

}  // namespace peers
