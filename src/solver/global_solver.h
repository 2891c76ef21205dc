#pragma once

#include "solver/solver.h"

namespace impulse {

/// Seed 000's global method: assemble J, M^-1, A = J M^-1 J^T and b = bias - J v (the Baumgarte
/// term is in the rows' bias), run projected Gauss-Seidel on the assembled matrix, then apply
/// v += M^-1 J^T lambda. Dense or sparse Eigen storage. Problems beyond the size limit or with
/// non-finite entries are refused and reported; rows with a zero diagonal are skipped.
class GlobalSolver final : public Solver {
 public:
  explicit GlobalSolver(bool sparse) : sparse_(sparse) {}
  SolverType type() const override {
    return sparse_ ? SolverType::global_sparse : SolverType::global_dense;
  }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;

 private:
  bool sparse_;
};

/// Largest system the dense global solver assembles (A takes rows^2 Reals: 64 MiB in float).
inline constexpr std::size_t k_max_dense_global_rows = 4096;
/// Largest system the sparse global solver assembles.
inline constexpr std::size_t k_max_sparse_global_rows = 1u << 20;

}  // namespace impulse
