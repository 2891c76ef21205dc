#include "shape_meshes.h"

#include <cmath>
#include <span>

#include "collision/convex_hull.h"

namespace impulse::testbed {
namespace {

constexpr int k_slices = 24;  // around the axis of spheres and capsules
constexpr int k_stacks = 12;  // pole to pole

std::array<float, 3> to_floats(const Vec3& v) {
  return {float(v.x), float(v.y), float(v.z)};
}

// A flat polygon (corners counter-clockwise from outside) as a fan with one normal.
void add_polygon(TriangleMesh& mesh, std::span<const Vec3> corners, const Vec3& normal) {
  const auto first = std::uint32_t(mesh.vertices.size());
  for (const Vec3& c : corners)
    mesh.vertices.push_back({to_floats(c), to_floats(normal)});
  for (std::uint32_t i = 1; i + 1 < corners.size(); ++i)
    mesh.indices.insert(mesh.indices.end(), {first, first + i, first + i + 1});
}

TriangleMesh box_mesh(const Box& box) {
  TriangleMesh mesh;
  const Vec3 h = box.half_extents;
  for (int axis = 0; axis < 3; ++axis) {
    for (const Real sign : {Real(-1), Real(1)}) {
      Vec3 n;
      n[axis] = sign;
      Vec3 u, v;  // u x v = n keeps the corners counter-clockwise from outside
      u[(axis + 1) % 3] = h[(axis + 1) % 3];
      v[(axis + 2) % 3] = h[(axis + 2) % 3] * sign;
      const Vec3 c = n * h[axis];
      const std::array<Vec3, 4> corners{c - u - v, c + u - v, c + u + v, c - u + v};
      add_polygon(mesh, corners, n);
    }
  }
  return mesh;
}

// A sphere of radius r whose upper half is lifted by +offset and lower half by -offset along y:
// a capsule for offset > 0. The equator ring is doubled so that the cylinder between is drawn.
TriangleMesh rounded_mesh(Real radius, Real offset) {
  TriangleMesh mesh;
  const int rings = k_stacks + 2;  // the equator twice
  for (int ring = 0; ring < rings; ++ring) {
    const bool upper = ring <= k_stacks / 2;
    const int stack = upper ? ring : ring - 1;
    const Real theta = k_pi * Real(stack) / Real(k_stacks);  // from the north pole
    for (int s = 0; s <= k_slices; ++s) {
      const Real phi = 2 * k_pi * Real(s) / Real(k_slices);
      const Vec3 n{std::sin(theta) * std::cos(phi), std::cos(theta),
                   -std::sin(theta) * std::sin(phi)};
      const Vec3 p = n * radius + Vec3(0, upper ? offset : -offset, 0);
      mesh.vertices.push_back({to_floats(p), to_floats(n)});
    }
  }
  const auto row = std::uint32_t(k_slices + 1);
  for (std::uint32_t ring = 0; ring + 1 < std::uint32_t(rings); ++ring) {
    for (std::uint32_t s = 0; s < std::uint32_t(k_slices); ++s) {
      const std::uint32_t a = ring * row + s, b = a + row;
      mesh.indices.insert(mesh.indices.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  }
  return mesh;
}

TriangleMesh hull_mesh(const ConvexHull& hull) {
  TriangleMesh mesh;
  const HullData data = build_convex_hull(hull.points);
  std::vector<Vec3> corners;
  for (const PolyFace& face : data.faces) {
    corners.clear();
    for (std::uint32_t i = 0; i < face.count; ++i)
      corners.push_back(data.vertices[data.face_vertices[face.first + i]]);
    add_polygon(mesh, corners, face.normal);
  }
  return mesh;
}

// Flat shaded: each triangle its own three vertices and normal.
TriangleMesh triangle_mesh(const Mesh& source) {
  TriangleMesh mesh;
  for (const auto& t : source.triangles) {
    const std::array<Vec3, 3> corners{source.vertices[t[0]], source.vertices[t[1]],
                                      source.vertices[t[2]]};
    add_polygon(mesh, corners, normalize(cross(corners[1] - corners[0], corners[2] - corners[0])));
  }
  return mesh;
}

TriangleMesh plane_mesh(const Plane& plane, float half_size) {
  TriangleMesh mesh;
  const Vec3 n = normalize(plane.normal);
  Vec3 u, v;
  orthonormal_basis(n, u, v);
  const Vec3 c = n * plane.offset;
  u *= half_size;  // u x v = n: counter-clockwise from the front
  v *= half_size;
  const std::array<Vec3, 4> corners{c - u - v, c + u - v, c + u + v, c - u + v};
  add_polygon(mesh, corners, n);
  return mesh;
}

}  // namespace

TriangleMesh shape_mesh(const ShapeGeometry& geometry, float plane_half_size) {
  struct Visitor {
    float plane_half_size;
    TriangleMesh operator()(const Sphere& s) const { return rounded_mesh(s.radius, 0); }
    TriangleMesh operator()(const Box& b) const { return box_mesh(b); }
    TriangleMesh operator()(const Capsule& c) const {
      return rounded_mesh(c.radius, c.half_height);
    }
    TriangleMesh operator()(const ConvexHull& h) const { return hull_mesh(h); }
    TriangleMesh operator()(const Plane& p) const { return plane_mesh(p, plane_half_size); }
    TriangleMesh operator()(const Mesh& m) const { return triangle_mesh(m); }
  };
  return std::visit(Visitor{plane_half_size}, geometry);
}

}  // namespace impulse::testbed
