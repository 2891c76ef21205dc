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

TEST(GroupGuess, TheRightGuessGivesTheLcpsSolutionAndEveryOtherIsRefused) {
  std::mt19937 rng(5);
  for (std::size_t count = 2; count <= k_g; ++count) {
    const unsigned all = (1u << count) - 1;
    for (unsigned pushing = 1; pushing < all; ++pushing) {
      for (int trial = 0; trial < 20; ++trial) {
        SCOPED_TRACE(testing::Message()
                     << count << " rows, pushing " << pushing << ", trial " << trial);
        const GuessProblem p = guess_problem(rng, count, set_of(pushing));
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
  const GuessProblem p = guess_problem(rng, 3, set_of(0b011u));
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
