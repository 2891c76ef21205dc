#pragma once
// A height grid as a triangle mesh: the terrain and floors that tests and benchmarks collide with.

#include <impulse/shape.h>

#include <cstdint>

namespace impulse {

/// cells_x by cells_z square cells of side cell (m) centred on the origin in the x-z plane, each
/// split into two triangles facing +y, with vertex heights height(x, z) (m).
template <class HeightFn>
Mesh grid_mesh(int cells_x, int cells_z, Real cell, HeightFn&& height) {
  Mesh mesh;
  const auto row = std::uint32_t(cells_x + 1);
  for (int j = 0; j <= cells_z; ++j) {
    for (int i = 0; i <= cells_x; ++i) {
      const Real x = (Real(i) - Real(cells_x) / 2) * cell;
      const Real z = (Real(j) - Real(cells_z) / 2) * cell;
      mesh.vertices.push_back({x, height(x, z), z});
    }
  }
  for (std::uint32_t j = 0; j < std::uint32_t(cells_z); ++j) {
    for (std::uint32_t i = 0; i < std::uint32_t(cells_x); ++i) {
      const std::uint32_t v00 = j * row + i, v10 = v00 + 1, v01 = v00 + row, v11 = v01 + 1;
      // Counter-clockwise seen from +y: (x, z), (x, z + 1), (x + 1, z + 1) and so on.
      mesh.triangles.push_back({v00, v01, v11});
      mesh.triangles.push_back({v00, v11, v10});
    }
  }
  return mesh;
}

}  // namespace impulse
