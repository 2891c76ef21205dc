#pragma once
// Assembling the rows into seed 000's matrices: J (rows x 6 bodies), B = M^-1 J^T, the soft rows'
// diagonal and b = bias - J v, with Eigen storage. Used by the global and pivoting solvers.

#include "solver/solver.h"

#include <Eigen/Dense>
#include <Eigen/Sparse>

namespace impulse {

using DenseMatrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
using SparseMatrix = Eigen::SparseMatrix<Real, Eigen::RowMajor>;
using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

struct AssembledSystem {
  std::vector<std::uint32_t> bodies;  // column block k of J belongs to solver body bodies[k]
  SparseMatrix j;
  SparseMatrix b_matrix;  // M^-1 J^T
  SparseMatrix softness;  // diag(softness) over the usable rows: the matrix is J M^-1 J^T + this
  Vector b;               // bias - J v at the velocities given to assemble_system
};

/// Assembles the rows over the bodies they touch (only those: columns stay compact).
AssembledSystem assemble_system(const RowStore& rows, const SolverBodies& bodies);

/// A = J M^-1 J^T + diag(softness), sparse.
SparseMatrix system_matrix(const AssembledSystem& system);

/// v += M^-1 J^T lambda.
void apply_impulses(const AssembledSystem& system, const Vector& lambda,
                    std::span<BodyVelocity> velocities);

}  // namespace impulse
