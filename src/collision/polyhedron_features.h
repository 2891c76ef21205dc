#pragma once
// Small helpers the polyhedron pair routines share: corners of a face, whether a point lies over
// a face, the edge between two vertices, and feature ids.

#include <cstdint>

#include "collision/polyhedron.h"

namespace impulse {

/// The vertex index of corner i of a face (counter-clockwise seen from outside, i < count).
inline std::uint32_t face_corner(const PolyhedronView& p, const PolyFace& face, std::uint32_t i) {
  return p.face_vertices[face.first + i];
}

/// Whether point x (in p's frame) lies over face f: its foot on the face's plane inside the
/// polygon (on a side counts as inside; a NaN as outside).
inline bool over_face(const PolyhedronView& p, const PolyFace& f, const Vec3& x) {
  for (std::uint32_t i = 0; i < f.count; ++i) {
    const Vec3& u = p.vertices[face_corner(p, f, i)];
    const Vec3& w = p.vertices[face_corner(p, f, (i + 1) % f.count)];
    if (!(dot(cross(w - u, f.normal), x - u) <= 0)) return false;
  }
  return true;
}

/// The edge joining vertices u and w, either way round. A linear search: it runs only for the
/// few points a manifold reports, never inside the separating axis loops.
inline std::uint32_t find_edge(const PolyhedronView& p, std::uint32_t u, std::uint32_t w) {
  for (std::uint32_t e = 0; e < p.edges.size(); ++e) {
    const auto& v = p.edges[e].vertices;
    if ((v[0] == u && v[1] == w) || (v[0] == w && v[1] == u)) return e;
  }
  return 0;  // u, w always come from one face's outline, whose sides are all edges
}

inline FeatureId make_id(FeatureType type_a, std::uint32_t index_a, FeatureType type_b,
                         std::uint32_t index_b) {
  return {std::uint8_t(type_a), index_a, std::uint8_t(type_b), index_b};
}

}  // namespace impulse
