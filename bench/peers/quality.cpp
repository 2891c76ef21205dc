// The separating-axis overlap of two boxes, the counts of moved bodies and the joints' errors.

#include "quality.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <set>
#include <utility>

namespace peers {
namespace {

struct OrientedBox {
  V3 center;
  std::array<V3, 3> axes;
  V3 half;
};

OrientedBox oriented(const Body& box, const Pose& pose) {
  const Q4& q = pose.orientation;
  return {pose.position,
          {rotate(q, {1, 0, 0}), rotate(q, {0, 1, 0}), rotate(q, {0, 0, 1})},
          box.shape.half_extents};
}

double radius_along(const OrientedBox& b, const V3& axis) {
  return std::abs(dot(b.axes[0], axis)) * b.half.x + std::abs(dot(b.axes[1], axis)) * b.half.y +
         std::abs(dot(b.axes[2], axis)) * b.half.z;
}

// The smallest overlap along the 15 candidate axes (3 + 3 face normals, 9 edge crossings);
// negative when some axis separates the boxes.
double overlap(const OrientedBox& a, const OrientedBox& b) {
  const V3 d = b.center - a.center;
  double least = INFINITY;
  const auto test = [&](const V3& axis) {
    least = std::min(least, radius_along(a, axis) + radius_along(b, axis) - std::abs(dot(d, axis)));
  };
  for (const V3& axis : a.axes)
    test(axis);
  for (const V3& axis : b.axes)
    test(axis);
  for (const V3& ea : a.axes)
    for (const V3& eb : b.axes) {
      const V3 c = cross(ea, eb);
      const double len = length(c);
      if (len > 1e-6) test(c * (1 / len));  // parallel edges add nothing the faces miss
    }
  return least;
}

// Half the shape's height along its body's y axis.
double half_height(const Shape& shape) {
  switch (shape.kind) {
    case ShapeKind::box:
      return shape.half_extents.y;
    case ShapeKind::sphere:
      return shape.radius;
    case ShapeKind::capsule:
      return shape.half_height + shape.radius;
  }
  return 0;
}

}  // namespace

double max_penetration(const Scene& scene, const std::vector<Pose>& poses) {
  std::set<std::pair<int, int>> jointed;
  for (const Joint& j : scene.joints)
    if (j.body_b >= 0) jointed.insert(std::minmax(j.body_a, j.body_b));
  std::vector<std::pair<int, OrientedBox>> boxes;
  for (int i = 0; i < int(scene.bodies.size()); ++i) {
    const auto k = std::size_t(i);
    if (scene.bodies[k].is_box()) boxes.emplace_back(i, oriented(scene.bodies[k], poses[k]));
  }
  double deepest = 0;
  for (std::size_t m = 0; m < boxes.size(); ++m)
    for (std::size_t n = m + 1; n < boxes.size(); ++n) {
      const auto& [i, a] = boxes[m];
      const auto& [j, b] = boxes[n];
      const double reach = length(a.half) + length(b.half);
      const V3 d = b.center - a.center;
      if (dot(d, d) > reach * reach || jointed.contains({i, j})) continue;
      deepest = std::max(deepest, overlap(a, b));
    }
  return deepest;
}

Moved moved_bodies(const Scene& scene, const std::vector<Pose>& start,
                   const std::vector<Pose>& end) {
  Moved count;
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    if (scene.bodies[i].is_static()) continue;
    const V3 d = end[i].position - start[i].position;
    const bool slid = std::hypot(d.x, d.z) > 0.01;
    const bool fell = -d.y > half_height(scene.bodies[i].shape);
    count.moved += slid || fell;
    count.fell += fell;
  }
  return count;
}

double max_joint_error(const Scene& scene, const std::vector<Pose>& start,
                       const std::vector<Pose>& end) {
  double worst = 0;
  for (const Joint& j : scene.joints) {
    const V3 on_a =
        to_world(end[std::size_t(j.body_a)], to_local(start[std::size_t(j.body_a)], j.anchor));
    const V3 on_b = j.body_b < 0 ? j.anchor
                                 : to_world(end[std::size_t(j.body_b)],
                                            to_local(start[std::size_t(j.body_b)], j.anchor));
    worst = std::max(worst, length(on_a - on_b));
  }
  return worst;
}

namespace {

// The angle between two unit vectors, rad.
double angle_between(const V3& u, const V3& v) {
  return std::atan2(length(cross(u, v)), dot(u, v));
}

// How far x lies outside [lo, hi].
double outside(double x, double lo, double hi) {
  return std::max({lo - x, x - hi, 0.0});
}

}  // namespace

double max_angle_error(const Scene& scene, const std::vector<Pose>& start,
                       const std::vector<Pose>& end) {
  double worst = 0;
  for (const Joint& j : scene.joints) {
    if (j.kind == JointKind::ball || j.body_b < 0) continue;
    const Q4 qa0 = start[std::size_t(j.body_a)].orientation,
             qa = end[std::size_t(j.body_a)].orientation;
    const Q4 qb0 = start[std::size_t(j.body_b)].orientation,
             qb = end[std::size_t(j.body_b)].orientation;
    // b's turn relative to a since the start, in a's frame, and the joint's axis there.
    const Q4 turn = conjugate(qa) * qb * conjugate(qb0) * qa0;
    const V3 axis = inverse_rotate(qa0, j.axis);
    const V3 turned_axis = rotate(turn, axis);
    // Its twist about the axis (the swing-twist split), in (-pi, pi].
    double twist = 2 * std::atan2(dot({turn.x, turn.y, turn.z}, axis), turn.w);
    if (twist > std::numbers::pi) twist -= 2 * std::numbers::pi;
    if (twist <= -std::numbers::pi) twist += 2 * std::numbers::pi;
    const double swing = angle_between(axis, turned_axis);
    if (j.kind == JointKind::hinge)
      worst = std::max({worst, swing, outside(twist, j.lo, j.hi)});
    else
      worst = std::max({worst, outside(swing, 0, j.swing), outside(twist, -j.twist, j.twist)});
  }
  return worst;
}

}  // namespace peers
