#include "collision/polyhedron_mass.h"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "core/eigen_double.h"

namespace impulse {

// Sums the signed tetrahedra from a reference point to each fan triangle of each face. The
// second moment of a tetrahedron (r, r + a, r + b, r + c) about r is exact:
//   integral of x x^T = det[a b c] / 120 * (a a^T + b b^T + c c^T + s s^T),  s = a + b + c
// (Tonon 2004; Blow & Binstock 2004). Accumulated in double, then shifted to the centre of mass.
MassProperties polyhedron_mass_properties(const HullData& hull, Real density) {
  using Vec3d = Eigen::Vector3d;

  // A reference inside the hull keeps the tetrahedra small and the sums well-conditioned.
  Vec3d reference = Vec3d::Zero();
  for (const Vec3& v : hull.vertices) {
    reference += to_double(v);
  }
  reference /= static_cast<double>(hull.vertices.size());

  double six_volume = 0;
  Vec3d first_moment = Vec3d::Zero();                       // times 24
  Eigen::Matrix3d second_moment = Eigen::Matrix3d::Zero();  // times 120
  for (const PolyFace& face : hull.faces) {
    const auto corner = [&](std::uint32_t i) -> Vec3d {
      return to_double(hull.vertices[hull.face_vertices[face.first + i]]) - reference;
    };
    const Vec3d a = corner(0);
    for (std::uint32_t i = 1; i + 1 < face.count; ++i) {
      const Vec3d b = corner(i);
      const Vec3d c = corner(i + 1);
      const double det = a.dot(b.cross(c));
      const Vec3d s = a + b + c;
      six_volume += det;
      first_moment += det * s;
      second_moment +=
          det * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
  }

  const double volume = six_volume / 6;
  const double mass = density * volume;
  const Vec3d center = first_moment / (4 * six_volume);
  // Parallel-axis theorem on the covariance: about the centre, C = C_r - m c c^T.
  const Eigen::Matrix3d covariance =
      density * second_moment / 120 - mass * center * center.transpose();
  const Eigen::Matrix3d inertia = covariance.trace() * Eigen::Matrix3d::Identity() - covariance;

  MassProperties result;
  result.mass = Real(mass);
  const Vec3d world_center = center + reference;
  result.center = to_real(world_center);
  result.inertia = to_real(Eigen::Matrix3d(0.5 * (inertia + inertia.transpose())));
  return result;
}

}  // namespace impulse
