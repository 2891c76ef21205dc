// Mass, centre of mass and inertia of shapes and compounds (closed forms; polyhedra by
// tetrahedra; compounds by the parallel-axis theorem).

#include <impulse/body.h>
#include <impulse/error.h>

#include "collision/convex_hull.h"
#include "collision/cooked_shape.h"
#include "collision/polyhedron_mass.h"

#include <variant>

namespace impulse {
namespace {

// Inertia of a point mass m at offset d about the origin: m (|d|^2 E - d d^T).
Mat33 parallel_axis_term(Real m, const Vec3& d) {
  return (Mat33::identity() * length_squared(d) - Mat33::outer(d, d)) * m;
}

struct ShapeMass {
  Real density;

  MassProperties operator()(const Sphere& s) const {
    const Real r = s.radius;
    const Real m = Real(4) / 3 * k_pi * r * r * r * density;
    return {m, Vec3::zero(), Mat33::diagonal(Vec3::splat(Real(0.4) * m * r * r))};
  }
  MassProperties operator()(const Box& b) const {
    const Vec3 h = b.half_extents;
    const Real m = 8 * h.x * h.y * h.z * density;
    const Vec3 h2 = hadamard(h, h);
    return {m, Vec3::zero(),
            Mat33::diagonal(Vec3{h2.y + h2.z, h2.x + h2.z, h2.x + h2.y} * (m / 3))};
  }
  // A cylinder of length 2h along y plus two hemispheres whose centres of mass sit 3r/8 beyond
  // the cylinder's ends.
  MassProperties operator()(const Capsule& c) const {
    const Real r = c.radius, h = c.half_height;
    const Real m_cyl = k_pi * r * r * 2 * h * density;
    const Real m_sph = Real(4) / 3 * k_pi * r * r * r * density;
    const Real axial = m_cyl * r * r / 2 + m_sph * Real(0.4) * r * r;
    const Real lateral =
        m_cyl * (r * r / 4 + h * h / 3) + m_sph * (Real(0.4) * r * r + h * h + Real(0.75) * h * r);
    return {m_cyl + m_sph, Vec3::zero(), Mat33::diagonal({lateral, axial, lateral})};
  }
  MassProperties operator()(const ConvexHull& h) const {
    return polyhedron_mass_properties(build_convex_hull(h.points), density);
  }
  MassProperties operator()(const std::shared_ptr<const HullData>& h) const {
    return polyhedron_mass_properties(*h, density);
  }
  // Planes and meshes bound no volume: they belong to static bodies only.
  MassProperties operator()(const Plane&) const { return {}; }
  MassProperties operator()(const Mesh&) const { return {}; }
  MassProperties operator()(const std::shared_ptr<const MeshShape>&) const { return {}; }
};

// A compound's mass from its parts' own (part_mass(i), in the part's frame) and their placings.
template <class PartMass>
MassProperties compound_mass(const std::vector<ShapeSettings>& shapes, PartMass&& part_mass) {
  std::vector<MassProperties> parts;
  parts.reserve(shapes.size());
  MassProperties total;
  Vec3 weighted_center;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const ShapeSettings& shape = shapes[i];
    MassProperties part = part_mass(i);
    // Into the body frame: rotate the inertia (R I R^T) and move the centre.
    const Mat33 r = to_matrix(normalize(shape.local.orientation));
    part.inertia = r * part.inertia * transpose(r);
    part.center = apply({shape.local.position, normalize(shape.local.orientation)}, part.center);
    total.mass += part.mass;
    weighted_center += part.center * part.mass;
    parts.push_back(part);
  }
  if (total.mass <= 0) return total;
  total.center = weighted_center / total.mass;
  for (const MassProperties& part : parts) {
    total.inertia += part.inertia + parallel_axis_term(part.mass, part.center - total.center);
  }
  return total;
}

}  // namespace

MassProperties compute_mass_properties(const ShapeGeometry& geometry, Real density) {
  return std::visit(ShapeMass{density}, geometry);
}

MassProperties compute_mass_properties(const std::vector<ShapeSettings>& shapes, Real density) {
  return compound_mass(
      shapes, [&](std::size_t i) { return compute_mass_properties(shapes[i].geometry, density); });
}

MassProperties cooked_mass_properties(const std::vector<ShapeSettings>& shapes,
                                      const std::vector<CookedShape>& cooked, Real density) {
  return compound_mass(shapes,
                       [&](std::size_t i) { return std::visit(ShapeMass{density}, cooked[i]); });
}

}  // namespace impulse
