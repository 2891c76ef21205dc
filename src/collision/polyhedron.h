#pragma once
// A convex polyhedron as the narrowphase sees it: a cooked hull, a box or one triangle of a mesh,
// all through one non-owning view so that one SAT-and-clipping routine serves every pair of
// them. Feature ids name the view's own numbering: face f is faces[f], edge e is edges[e],
// vertex v is vertices[v].

#include <impulse/shape.h>

#include <array>
#include <cstdint>
#include <span>

#include "collision/manifold.h"

namespace impulse {

/// One planar face: a convex polygon, counter-clockwise seen from outside.
struct PolyFace {
  Vec3 normal;              // unit, outward
  Real offset = 0;          // dot(normal, x) == offset on the face
  std::uint32_t first = 0;  // its vertex indices are face_vertices[first, first + count)
  std::uint32_t count = 0;
};

/// One edge and the two faces that meet at it (for Gauss-map pruning of edge pairs). Seen from
/// outside, the edge runs from vertices[0] to vertices[1] counter-clockwise around faces[0] and
/// the other way around faces[1]; the pruning reads the edge's orientation from this.
struct PolyEdge {
  std::array<std::uint32_t, 2> vertices{};
  std::array<std::uint32_t, 2> faces{};
};

/// A convex polyhedron in its local frame. A triangle is a flat polyhedron: two faces (front 0,
/// back 1) sharing three edges.
struct PolyhedronView {
  std::span<const Vec3> vertices;
  std::span<const PolyFace> faces;
  std::span<const std::uint32_t> face_vertices;
  std::span<const PolyEdge> edges;
  /// A point inside (a hull's corners' mean, a box's centre): a hull need not hold its origin.
  Vec3 interior;
  /// Whether it is thin (is_thin): a needle's or plate's, whose face most anti-parallel to another
  /// shape's may be a sliver that leaves out where it touches (face_contact looks for those).
  bool thin = false;

  /// The index of a vertex farthest along direction (local frame).
  std::uint32_t support_index(const Vec3& direction) const;
  Vec3 support(const Vec3& direction) const { return vertices[support_index(direction)]; }
  /// The index of a face whose outward normal lies most along direction (local frame).
  std::uint32_t face_along(const Vec3& direction) const;
};

/// Whether p's least width across any face's plane is under a fifth of its bounding box's
/// diagonal (local frame): O(faces x vertices), for cooking.
bool is_thin(const PolyhedronView& p);

/// A box as a polyhedron, numbered as in box_box.h (vertices by sign bits, face 2k + 0 the +k
/// face, edge 4k + b1 + 2 b2 along axis k), so ids agree whichever routine made a contact.
class BoxPolyhedron {
 public:
  explicit BoxPolyhedron(const Box& box);
  PolyhedronView view() const;

 private:
  std::array<Vec3, 8> vertices_;
  std::array<PolyFace, 6> faces_;
  std::array<std::uint32_t, 24> face_vertices_;
  std::array<PolyEdge, 12> edges_;
};

/// A triangle (counter-clockwise seen from the front) as a flat polyhedron: vertex i is the i-th
/// corner, edge i runs from corner i to corner (i + 1) % 3, face 0 is the front and 1 the back.
class TrianglePolyhedron {
 public:
  TrianglePolyhedron(const Vec3& a, const Vec3& b, const Vec3& c);
  PolyhedronView view() const;

 private:
  std::array<Vec3, 3> vertices_;
  std::array<PolyFace, 2> faces_;
  std::array<std::uint32_t, 6> face_vertices_;
  std::array<PolyEdge, 3> edges_;
};

// Narrowphase for polyhedra, with the conventions of box_box.h: the normal is unit and points
// from a to b; depth > 0 overlaps and points separated by up to margin (m) are kept with negative
// depth; a point's position lies on b's surface; at most 4 points (reduce_manifold). Each
// returns whether out holds any point.

/// SAT over both polyhedra's face normals and their edge pairs (Gauss-map pruned), then the
/// incident face clipped against the reference face (seed 001 section 8.2); for an edge axis, the
/// face most nearly across it clipped, gaps along the axis (EdgeAxis), or one edge-edge point.
bool collide_polyhedra(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                       const Transform& tb, Real margin, Manifold& out);

/// Face `face` of b clipped against a's face most anti-parallel to it, gaps along its normal,
/// whatever axis the separating axis test would take (none within the margin: false). For a
/// mesh's triangle, whose back face that test takes once a thin hull is more than half its
/// thickness through the front (mesh_contacts.cpp).
bool collide_polyhedron_face(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                             const Transform& tb, std::uint32_t face, Real margin, Manifold& out);

/// The nearest points of a and b, which `axis` (world, from a to b) separates by at most margin,
/// as one point on b, the line between them the normal and their distance the gap; false if the
/// axis does not separate them or they are farther apart than margin. For a pair apart whose face
/// clip found nothing within the margin (its nearest features an edge or corner beside the face).
bool closest_feature_contact(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                             const Transform& tb, const Vec3& axis, Real margin, Manifold& out);

/// One point from the sphere centre to the closest point of the polyhedron; a centre inside
/// leaves through the face of least penetration.
bool collide_sphere_polyhedron(const Sphere& a, const Transform& ta, const PolyhedronView& b,
                               const Transform& tb, Real margin, Manifold& out);

/// The capsule's segment against the polyhedron: clipped to the face facing it (its normal
/// within about 18 degrees of the nearest points' line), its ends within the margin as points
/// along the face normal, up to two; else one at the closest points or along the axis of least
/// overlap.
bool collide_capsule_polyhedron(const Capsule& a, const Transform& ta, const PolyhedronView& b,
                                const Transform& tb, Real margin, Manifold& out);

/// The capsule's segment clipped to face `face` of b, its ends within the margin as points along
/// the face normal (up to two; none: false). For a mesh's triangle whose nearest feature to the
/// capsule is an inner edge, where the face normal stands (mesh_contacts.cpp).
bool collide_capsule_face(const Capsule& a, const Transform& ta, const PolyhedronView& b,
                          const Transform& tb, std::uint32_t face, Real margin, Manifold& out);

}  // namespace impulse
