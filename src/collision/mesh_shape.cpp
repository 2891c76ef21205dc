#include "collision/mesh_shape.h"

#include <impulse/error.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>

namespace impulse {
namespace {

// A triangle whose doubled area is under this fraction of its longest edge squared is refused:
// its normal would be noise (a height of 1e-6 of the base).
constexpr Real k_degenerate_ratio = Real(1e-6);
// Normals closer than this to opposite belong to triangles back to back (cos 179 degrees): their
// shared edge is a knife edge, active.
constexpr Real k_back_to_back_cosine = Real(-0.99985);
// A ray whose direction is within this sine of the triangle's plane runs parallel to it.
constexpr Real k_parallel_sine = Real(1e-6);

// One side of an edge: corners lo < hi after welding, and whether the triangle walks lo to hi.
struct HalfEdge {
  std::uint32_t lo, hi;
  std::uint32_t triangle;
  int local;  // the triangle's edge index
  bool forward;
};

// Index of the first vertex at each vertex's coordinates, so that a mesh whose triangles repeat
// a corner instead of sharing it still finds its inner edges.
std::vector<std::uint32_t> weld_exact(const std::vector<Vec3>& vertices) {
  std::vector<std::uint32_t> order(vertices.size());
  std::iota(order.begin(), order.end(), std::uint32_t(0));
  const auto key = [&](std::uint32_t i) {
    return std::tuple(vertices[i].x, vertices[i].y, vertices[i].z, i);
  };
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t i, std::uint32_t j) { return key(i) < key(j); });
  std::vector<std::uint32_t> canonical(vertices.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const bool same = k > 0 && vertices[order[k]] == vertices[order[k - 1]];
    canonical[order[k]] = same ? canonical[order[k - 1]] : order[k];
  }
  return canonical;
}

// Jolt's rule: an inner edge between faces n1 (left of the edge, looking along edge from the
// front) and n2 is active when it is a knife edge or bends convexly beyond the threshold; a
// concave or near-flat edge is inner.
bool is_edge_active(const Vec3& n1, const Vec3& n2, const Vec3& edge) {
  static const Real active_cosine = std::cos(k_active_edge_degrees * k_pi / 180);
  const Real cosine = dot(n1, n2);
  if (cosine < k_back_to_back_cosine) return true;
  if (dot(cross(n1, n2), edge) <= 0) return false;
  return cosine < active_cosine;
}

// Active edge and corner flags per triangle of a welded mesh: an edge is active when it bounds one
// triangle, more than two, two with clashing windings, or two at an active bend; a corner is active
// when any edge of the mesh that meets it is.
std::vector<std::uint8_t> find_active_features(const MeshShape& m) {
  std::vector<HalfEdge> edges;
  edges.reserve(3 * m.triangles.size());
  for (std::uint32_t t = 0; t < m.triangles.size(); ++t) {
    for (int i = 0; i < 3; ++i) {
      const std::uint32_t from = m.triangles[t][i];
      const std::uint32_t to = m.triangles[t][(i + 1) % 3];
      edges.push_back({std::min(from, to), std::max(from, to), t, i, from < to});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const HalfEdge& e, const HalfEdge& f) {
    return std::tie(e.lo, e.hi, e.triangle, e.local) < std::tie(f.lo, f.hi, f.triangle, f.local);
  });

  std::vector<std::uint8_t> flags(m.triangles.size(), 0);
  std::vector<bool> vertex_active(m.vertices.size(), false);
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i + 1;
    while (j < edges.size() && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi)
      ++j;
    bool active = true;
    if (j - i == 2 && edges[i].forward != edges[i + 1].forward) {
      const HalfEdge& e = edges[i];
      const auto& tri = m.triangles[e.triangle];
      const Vec3 along = m.vertices[tri[(e.local + 1) % 3]] - m.vertices[tri[e.local]];
      active = is_edge_active(m.normals[e.triangle], m.normals[edges[i + 1].triangle], along);
    }
    if (active) {
      for (std::size_t k = i; k < j; ++k)
        flags[edges[k].triangle] |= MeshShape::edge_bit(edges[k].local);
      vertex_active[edges[i].lo] = vertex_active[edges[i].hi] = true;
    }
    i = j;
  }
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    for (int i = 0; i < 3; ++i) {
      if (vertex_active[m.triangles[t][i]]) flags[t] |= MeshShape::vertex_bit(i);
    }
  }
  return flags;
}

}  // namespace

