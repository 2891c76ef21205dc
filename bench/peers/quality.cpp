// The separating-axis overlap of two boxes, the counts of moved bodies and the joint error.

#include "quality.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

namespace peers {
namespace {

struct OrientedBox {
  V3 center;
  std::array<V3, 3> axes;
  V3 half;
};

OrientedBox oriented(const BoxBody& box, const Pose& pose) {
  const Q4& q = pose.orientation;
  return {pose.position,
          {rotate(q, {1, 0, 0}), rotate(q, {0, 1, 0}), rotate(q, {0, 0, 1})},
          box.half_extents};
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

}  // namespace

double max_penetration(const Scene& scene, const std::vector<Pose>& poses) {
  std::set<std::pair<int, int>> jointed;
  for (const BallJoint& j : scene.joints)
    if (j.body_b >= 0) jointed.insert(std::minmax(j.body_a, j.body_b));
  std::vector<OrientedBox> boxes;
  for (std::size_t i = 0; i < scene.bodies.size(); ++i)
    boxes.push_back(oriented(scene.bodies[i], poses[i]));
  double deepest = 0;
  for (int i = 0; i < int(boxes.size()); ++i)
    for (int j = i + 1; j < int(boxes.size()); ++j) {
      const double reach = length(boxes[i].half) + length(boxes[j].half);
      const V3 d = boxes[j].center - boxes[i].center;
      if (dot(d, d) > reach * reach || jointed.contains({i, j})) continue;
      deepest = std::max(deepest, overlap(boxes[i], boxes[j]));
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
    const bool fell = -d.y > scene.bodies[i].half_extents.y;
    count.moved += slid || fell;
    count.fell += fell;
  }
  return count;
}

double max_joint_error(const Scene& scene, const std::vector<Pose>& start,
                       const std::vector<Pose>& end) {
  double worst = 0;
  for (const BallJoint& j : scene.joints) {
    const V3 on_a = to_world(end[j.body_a], to_local(start[j.body_a], j.anchor));
    const V3 on_b =
        j.body_b < 0 ? j.anchor : to_world(end[j.body_b], to_local(start[j.body_b], j.anchor));
    worst = std::max(worst, length(on_a - on_b));
  }
  return worst;
}

}  // namespace peers
