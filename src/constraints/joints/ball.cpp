// Ball joint (seed 000 eq. 31-35): the anchor of a and the anchor of b coincide.
//   C = p_b - p_a = (x_b + r_b) - (x_a + r_a)           (3 rows)
//   dC/dt = v_b + w_b x r_b - v_a - w_a x r_a
//   J = [-1, [r_a]x, 1, -[r_b]x] per axis (written along the joint frame's axes)
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_ball_rows(const JointModel&, const JointGeometry& g, JointRowSink& rows) {
  add_point_rows(g, 0, rows);
}

}  // namespace impulse
