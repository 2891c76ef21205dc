// Seed 000's single-axis locks, as six_dof joints to the world.
#include "constraints/joints/joint_parts.h"

namespace impulse {
namespace {

JointSettings single_axis_lock(BodyId body, const Vec3& anchor, const Vec3& axis) {
  JointSettings s;
  s.type = JointType::six_dof;
  s.body_b = body;  // the world is body_a: the frame, and so the locked axis, stays in the world
  s.anchor = anchor;
  s.frame = frame_from_axis(normalize(axis));
  s.linear.fill({AxisMotion::Mode::free, {}, {}});
  s.angular.fill({AxisMotion::Mode::free, {}, {}});
  return s;
}

}  // namespace

JointSettings lock_translation(BodyId body, const Vec3& anchor, const Vec3& axis) {
  JointSettings s = single_axis_lock(body, anchor, axis);
  s.linear[0].mode = AxisMotion::Mode::fixed;
  return s;
}

JointSettings lock_rotation(BodyId body, const Vec3& anchor, const Vec3& axis) {
  JointSettings s = single_axis_lock(body, anchor, axis);
  s.angular[0].mode = AxisMotion::Mode::fixed;
  return s;
}

}  // namespace impulse
