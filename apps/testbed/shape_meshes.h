#pragma once
// Triangle meshes of the engine's shapes, in the shape's own frame, for drawing.

#include <impulse/shape.h>

#include <array>
#include <cstdint>
#include <vector>

namespace impulse::testbed {

struct MeshVertex {
  std::array<float, 3> position;
  std::array<float, 3> normal;
};

struct TriangleMesh {
  std::vector<MeshVertex> vertices;
  std::vector<std::uint32_t> indices;  // three per triangle, counter-clockwise from outside
};

/// The mesh of a shape; a plane becomes a square of plane_half_size (m) about its closest point
/// to the origin, as it has no edges to draw.
TriangleMesh shape_mesh(const ShapeGeometry& geometry, float plane_half_size = 60);

}  // namespace impulse::testbed
