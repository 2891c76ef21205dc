#pragma once
// A random group's matrix for the tests of group_solve.h: J J^T for a random J of six columns
// (a manifold's normal rows between two bodies of unit mass), positive definite for up to six rows.

#include <Eigen/Dense>
#include <cstddef>
#include <random>

#include <impulse/math.h>

namespace impulse {

using GroupDense = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;

inline GroupDense random_group_matrix(std::mt19937& rng, std::size_t count) {
  std::uniform_real_distribution<Real> entry(-1, 1);
  const auto n = Eigen::Index(count);
  GroupDense j(n, 6);
  for (Eigen::Index r = 0; r < n; ++r)
    for (Eigen::Index c = 0; c < 6; ++c)
      j(r, c) = entry(rng);
  return j * j.transpose();
}

}  // namespace impulse
