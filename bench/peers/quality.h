#pragma once
// Quality figures computed the same way for every engine, from the scene and the bodies' poses
// alone (never from an engine's own contact or joint reports, which each defines differently).

#include "scene.h"

#include <vector>

namespace peers {

/// The deepest overlap (m) of any two boxes that no joint joins: the smallest separating-axis
/// overlap of the pair (exact for boxes), 0 when nothing overlaps. Spheres and capsules are not
/// measured.
double max_penetration(const Scene& scene, const std::vector<Pose>& poses);

/// Dynamic bodies that left their resting place between the two pose sets: moved more than 1 cm
/// horizontally or fell more than half their height. Those that fell are also counted apart, to
/// tell a collapse from a creep.
struct Moved {
  int moved = 0;
  int fell = 0;
};
Moved moved_bodies(const Scene& scene, const std::vector<Pose>& start,
                   const std::vector<Pose>& end);

/// The largest distance (m) between the two world points a joint joins: each body's anchor is
/// fixed in its frame from the start poses and carried by the end poses.
double max_joint_error(const Scene& scene, const std::vector<Pose>& start,
                       const std::vector<Pose>& end);

/// The largest angle (rad) by which a joint between two bodies breaks its angular conditions:
/// a hinge's axis turned off a's (its swing), or its angle past its range; a cone-twist's swing
/// past its cone or its twist past its limits. Angles are b's turn relative to a since the start,
/// split into a swing of the axis and a twist about it (docs/joints.md, "Swing-twist angles").
double max_angle_error(const Scene& scene, const std::vector<Pose>& start,
                       const std::vector<Pose>& end);

}  // namespace peers
