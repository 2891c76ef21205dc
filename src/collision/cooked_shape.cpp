#include "collision/cooked_shape.h"

#include "collision/shape_bounds.h"
#include "core/overloaded.h"

namespace impulse {

CookedShape cook_shape(const ShapeGeometry& geometry) {
  return std::visit(Overloaded{
                        [](const ConvexHull& hull) -> CookedShape {
                          return std::make_shared<const HullData>(build_convex_hull(hull.points));
                        },
                        [](const Mesh& mesh) -> CookedShape { return cook_mesh(mesh); },
                        [](const auto& primitive) -> CookedShape { return primitive; },
                    },
                    geometry);
}

Real rounding_radius(const CookedShape& shape) {
  if (const auto* sphere = std::get_if<Sphere>(&shape)) return sphere->radius;
  if (const auto* capsule = std::get_if<Capsule>(&shape)) return capsule->radius;
  return 0;
}

Real core_reach(const CookedShape& shape) {
  return std::visit(Overloaded{
                        [](const Sphere&) { return Real(0); },
                        [](const Box& box) { return length(box.half_extents); },
                        [](const Capsule& capsule) { return capsule.half_height; },
                        [](const std::shared_ptr<const HullData>& hull) {
                          Real reach = 0;
                          for (const Vec3& v : hull->vertices)
                            reach = std::max(reach, length(v));
                          return reach;
                        },
                        [](const Plane&) { return Real(0); },
                        [](const std::shared_ptr<const MeshShape>& mesh) {
                          const AABB box = mesh_bounds(*mesh);
                          return length(max(abs(box.lower), abs(box.upper)));
                        },
                    },
                    shape);
}

AABB shape_bounds(const CookedShape& shape, const Transform& pose) {
  return std::visit(
      Overloaded{
          [&](const std::shared_ptr<const HullData>& hull) { return bounds(hull->view(), pose); },
          [&](const std::shared_ptr<const MeshShape>& mesh) {
            return transform_aabb(pose, mesh_bounds(*mesh));
          },
          [&](const auto& primitive) { return bounds(primitive, pose); },
      },
      shape);
}

bool raycast_shape(const CookedShape& shape, const Transform& pose, const Vec3& origin,
                   const Vec3& direction, Real max_fraction, RayHit& hit) {
  return std::visit(Overloaded{
                        [&](const std::shared_ptr<const HullData>& hull) {
                          return raycast(hull->view(), pose, origin, direction, max_fraction, hit);
                        },
                        [&](const std::shared_ptr<const MeshShape>& mesh) {
                          return raycast(*mesh, pose, origin, direction, max_fraction, hit);
                        },
                        [&](const auto& primitive) {
                          return raycast(primitive, pose, origin, direction, max_fraction, hit);
                        },
                    },
                    shape);
}

std::optional<ConvexRef> convex_ref(const CookedShape& shape,
                                    std::optional<BoxPolyhedron>& box_storage) {
  return std::visit(
      Overloaded{
          [](const Sphere& sphere) -> std::optional<ConvexRef> { return sphere; },
          [](const Capsule& capsule) -> std::optional<ConvexRef> { return capsule; },
          [&](const Box& box) -> std::optional<ConvexRef> {
            return box_storage.emplace(box).view();
          },
          [](const std::shared_ptr<const HullData>& hull) -> std::optional<ConvexRef> {
            return hull->view();
          },
          [](const auto&) -> std::optional<ConvexRef> { return std::nullopt; },
      },
      shape);
}

}  // namespace impulse
