#pragma once
// A shape as the collision layer keeps it: primitives by value, hulls and meshes cooked once
// (hull faces and edges; a mesh's triangle tree and active edges) and shared between bodies made
// from the same settings' copies. Alternatives are in ShapeGeometry's order.

#include <impulse/body.h>
#include <impulse/shape.h>

#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "collision/convex_hull.h"
#include "collision/convex_ref.h"
#include "collision/mesh_shape.h"
#include "collision/raycast.h"

namespace impulse {

using CookedShape = std::variant<Sphere, Box, Capsule, std::shared_ptr<const HullData>, Plane,
                                 std::shared_ptr<const MeshShape>>;

/// Cooks a geometry; throws InvalidArgument for a degenerate hull or mesh (naming the problem).
CookedShape cook_shape(const ShapeGeometry& geometry);

/// The mass properties of a body made of shapes (as compute_mass_properties), from their cooked
/// forms so that no hull is built twice; cooked[i] is shapes[i].geometry cooked.
MassProperties cooked_mass_properties(const std::vector<ShapeSettings>& shapes,
                                      const std::vector<CookedShape>& cooked, Real density);

/// How far the shape's surface lies out from its core, m: a sphere's radius about its centre, a
/// capsule's about its segment; 0 for shapes whose surface is their own (boxes, hulls, planes,
/// meshes). A contact point on a rounded surface is not a point of the body: where it touches
/// moves over the surface as the body rolls, while its core point stays.
Real rounding_radius(const CookedShape& shape);

/// How far the shape's core reaches from its origin, m: the radius of the sphere about the origin
/// that holds every point a turn about the origin can move (the rounding turns onto itself). 0 for
/// a plane, whose turn has no bound (planes do not move).
Real core_reach(const CookedShape& shape);

/// The world box around the shape at pose.
AABB shape_bounds(const CookedShape& shape, const Transform& pose);

/// The closest hit of the segment origin + t * direction, t in [0, max_fraction] (raycast.h).
bool raycast_shape(const CookedShape& shape, const Transform& pose, const Vec3& origin,
                   const Vec3& direction, Real max_fraction, RayHit& hit);

/// A convex shape as the plane and mesh routines take it; box_storage holds a box's polyhedron
/// while the result is used. Empty for planes and meshes.
std::optional<ConvexRef> convex_ref(const CookedShape& shape,
                                    std::optional<BoxPolyhedron>& box_storage);

}  // namespace impulse
