#include "collision/polyhedron.h"

#include <algorithm>

#include "collision/shape_bounds.h"

namespace impulse {

std::uint32_t PolyhedronView::support_index(const Vec3& direction) const {
  std::uint32_t best = 0;
  Real best_dot = dot(vertices[0], direction);
  for (std::uint32_t i = 1; i < vertices.size(); ++i) {
    const Real d = dot(vertices[i], direction);
    if (d > best_dot) {
      best_dot = d;
      best = i;
    }
  }
  return best;
}

bool is_thin(const PolyhedronView& p) {
  const AABB box = bounds(p, Transform{});
  Real least = k_infinity;
  for (const PolyFace& face : p.faces)
    least = std::min(least, face.offset - dot(face.normal, p.support(-face.normal)));
  return least < Real(0.2) * length(box.upper - box.lower);
}

std::uint32_t PolyhedronView::face_along(const Vec3& direction) const {
  std::uint32_t best = 0;
  Real best_dot = dot(faces[0].normal, direction);
  for (std::uint32_t f = 1; f < faces.size(); ++f) {
    const Real d = dot(faces[f].normal, direction);
    if (d > best_dot) {
      best_dot = d;
      best = f;
    }
  }
  return best;
}

BoxPolyhedron::BoxPolyhedron(const Box& box) {
  const Vec3& h = box.half_extents;
  const auto bit = [](std::uint32_t vertex, int axis) { return (vertex >> axis) & 1; };
  for (std::uint32_t v = 0; v < 8; ++v) {
    vertices_[v] = {bit(v, 0) ? h.x : -h.x, bit(v, 1) ? h.y : -h.y, bit(v, 2) ? h.z : -h.z};
  }
  for (int k = 0; k < 3; ++k) {
    const int u = (k + 1) % 3;
    const int w = (k + 2) % 3;
    for (int positive = 1; positive >= 0; --positive) {
      const auto f = std::uint32_t(2 * k + 1 - positive);
      PolyFace& face = faces_[f];
      face.normal = Vec3::zero();
      face.normal[k] = positive ? Real(1) : Real(-1);
      face.offset = h[k];
      face.first = 4 * f;
      face.count = 4;
      // Counter-clockwise about +k the corners go (+u -w), (+u +w), (-u +w), (-u -w), since
      // (u, w, k) is right-handed; about -k the other way round.
      constexpr int k_loop[4][2] = {{1, 0}, {1, 1}, {0, 1}, {0, 0}};
      for (int c = 0; c < 4; ++c) {
        const int* corner = k_loop[positive ? c : 3 - c];
        face_vertices_[face.first + std::uint32_t(c)] =
            std::uint32_t(positive << k | corner[0] << u | corner[1] << w);
      }
    }
    // Edge 4k + b1 + 2 b2 runs along +k. The face of axis u (sign b1) and the face of axis w
    // (sign b2) meet at it; it runs counter-clockwise around the u face when b1 == b2.
    for (std::uint32_t b1 = 0; b1 < 2; ++b1) {
      for (std::uint32_t b2 = 0; b2 < 2; ++b2) {
        PolyEdge& edge = edges_[4 * std::uint32_t(k) + b1 + 2 * b2];
        const std::uint32_t v0 = b1 << u | b2 << w;
        edge.vertices = {v0, v0 | 1u << k};
        const std::uint32_t face_u = 2 * std::uint32_t(u) + 1 - b1;
        const std::uint32_t face_w = 2 * std::uint32_t(w) + 1 - b2;
        edge.faces = b1 == b2 ? std::array{face_u, face_w} : std::array{face_w, face_u};
      }
    }
  }
}

PolyhedronView BoxPolyhedron::view() const {
  PolyhedronView view{vertices_, faces_, face_vertices_, edges_, Vec3::zero()};
  const Vec3& h = vertices_[7];  // the half extents (vertex 7 has every sign bit)
  view.thin = std::min({h.x, h.y, h.z}) < Real(0.2) * length(h);  // is_thin's answer
  return view;
}

TrianglePolyhedron::TrianglePolyhedron(const Vec3& a, const Vec3& b, const Vec3& c)
    : vertices_{a, b, c}, face_vertices_{0, 1, 2, 0, 2, 1} {
  const Vec3 n = normalize(cross(b - a, c - a));
  // The back face is exactly the negated front, so that the edge pruning sees a flat edge.
  faces_[0] = {n, dot(n, a), 0, 3};
  faces_[1] = {-n, -faces_[0].offset, 3, 3};
  for (std::uint32_t i = 0; i < 3; ++i) {
    edges_[i] = {{i, (i + 1) % 3}, {0, 1}};
  }
}

PolyhedronView TrianglePolyhedron::view() const {
  return {vertices_, faces_, face_vertices_, edges_,
          (vertices_[0] + vertices_[1] + vertices_[2]) / Real(3)};
}

}  // namespace impulse
