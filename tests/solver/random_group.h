#pragma once
// Random groups for the tests and benchmarks of group_solve.h: a group's matrix J J^T for a random
// J of six columns (a manifold's normal rows between two bodies of unit mass), positive definite
// for up to six rows, and an LCP on one whose solution pushes given rows.

#include <Eigen/Dense>
#include <array>
#include <cstddef>
#include <random>

#include <impulse/math.h>

#include "solver/group_solve.h"

namespace impulse {

using GroupDense = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
using GroupVector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

inline GroupDense random_group_matrix(std::mt19937& rng, std::size_t count) {
  std::uniform_real_distribution<Real> entry(-1, 1);
  const auto n = Eigen::Index(count);
  GroupDense j(n, 6);
  for (Eigen::Index r = 0; r < n; ++r)
    for (Eigen::Index c = 0; c < 6; ++c)
      j(r, c) = entry(rng);
  return j * j.transpose();
}

/// A group's matrix by columns (zero past count) from a dense one.
inline GroupMatrix by_columns(const GroupDense& a) {
  GroupMatrix columns{};
  for (Eigen::Index c = 0; c < a.cols(); ++c)
    for (Eigen::Index r = 0; r < a.rows(); ++r)
      columns[std::size_t(c)][std::size_t(r)] = a(r, c);
  return columns;
}

inline Lanes lanes_of_vector(const GroupVector& v) {
  Lanes out{};
  for (Eigen::Index r = 0; r < v.size(); ++r)
    out[std::size_t(r)] = v(r);
  return out;
}

/// The rows whose bits are set, as solve_active takes them.
inline std::array<bool, k_g> set_of(unsigned bits) {
  return {(bits & 1u) != 0, (bits & 2u) != 0, (bits & 4u) != 0, (bits & 8u) != 0};
}

/// An LCP of `count` rows whose one solution pushes exactly the rows of `pushing`: a random
/// group's matrix a, impulses of at least 0.5 on the pushing rows and velocity errors of at least
/// 0.5 on the others after it, the errors before it w taken from a random nonnegative start.
struct GuessProblem {
  GroupDense a;
  GroupVector solution, start, w;
};

inline GuessProblem guess_problem(std::mt19937& rng, std::size_t count,
                                  const std::array<bool, k_g>& pushing) {
  std::uniform_real_distribution<Real> positive(Real(0.5), 2);
  const auto n = Eigen::Index(count);
  GuessProblem p;
  p.a = random_group_matrix(rng, count);
  p.solution = GroupVector::Zero(n);
  p.start = GroupVector::Zero(n);
  GroupVector errors_after = GroupVector::Zero(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    (pushing[std::size_t(r)] ? p.solution(r) : errors_after(r)) = positive(rng);
    p.start(r) = positive(rng) - Real(0.5);
  }
  p.w = errors_after - p.a * (p.solution - p.start);
  return p;
}

}  // namespace impulse
