#pragma once
// The convex hull of a point cloud (3D Quickhull) as a polyhedron with polygon faces.

#include <impulse/math.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

/// One planar face of a hull: a convex polygon.
struct HullFace {
  std::vector<std::uint32_t> vertices;  // indices into HullData::vertices, CCW seen from outside
  Vec3 normal;                          // unit, outward
  Real offset = 0;                      // dot(normal, x) == offset on the face
};

struct HullData {
  std::vector<Vec3> vertices;  // only the hull's corners, each one of the input points
  std::vector<HullFace> faces;
  std::vector<std::array<std::uint32_t, 2>> edges;  // unique undirected edges of the faces
};

/// The convex hull of points, with coplanar neighbouring triangles merged into one face.
/// Points inside or on the hull are dropped and duplicates are tolerated. The tolerance is about
/// 1.5e-5 of the cloud's half-size: faces within it of one plane merge, and corners within it of
/// the hull of the other points (noise on a flat side, points along an edge) are dropped, so
/// every face is a strictly convex polygon. Throws InvalidArgument for fewer than 4 or more than
/// k_max_hull_points points, a non-finite coordinate, or points that span no volume.
HullData build_convex_hull(std::span<const Vec3> points);

}  // namespace impulse
