// The rank-revealing solves against the closed forms they must meet: the minimum-norm
// least-squares solution (the pseudo-inverse's, from an eigen- or singular value decomposition),
// the null-space part of a right-hand side, the rank; the semi-definite one on a subset of a larger
// matrix's rows, as the dense MLCP's free rows take it.

#include "solver/dense_least_squares.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace impulse {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// A random symmetric positive semi-definite n x n matrix of the given rank: B B^T, B n x rank.
MatrixXd semi_definite(Index n, Index rank, std::mt19937& random) {
  std::normal_distribution<double> normal;
  MatrixXd b(n, rank);
  for (Index i = 0; i < b.size(); ++i)
    b.data()[i] = normal(random);
  return b * b.transpose();
}

// The pseudo-inverse's solution of S d = r and r's part in S's null space, from S's eigenvectors
// (eigenvalues below 1e-9 of the largest taken as zero).
struct ClosedForm {
  VectorXd minimum_norm, null_part;
};
ClosedForm closed_form(const MatrixXd& s, const VectorXd& r) {
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(s);
  const double largest = eigen.eigenvalues().cwiseAbs().maxCoeff();
  ClosedForm result{VectorXd::Zero(r.size()), VectorXd::Zero(r.size())};
  for (Index i = 0; i < r.size(); ++i) {
    const VectorXd v = eigen.eigenvectors().col(i);
    const double lambda = eigen.eigenvalues()[i];
    if (lambda > 1e-9 * largest) {
      result.minimum_norm += v.dot(r) / lambda * v;
    } else {
      result.null_part += v.dot(r) * v;
    }
  }
  return result;
}

TEST(SemiDefiniteSystem, AFullRankSystemIsSolvedExactly) {
  std::mt19937 random(1);
  const MatrixXd s = semi_definite(7, 12, random);
  const std::vector<Index> all{0, 1, 2, 3, 4, 5, 6};
  const VectorXd r = VectorXd::LinSpaced(7, -1, 2);
  SemiDefiniteSystem system;
  system.factor(s, all, 1e-12);
  EXPECT_EQ(system.rank(), 7);
  VectorXd null_part(7), d(7);
  system.null_part(r, null_part);
  EXPECT_EQ(null_part.lpNorm<Eigen::Infinity>(), 0);
  system.solve(r, d);
  EXPECT_LT((s * d - r).lpNorm<Eigen::Infinity>(), 1e-10 * r.lpNorm<Eigen::Infinity>());
}

// Four contacts on a box hold three degrees of freedom: a rank-deficient block, whose
// minimum-norm least-squares solution and null-space part the closed form gives.
TEST(SemiDefiniteSystem, ASingularSystemGivesTheMinimumNormSolutionAndTheNullPart) {
  std::mt19937 random(2);
  for (const Index rank : {1, 3, 5, 8}) {
    const MatrixXd s = semi_definite(9, rank, random);
    const std::vector<Index> all{0, 1, 2, 3, 4, 5, 6, 7, 8};
    const VectorXd r = VectorXd::LinSpaced(9, 3, -2);
    SemiDefiniteSystem system;
    system.factor(s, all, 1e-10);
    EXPECT_EQ(system.rank(), rank);
    const ClosedForm expected = closed_form(s, r);
    VectorXd null_part(9), d(9);
    system.null_part(r, null_part);
    EXPECT_LT((null_part - expected.null_part).lpNorm<Eigen::Infinity>(), 1e-9) << rank;
    const VectorXd in_range = r - null_part;
    system.solve(in_range, d);
    EXPECT_LT((d - expected.minimum_norm).lpNorm<Eigen::Infinity>(),
              1e-8 * expected.minimum_norm.lpNorm<Eigen::Infinity>())
        << rank;
    EXPECT_LT((s * d - in_range).lpNorm<Eigen::Infinity>(), 1e-9) << rank;
  }
}

