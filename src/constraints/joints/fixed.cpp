// Fixed joint (weld; seed 002's position and rotation constraints): the anchors coincide and b's
// frame stays at a's.
//   C_pos = p_b - p_a                                  (3 rows, as the ball joint)
//   C_rot = 2 vec(q_b q_a^-1) ~ the rotation vector     (3 rows), dC_rot/dt ~ w_b - w_a
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_fixed_rows(const JointModel&, const JointGeometry& g, JointRowSink& rows) {
  add_point_rows(g, 0, rows);
  add_rotation_lock_rows(g, 3, rows);
}

}  // namespace impulse
