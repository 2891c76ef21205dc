#pragma once
// The engine's Vec3 and Mat33 as Eigen's double vectors and matrices and back, for the cooking
// steps that compute in double (hulls, their mass properties, conditioned inertia).

#include <impulse/math.h>

#include <Eigen/Core>

namespace impulse {

inline Eigen::Vector3d to_double(const Vec3& v) {
  return {double(v.x), double(v.y), double(v.z)};
}

inline Eigen::Matrix3d to_double(const Mat33& m) {
  Eigen::Matrix3d out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      out(r, c) = double(m(r, c));
  return out;
}

inline Vec3 to_real(const Eigen::Vector3d& v) {
  return {Real(v.x()), Real(v.y()), Real(v.z())};
}

inline Mat33 to_real(const Eigen::Matrix3d& m) {
  Mat33 out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      out(r, c) = Real(m(r, c));
  return out;
}

}  // namespace impulse