// Rows picked out of a larger matrix, in any order, of an asymmetric matrix whose symmetric part
// is semi-definite (single-precision rounding): the symmetric part of that block is solved. One
// system factors problems of several sizes in turn, growing its storage once.
TEST(SemiDefiniteSystem, SolvesTheSymmetricPartOfAnyRowsOfALargerMatrix) {
  std::mt19937 random(3);
  MatrixXd a = semi_definite(10, 4, random);
  const MatrixXd upper = MatrixXd(MatrixXd::Ones(10, 10).triangularView<Eigen::StrictlyUpper>());
  const MatrixXd skew = 1e-3 * upper;
  a += skew - MatrixXd(skew.transpose());
  SemiDefiniteSystem system;
  for (const std::vector<Index>& rows :
       {std::vector<Index>{9, 2, 5}, std::vector<Index>{0, 1, 2, 3, 4, 5, 6, 7},
        std::vector<Index>{7, 3, 1, 8, 6}}) {
    const Index m = Index(rows.size());
    MatrixXd block(m, m);
    for (Index i = 0; i < m; ++i) {
      for (Index j = 0; j < m; ++j)
        block(i, j) = 0.5 * (a(rows[std::size_t(i)], rows[std::size_t(j)]) +
                             a(rows[std::size_t(j)], rows[std::size_t(i)]));
    }
    const VectorXd r = VectorXd::LinSpaced(m, 1, 2);
    system.factor(a, rows, 1e-10);
    EXPECT_EQ(system.rank(), std::min<Index>(m, 4));
    const ClosedForm expected = closed_form(block, r);
    VectorXd null_part(m), d(m);
    system.null_part(r, null_part);
    system.solve(r - null_part, d);
    EXPECT_LT((null_part - expected.null_part).lpNorm<Eigen::Infinity>(), 1e-9) << m;
    EXPECT_LT((d - expected.minimum_norm).lpNorm<Eigen::Infinity>(), 1e-8) << m;
  }
}

// The friction loop's coupled systems: square, not symmetric, often singular. Against the
// pseudo-inverse's solution of an inconsistent right-hand side (a singular value decomposition).
TEST(GeneralSystem, GivesThePseudoInversesSolution) {
  std::mt19937 random(4);
  std::normal_distribution<double> normal;
  GeneralSystem system;
  for (const auto& [m, rank] : {std::pair<Index, Index>{6, 6}, {9, 4}, {3, 1}, {12, 11}}) {
    MatrixXd b(m, rank), c(m, rank);
    for (Index i = 0; i < b.size(); ++i) {
      b.data()[i] = normal(random);
      c.data()[i] = normal(random);
    }
    const MatrixXd matrix = b * c.transpose();
    VectorXd g(m);
    for (Index i = 0; i < m; ++i)
      g[i] = normal(random);
    system.matrix(m) = matrix;
    system.factor(1e-10);
    EXPECT_EQ(system.rank(), rank) << m;
    VectorXd y(m);
    system.solve(g, y);
    Eigen::JacobiSVD<MatrixXd> svd(matrix, Eigen::ComputeFullU | Eigen::ComputeFullV);
    svd.setThreshold(1e-10);
    const VectorXd expected = svd.solve(g);
    EXPECT_LT((y - expected).lpNorm<Eigen::Infinity>(),
              1e-8 * std::max(1.0, expected.lpNorm<Eigen::Infinity>()))
        << m << " rows of rank " << rank;
  }
}

// The edges: a zero matrix (rank 0: the minimum-norm least-squares solution is 0), and one unknown
// of either sign.
TEST(GeneralSystem, AZeroMatrixGivesZeroAndOneUnknownItsQuotient) {
  GeneralSystem system;
  system.matrix(3).setZero();
  system.factor(1e-10);
  EXPECT_EQ(system.rank(), 0);
  const VectorXd g = VectorXd::LinSpaced(3, 1, 3);
  VectorXd y(3);
  system.solve(g, y);
  EXPECT_EQ(y, VectorXd::Zero(3));
  for (const double entry : {2.0, -4.0}) {
    system.matrix(1)(0, 0) = entry;
    system.factor(1e-10);
    EXPECT_EQ(system.rank(), 1);
    VectorXd one(1);
    system.solve(VectorXd::Constant(1, 3.0), one);
    EXPECT_DOUBLE_EQ(one[0], 3.0 / entry);
  }
}

}  // namespace
}  // namespace impulse
