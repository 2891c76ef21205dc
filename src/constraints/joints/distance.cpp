// Distance joint (seed 000 eq. 36-41, seed 001 eq. 8-11): the anchors stay L apart.
//   C = |p_b - p_a| - L, n = (p_b - p_a) / |p_b - p_a|
//   dC/dt = n . (v_b + w_b x r_b - v_a - w_a x r_a)
//   J = [-n, -(r_a x n), n, r_b x n]
// A rod holds L exactly; with min and max it is a rope (max only) or a range; with a spring it
// pulls toward L softly while min and max still hold rigidly.
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_distance_rows(const JointModel& joint, const JointGeometry& g, JointRowSink& rows) {
  const JointSettings& s = joint.settings;
  const Vec3 d = g.p_b - g.p_a;
  const Real length_now = length(d);
  // Coincident anchors have no direction to push along; nothing to hold until they part.
  constexpr Real k_min_length = Real(1e-6);
  if (length_now < k_min_length) return;
  // The axis along d: linear_axis_row's extra term (d x n) vanishes, leaving the J above.
  const JointRow row = linear_axis_row(g, d / length_now);
  const bool ranged = s.min_distance || s.max_distance;
  const Range range{s.min_distance.value_or(-k_infinity), s.max_distance.value_or(k_infinity)};
  if (s.spring) {
    JointRow spring = row;
    spring.error = length_now - joint.rest_length;
    spring.spring = *s.spring;
    rows.add(spring);
    if (ranged) add_range_rows(row, range, 1, rows);
    return;
  }
  add_range_rows(row, ranged ? range : Range{joint.rest_length, joint.rest_length}, 1, rows);
}

}  // namespace impulse