std::shared_ptr<const MeshShape> cook_mesh(const Mesh& mesh) {
  if (mesh.triangles.empty()) throw InvalidArgument("mesh: has no triangles");
  if (mesh.triangles.size() > k_max_mesh_triangles) {
    throw InvalidArgument("mesh: at most " + std::to_string(k_max_mesh_triangles) +
                          " triangles are allowed, got " + std::to_string(mesh.triangles.size()));
  }
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
    if (!is_finite(mesh.vertices[i])) {
      throw InvalidArgument("mesh: vertex " + std::to_string(i) + " has a non-finite coordinate");
    }
  }

  auto shape = std::make_shared<MeshShape>();
  shape->vertices = mesh.vertices;
  shape->triangles = mesh.triangles;
  shape->normals.resize(mesh.triangles.size());
  std::vector<AABB> boxes(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    for (const std::uint32_t v : tri) {
      if (v >= mesh.vertices.size()) {
        throw InvalidArgument("mesh: triangle " + std::to_string(t) + " has vertex index " +
                              std::to_string(v) + ", out of range for " +
                              std::to_string(mesh.vertices.size()) + " vertices");
      }
    }
    const Vec3& a = mesh.vertices[tri[0]];
    const Vec3& b = mesh.vertices[tri[1]];
    const Vec3& c = mesh.vertices[tri[2]];
    const Vec3 n = cross(b - a, c - a);
    const Real longest_sq =
        std::max({length_squared(b - a), length_squared(c - b), length_squared(a - c)});
    const Real doubled_area = length(n);
    if (!(doubled_area > k_degenerate_ratio * longest_sq)) {
      throw InvalidArgument("mesh: triangle " + std::to_string(t) + " is degenerate (zero area)");
    }
    shape->normals[t] = n / doubled_area;
    boxes[t].include(a).include(b).include(c);
  }
  const std::vector<std::uint32_t> canonical = weld_exact(shape->vertices);
  for (auto& tri : shape->triangles) {
    for (std::uint32_t& v : tri)
      v = canonical[v];
  }
  shape->active_features = find_active_features(*shape);
  shape->tree = MeshTree(boxes);
  return shape;
}

AABB mesh_bounds(const MeshShape& mesh) {
  return mesh.tree.bounds();
}

Real ray_triangle_fraction(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& origin,
                           const Vec3& direction, Real max_fraction) {
  const Vec3 e1 = b - a;
  const Vec3 e2 = c - a;
  const Vec3 p = cross(direction, e2);
  const Real det = dot(e1, p);  // -dot(direction, e1 x e2)
  const Real bound = k_parallel_sine * length(direction) * length(cross(e1, e2));
  if (!(std::abs(det) > bound)) return -1;
  const Real inv_det = Real(1) / det;
  const Vec3 s = origin - a;
  const Real u = dot(s, p) * inv_det;
  if (u < 0 || u > 1) return -1;
  const Vec3 q = cross(s, e1);
  const Real v = dot(direction, q) * inv_det;
  if (v < 0 || u + v > 1) return -1;
  const Real t = dot(e2, q) * inv_det;
  return t >= 0 && t <= max_fraction ? t : Real(-1);
}

bool raycast(const MeshShape& shape, const Transform& pose, const Vec3& origin,
             const Vec3& direction, Real max_fraction, RayHit& hit) {
  const Vec3 o = apply_inverse(pose, origin);
  const Vec3 d = inverse_rotate(pose.orientation, direction);
  bool found = false;
  std::uint32_t best = 0;
  Real limit = max_fraction;
  shape.tree.raycast(Ray(o, d), max_fraction, [&](std::uint32_t t) {
    const auto& tri = shape.triangles[t];
    const Real f = ray_triangle_fraction(shape.vertices[tri[0]], shape.vertices[tri[1]],
                                         shape.vertices[tri[2]], o, d, limit);
    // Ties (a ray through a shared edge) go to the lower triangle index, whatever the walk order.
    if (f >= 0 && (!found || f < limit || t < best)) {
      found = true;
      best = t;
      limit = f;
    }
    return limit;
  });
  if (!found) return false;
  const Vec3 n = shape.normals[best];
  hit.fraction = limit;
  hit.normal = rotate(pose.orientation, dot(n, d) > 0 ? -n : n);
  hit.sub_shape = best;
  return true;
}

}  // namespace impulse
