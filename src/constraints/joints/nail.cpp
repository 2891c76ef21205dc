// Nail (seed 000): a point of body a pinned to a world point q. The world is body b, immovable,
// with its anchor at q, so this is the ball joint's C = q - p_a with only a's half of J moving.
#include "constraints/joints/joint_parts.h"

namespace impulse {

void write_nail_rows(const JointModel&, const JointGeometry& g, JointRowSink& rows) {
  add_point_rows(g, 0, rows);
}

}  // namespace impulse
