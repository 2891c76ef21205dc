#pragma once
// A column of unit cubes resting on the ground whose contacts are custom rows, one per contact,
// 1D as in seed 000's stacking example: J v = v_upper.y - v_lower.y >= bias, with the bias closing
// a gap within a step (speculative) or feeding back penetration (Baumgarte). Needs no collision
// code; shared by the warm-start test and the convergence plot (bench/convergence).

#include <impulse/world.h>

#include <vector>

namespace impulse::testing {

/// Adds `height` cubes of 1000 kg at 1 m spacing above y = 0 and custom contact rows for a stack
/// of unit cubes; returns the cubes, bottom first. Their shapes are a little smaller than the
/// rows' cubes so that the world's own contacts never join in.
inline std::vector<BodyId> add_row_stack(World& world, int height) {
  std::vector<BodyId> boxes;
  for (int i = 0; i < height; ++i) {
    BodySettings box;
    box.shapes = {ShapeSettings{Box{Vec3::splat(Real(0.45))}, {}}};
    box.mass = 1000;
    box.position = {0, Real(0.5) + Real(i), 0};
    boxes.push_back(world.create_body(box));
  }
  world.add_custom_constraint([boxes](const World& w, Real dt, RowWriter& rows) {
    const Real beta = w.settings().solver.baumgarte;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const Real bottom = w.position(boxes[i]).y - Real(0.5);
      const Real top_below = i == 0 ? Real(0) : w.position(boxes[i - 1]).y + Real(0.5);
      const Real gap = bottom - top_below;
      ConstraintRow row;
      row.body_a = boxes[i];
      if (i > 0) row.body_b = boxes[i - 1];
      row.linear_a = Vec3::unit_y();
      row.linear_b = -Vec3::unit_y();
      row.bias = gap > 0 ? -gap / dt : -beta / dt * gap;
      row.lo = 0;
      rows.add(row);
    }
  });
  return boxes;
}

}  // namespace impulse::testing
