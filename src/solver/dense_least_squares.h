#pragma once
// Minimum-norm least-squares solves of small dense square systems in storage kept between solves:
// the dense MLCP's (dense_mlcp.h) free rows, whose block is singular wherever contacts outnumber
// the degrees of freedom they hold (a box on four points), and its friction loop's coupled
// systems. Allocation-free once the storage has grown (issue 8: a warmed-up step allocates
// nothing), where Eigen's decompositions allocate for every new size and in their solves.
//
// Both factor with pivoting that reveals the rank k of the m x m matrix: each step takes the
// largest remaining pivot and the factorisation stops where that is at most a tolerance times
// the first. With P the pivoting's permutation of the unknowns, the factored rows are
// [F1 F2] P^T (F1 k x k, triangular), and their null space is spanned by the columns of P N,
// N = [X; I] with X = -F1^-1 F2 (k x (m - k)). A basic solution y_B solves with F1 and leaves the
// last m - k unknowns 0; the minimum-norm solution is y_B less its projection onto the null space,
// P N (N^T N)^-1 N^T P^T y_B (N^T N = I + X^T X, factored by Cholesky). At full rank there is no
// null space and y_B is the solution.
//  - SemiDefiniteSystem, symmetric positive semi-definite S: pivoted LDL^T (Higham, "Accuracy and
//    Stability of Numerical Algorithms", 10.3), pivoting on the Schur complement's largest
//    diagonal, which for a semi-definite matrix bounds its entries: P^T S P = [L1; L2] D
//    [L1^T L2^T] + (the dropped complement), F1 = L1^T, F2 = L2^T. Its range is orthogonal to its
//    null space, so a right-hand side's part outside the range is its null-space projection.
//  - GeneralSystem, any square M: Householder QR with column pivoting (Golub and Van Loan 5.4.1),
//    pivoting on the largest remaining column norm: M P = Q [R1 R2; 0 ~0], F = [R1 R2]; y_B
//    solves R1 y1 = (Q^T g)_1, the least-squares solution (Eigen's CompleteOrthogonalDecomposition,
//    used before, is the same factorisation with the null space taken by a second QR).

#include <Eigen/Dense>

#include <span>
#include <vector>

namespace impulse {

// The storage and the null-space part both share.
class PivotedFactor {
 public:
  /// The rank found: the size when the matrix is non-singular to the tolerance.
  Eigen::Index rank() const { return rank_; }
  Eigen::Index size() const { return size_; }
  /// Storage for systems of up to n unknowns: factoring one then allocates nothing.
  void reserve(Eigen::Index n);

 protected:
  void grow(Eigen::Index m);  // reserve(m); size() = m; the pivoting's order the identity
  /// From X in factor_'s rows 0 to k - 1, columns k to m - 1: N^T N's Cholesky factor below it.
  void factor_null_space();
  void gather(const Eigen::Ref<const Eigen::VectorXd>& r);  // r's entries in pivoted order
  void scatter(const Eigen::VectorXd& v, Eigen::Ref<Eigen::VectorXd> out) const;
  /// permuted_ less its null-space part, when the rank is short.
  void take_off_null_part();
  void project_onto_null_space();  // projected_ <- N (N^T N)^-1 N^T permuted_

  // The factor in pivoted order: its k x k triangle F1 and what each solve needs below it; X in
  // rows 0 to k - 1, columns k to m - 1, and N^T N's Cholesky factor in the lower triangle of
  // rows and columns k to m - 1.
  Eigen::MatrixXd factor_;
  Eigen::VectorXd pivot_;            // per pivot: D (LDL^T), the Householder coefficient (QR)
  Eigen::VectorXd permuted_;         // a right-hand side or a solution, in pivoted order
  Eigen::VectorXd projected_;        // permuted_ projected onto the null space
  Eigen::VectorXd coefficients_;     // that projection's (N^T N)^-1 N^T permuted_ (m - k entries)
  Eigen::VectorXd remaining_;        // the pivot candidates: Schur diagonal, column norms
  std::vector<Eigen::Index> order_;  // pivoted unknown i is unknown order_[i]
  Eigen::Index size_ = 0, rank_ = 0;
};

class SemiDefiniteSystem : public PivotedFactor {
 public:
  /// Factors the symmetric part ((a + a^T) / 2) of a's rows and columns `index` (m of them),
  /// treating a Schur complement whose largest diagonal is at most rank_tolerance times the first
  /// pivot as zero. Allocates only when m exceeds every m factored before.
  void factor(const Eigen::MatrixXd& a, std::span<const Eigen::Index> index, double rank_tolerance);
  /// out <- the part of r in the null space (zero at full rank); m entries each, may alias.
  void null_part(const Eigen::Ref<const Eigen::VectorXd>& r, Eigen::Ref<Eigen::VectorXd> out);
  /// out <- the minimum-norm d with S d = r, for r in S's range (take null_part off first); m
  /// entries each, may alias.
  void solve(const Eigen::Ref<const Eigen::VectorXd>& r, Eigen::Ref<Eigen::VectorXd> out);
};

class GeneralSystem : public PivotedFactor {
 public:
  /// The m x m matrix M to fill before factor(); allocates only when m exceeds every m before.
  Eigen::Block<Eigen::MatrixXd> matrix(Eigen::Index m);
  /// Factors M in place, a remaining column norm of at most rank_tolerance times the first
  /// pivot's counting as zero. Once for each matrix() filled.
  void factor(double rank_tolerance);
  /// out <- the minimum-norm least-squares solution of M y = g; m entries each, may alias.
  void solve(const Eigen::Ref<const Eigen::VectorXd>& g, Eigen::Ref<Eigen::VectorXd> out);
};

}  // namespace impulse
