// A group's guess (solve_active): given which rows push, the impulses of the group's LCP if the
// guess is its solution, and a refusal that leaves the impulses alone if it is not.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <random>

#include "solver/group_solve.h"
#include "solver/random_group.h"

namespace impulse {
namespace {

using Matrix = GroupDense;
using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

// A group's matrix by columns (zero past count) from a dense one.
GroupMatrix by_columns(const Matrix& a) {
  GroupMatrix columns{};
  for (Eigen::Index c = 0; c < a.cols(); ++c)
    for (Eigen::Index r = 0; r < a.rows(); ++r)
      columns[std::size_t(c)][std::size_t(r)] = a(r, c);
  return columns;
}

// An LCP of `count` rows whose one solution pushes exactly the rows of `pushing`: a random
// group's matrix (random_group_matrix), impulses of at least 0.5 on the pushing rows and velocity
// errors of at least 0.5 on the others after it, the errors before it w taken from a random
// nonnegative start.
struct Problem {
  Matrix a;
  Vector solution, start, w;
};

Problem problem_with(std::mt19937& rng, std::size_t count, const std::array<bool, k_g>& pushing) {
  std::uniform_real_distribution<Real> positive(Real(0.5), 2);
  const auto n = Eigen::Index(count);
  Problem p;
  p.a = random_group_matrix(rng, count);
  p.solution = Vector::Zero(n);
  p.start = Vector::Zero(n);
  Vector errors_after = Vector::Zero(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    (pushing[std::size_t(r)] ? p.solution(r) : errors_after(r)) = positive(rng);
    p.start(r) = positive(rng) - Real(0.5);
  }
  p.w = errors_after - p.a * (p.solution - p.start);
  return p;
}

Lanes lanes_of_vector(const Vector& v) {
  Lanes out{};
  for (Eigen::Index r = 0; r < v.size(); ++r)
    out[std::size_t(r)] = v(r);
  return out;
}

std::array<bool, k_g> set_of(unsigned bits) {
  return {(bits & 1u) != 0, (bits & 2u) != 0, (bits & 4u) != 0, (bits & 8u) != 0};
}

TEST(GroupGuess, TheRightGuessGivesTheLcpsSolutionAndEveryOtherIsRefused) {
  std::mt19937 rng(5);
  for (std::size_t count = 2; count <= k_g; ++count) {
    const unsigned all = (1u << count) - 1;
    for (unsigned pushing = 1; pushing < all; ++pushing) {
      for (int trial = 0; trial < 20; ++trial) {
        SCOPED_TRACE(testing::Message()
                     << count << " rows, pushing " << pushing << ", trial " << trial);
        const Problem p = problem_with(rng, count, set_of(pushing));
        const GroupMatrix a = by_columns(p.a);
        const Lanes start = lanes_of_vector(p.start), w = lanes_of_vector(p.w);
        for (unsigned guess = 1; guess < all; ++guess) {
          Lanes lambda = start;
          const bool kept = solve_active(a, count, set_of(guess), lambda, w);
          if (guess != pushing) {
            // One solution (J J^T is positive definite): any other guess breaks a condition.
            EXPECT_FALSE(kept) << "guess " << guess;
            for (std::size_t r = 0; r < k_g; ++r)
              EXPECT_EQ(lambda[r], start[r]) << "guess " << guess << ", row " << r;
            continue;
          }
          ASSERT_TRUE(kept);
          // The solution to the diagonal's relative 1e-5 and the rounding, through the matrix's
          // condition; zero past count.
          const Real scale = p.solution.cwiseAbs().maxCoeff();
          for (Eigen::Index r = 0; r < Eigen::Index(count); ++r)
            EXPECT_NEAR(lambda[std::size_t(r)], p.solution(r), Real(2e-3) * scale) << "row " << r;
          for (std::size_t r = count; r < k_g; ++r)
            EXPECT_EQ(lambda[r], 0);
        }
      }
    }
  }
}

TEST(GroupGuess, NoneOrAllRowsAndNonFiniteErrorsAreRefused) {
  std::mt19937 rng(9);
  const Problem p = problem_with(rng, 3, set_of(0b011u));
  const GroupMatrix a = by_columns(p.a);
  const Lanes start = lanes_of_vector(p.start);
  Lanes w = lanes_of_vector(p.w);
  for (const unsigned guess : {0u, 0b111u}) {
    Lanes lambda = start;
    EXPECT_FALSE(solve_active(a, 3, set_of(guess), lambda, w)) << guess;
  }
  w[1] = std::numeric_limits<Real>::quiet_NaN();
  Lanes lambda = start;
  EXPECT_FALSE(solve_active(a, 3, set_of(0b011u), lambda, w));
  for (std::size_t r = 0; r < k_g; ++r)
    EXPECT_EQ(lambda[r], start[r]);
}

}  // namespace
}  // namespace impulse
