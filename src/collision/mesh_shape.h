#pragma once
// A static triangle mesh cooked for collision: a bounding-volume tree over its triangles and, per
// triangle, which edges are active (boundary or convex beyond a small angle). Contacts on
// inactive edges and vertices take the triangle's face normal, so that bodies sliding across a
// flat or concave surface do not snag on the inner edges between its triangles.
//
// Feature ids of mesh contacts (the mesh side): index = 8 * triangle + local feature, with
// local 0 the front face, 2 + i edge i, 5 + i vertex i of the triangle (polyhedron.h's
// TrianglePolyhedron numbering).

#include <impulse/shape.h>

#include <memory>
#include <vector>

#include "collision/convex_ref.h"
#include "collision/raycast.h"

namespace impulse {

struct MeshShape;  // defined by the mesh cooking code

/// Cooks a mesh; throws InvalidArgument naming the problem (an index out of range, a
/// non-finite vertex, a degenerate triangle, no triangles).
std::shared_ptr<const MeshShape> cook_mesh(const Mesh& mesh);

/// The mesh's bounds in its local frame.
AABB mesh_bounds(const MeshShape& mesh);

/// Contacts of a convex shape a against mesh b (pose tb): appends manifolds to out, one per group
/// of triangles touched with a common normal, normals from a to the mesh.
void collide_convex_mesh(const ConvexRef& a, const Transform& ta, const MeshShape& b,
                         const Transform& tb, Real margin, std::vector<Manifold>& out);

/// Closest hit of the segment on the mesh's triangles, either side; hit.sub_shape is the triangle.
bool raycast(const MeshShape& shape, const Transform& pose, const Vec3& origin,
             const Vec3& direction, Real max_fraction, RayHit& hit);

}  // namespace impulse
