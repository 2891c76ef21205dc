#pragma once
// A static triangle mesh cooked for collision: a bounding-volume tree over its triangles and, per
// triangle, which edges and corners are active (boundary, or convex beyond k_active_edge_degrees).
// Contacts on inactive edges and vertices take the triangle's face normal, so that bodies sliding
// across a flat or concave surface do not snag on the inner edges between its triangles (Jolt's
// active edges; Bullet's btInternalEdgeUtility solves the same problem after the fact), and edge
// or corner contacts whose corners all belong to neighbours already in contact are dropped as
// redundant (Jolt's voided features).
//
// Meshes are one-sided: a triangle ignores a convex whose centre lies behind its plane, and
// contacts that would push a convex towards a triangle's back are dropped, so a body below a mesh
// is not pushed through it (docs/collision.md, "Planes and triangle meshes").
//
// Feature ids of mesh contacts (the mesh side): index = 8 * triangle + local feature, with
// local 0 the front face (1 the back), 2 + i edge i, 5 + i vertex i of the triangle (polyhedron.h's
// TrianglePolyhedron numbering).

#include <impulse/shape.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "collision/convex_ref.h"
#include "collision/mesh_tree.h"
#include "collision/raycast.h"

namespace impulse {

/// Most triangles a mesh may have: 8 * triangle + 7 must stay under 2^30 for FeatureId::key.
inline constexpr std::size_t k_max_mesh_triangles = std::size_t(1) << 27;
/// An inner edge whose faces bend convexly by more than this is active (degrees).
inline constexpr Real k_active_edge_degrees = 5;

/// A cooked mesh, immutable once made; coordinates in the mesh's local frame.
struct MeshShape {
  /// Bits of a triangle's active_features: edge i (corner i to corner (i + 1) % 3) and corner i.
  static constexpr std::uint8_t edge_bit(int i) { return std::uint8_t(1u << i); }
  static constexpr std::uint8_t vertex_bit(int i) { return std::uint8_t(8u << i); }

  std::vector<Vec3> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;  // corners welded (see cook_mesh)
  std::vector<Vec3> normals;                            // unit, out of each triangle's front
  std::vector<std::uint8_t> active_features;  // per triangle, edge_bit and vertex_bit flags
  MeshTree tree;                              // item t is triangle t
};

/// Cooks a mesh; throws InvalidArgument naming the problem (an index out of range, a
/// non-finite vertex, a degenerate triangle, no triangles, more than k_max_mesh_triangles).
/// Corners at equal coordinates are merged (triangles then name the first such vertex), so that
/// a mesh whose triangles repeat corners instead of sharing them still has inner edges.
std::shared_ptr<const MeshShape> cook_mesh(const Mesh& mesh);

/// The mesh's bounds in its local frame.
AABB mesh_bounds(const MeshShape& mesh);

/// A point of a mesh's surface that a convex touched at the last step, and the normal there
/// (world, out of the mesh toward the convex): the side of the mesh the convex was on, which a
/// thin hull sunk far into a triangle no longer shows by its pose.
struct MeshTouch {
  Vec3 point;
  Vec3 normal;
};

/// Contacts of a convex shape a against mesh b (pose tb): appends manifolds to out, one per group
/// of triangles touched with a common normal (within a few degrees), each of at most 4 points,
/// normals from a to the mesh. `touched`: the pair's contacts of the last step (none for a new
/// pair). out is the caller's and is not cleared here. Scratch lives in thread_local buffers that
/// keep their capacity, so steady use allocates nothing.
void collide_convex_mesh(const ConvexRef& a, const Transform& ta, const MeshShape& b,
                         const Transform& tb, Real margin, std::vector<Manifold>& out,
                         std::span<const MeshTouch> touched = {});

/// Closest hit of the segment on the mesh's triangles, either side; hit.sub_shape is the triangle
/// and hit.normal faces against the ray.
bool raycast(const MeshShape& shape, const Transform& pose, const Vec3& origin,
             const Vec3& direction, Real max_fraction, RayHit& hit);

/// The fraction t in [0, max_fraction] at which origin + t * direction crosses triangle a, b, c
/// from either side (Moller and Trumbore 1997), or -1 when it misses or runs parallel to it.
Real ray_triangle_fraction(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& origin,
                           const Vec3& direction, Real max_fraction);

}  // namespace impulse
