#include "dynamics/body_preparation.h"

#include <impulse/error.h>

#include <Eigen/Eigenvalues>

#include <string>

#include "core/eigen_double.h"

namespace impulse {

namespace {

PreparedBody refused(std::string path, std::string message) {
  PreparedBody body;
  body.problem = SettingsProblem{std::move(path), std::move(message)};
  return body;
}

// The inertia with each principal moment at least min_ratio of the largest, about the same axes;
// the same bits where none is below (include/impulse/body.h, BodySettings::min_inertia_ratio). In
// double: a needle's moments span more than single precision resolves.
Mat33 conditioned_inertia(const Mat33& inertia, Real min_ratio) {
  if (min_ratio == 0) return inertia;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(to_double(inertia));
  const Eigen::Vector3d& moments = principal.eigenvalues();
  const double least = double(min_ratio) * moments.maxCoeff();
  if (!(moments.minCoeff() < least)) return inertia;
  const Eigen::Matrix3d& axes = principal.eigenvectors();
  return to_real(Eigen::Matrix3d(axes * moments.cwiseMax(least).asDiagonal() * axes.transpose()));
}

}  // namespace

PreparedBody prepare_body(const BodySettings& settings) {
  PreparedBody body;
  body.cooked.reserve(settings.shapes.size());
  for (std::size_t i = 0; i < settings.shapes.size(); ++i) {
    try {
      body.cooked.push_back(cook_shape(settings.shapes[i].geometry));
    } catch (const InvalidArgument& e) {
      return refused("/shapes/" + std::to_string(i), e.what());
    }
  }
  BodyMotion& motion = body.motion;
  motion.type = settings.type;
  if (settings.type == BodyType::dynamic_body) {
    MassProperties& mass = body.mass;
    mass = cooked_mass_properties(settings.shapes, body.cooked, settings.density);
    const auto overflows = [&] { return !is_finite(mass.mass) || !is_finite(mass.inertia); };
    // A given mass is spread as the shapes' volumes are, whatever the density: a volume that
    // overflows at the density may not at 1 kg/m^3.
    if (overflows() && settings.mass) {
      mass = cooked_mass_properties(settings.shapes, body.cooked, 1);
      if (overflows())
        return refused("/shapes", "the shapes' volume or inertia overflows single precision");
    }
    if (overflows())
      return refused("/density",
                     "the shapes' mass or inertia at this density overflows single precision");
    if (!(mass.mass > 0)) return refused("/shapes", "the shapes enclose no volume");
    if (settings.mass) {
      mass.inertia *= *settings.mass / mass.mass;
      mass.mass = *settings.mass;
    }
    if (!settings.particle)
      mass.inertia = conditioned_inertia(mass.inertia, settings.min_inertia_ratio);
    motion.inv_mass = Real(1) / mass.mass;
    motion.inertia_local = mass.inertia;
    motion.inv_inertia_local = settings.particle ? Mat33::zero() : inverse_symmetric(mass.inertia);
    motion.local_center = mass.center;
    // Single precision: a mass or size far out of range overflows the inertia or its inverse.
    // (An inertia whose determinant underflows inverts to zero: the body would never turn.)
    const Mat33& inv = motion.inv_inertia_local;
    const bool turns = settings.particle || (inv(0, 0) > 0 && inv(1, 1) > 0 && inv(2, 2) > 0);
    if (!is_finite(motion.inv_mass) || !is_finite(motion.inertia_local) || !is_finite(inv) ||
        !turns)
      return refused("/mass", "the inertia or its inverse overflows single precision");
  }
  motion.orientation = normalize(settings.orientation);
  motion.center = settings.position + rotate(motion.orientation, motion.local_center);
  motion.linear_damping = settings.linear_damping;
  motion.angular_damping = settings.angular_damping;
  motion.gravity_scale = settings.gravity_scale;
  motion.refresh_world_inertia();
  return body;
}

}  // namespace impulse
