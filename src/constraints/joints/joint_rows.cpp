// The one place that knows every joint type: the model made at creation, the geometry of a step,
// and the dispatch to each type's rows.
#include "constraints/joints/joint_parts.h"

namespace impulse {

JointModel make_joint_model(const JointSettings& settings, const JointBodyPose& a,
                            const JointBodyPose& b) {
  JointModel joint;
  joint.settings = settings;
  const bool two_anchors = settings.type == JointType::distance;
  const Vec3 anchor_a = two_anchors ? settings.anchor_a : settings.anchor;
  const Vec3 anchor_b = two_anchors ? settings.anchor_b : settings.anchor;
  joint.anchor_a = inverse_rotate(a.orientation, anchor_a - a.center);
  joint.anchor_b = inverse_rotate(b.orientation, anchor_b - b.center);
  Quat frame;  // the joint frame in the world at creation
  switch (settings.type) {
    case JointType::hinge:
    case JointType::prismatic:
    case JointType::cone_twist:
      frame = frame_from_axis(settings.axis);
      break;
    case JointType::six_dof:
      frame = settings.frame;
      break;
    case JointType::distance:
      frame = frame_from_axis(normalize(anchor_b - anchor_a) == Vec3::zero()
                                  ? Vec3::unit_x()
                                  : normalize(anchor_b - anchor_a));
      break;
    case JointType::ball:
    case JointType::nail:
    case JointType::fixed:
      break;
  }
  joint.frame_a = conjugate(a.orientation) * frame;
  joint.frame_b = conjugate(b.orientation) * frame;
  joint.rest_length = distance(anchor_a, anchor_b);
  return joint;
}

void write_joint_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  switch (joint.settings.type) {
    case JointType::ball:
      return write_ball_rows(joint, g, rows);
    case JointType::nail:
      return write_nail_rows(joint, g, rows);
    case JointType::distance:
      return write_distance_rows(joint, g, rows);
    case JointType::fixed:
      return write_fixed_rows(joint, g, rows);
    case JointType::hinge:
      return write_hinge_rows(joint, g, rows);
    case JointType::prismatic:
      return write_prismatic_rows(joint, g, rows);
    case JointType::cone_twist:
      return write_cone_twist_rows(joint, g, rows);
    case JointType::six_dof:
      return write_six_dof_rows(joint, g, rows);
  }
}

}  // namespace impulse
