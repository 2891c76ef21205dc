#pragma once
// The convex hull of a point cloud (3D Quickhull) as a polyhedron with polygon faces.

#include <impulse/math.h>

#include <cstdint>
#include <span>
#include <vector>

#include "collision/polyhedron.h"

namespace impulse {

/// A hull in the flat layout of PolyhedronView, which the narrowphase reads through view().
struct HullData {
  std::vector<Vec3> vertices;  // only the hull's corners, each one of the input points
  std::vector<PolyFace> faces;
  std::vector<std::uint32_t> face_vertices;  // each face's corners, CCW seen from outside
  std::vector<PolyEdge> edges;  // unique, sorted by their vertex pair (smaller index first)
  Vec3 interior;                // its corners' mean (PolyhedronView::interior)

  bool thin = false;  // is_thin (PolyhedronView::thin)

  PolyhedronView view() const {
    PolyhedronView view{vertices, faces, face_vertices, edges, interior};
    view.thin = thin;
    return view;
  }
};

/// The convex hull of points, with coplanar neighbouring triangles merged into one face.
/// Points inside or on the hull are dropped and duplicates are tolerated. The tolerance is about
/// 1.5e-5 of the cloud's half-size: faces within it of one plane merge, and corners within it of
/// the hull of the other points (noise on a flat side, points along an edge) are dropped, so
/// every face is a strictly convex polygon. Throws InvalidArgument for fewer than 4 or more than
/// k_max_hull_points points, a non-finite coordinate, or points that span no volume.
HullData build_convex_hull(std::span<const Vec3> points);

}  // namespace impulse
