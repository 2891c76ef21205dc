#include "solver/global_solver.h"

#include "solver/assembly.h"
#include "solver/residual.h"
#include "solver/row_order.h"

#include <algorithm>

namespace impulse {
namespace {

using LambdaView = Eigen::Map<Vector>;

Real row_dot(const DenseMatrix& a, Eigen::Index i, const LambdaView& x) {
  return a.row(i).dot(x);
}
Real row_dot(const SparseMatrix& a, Eigen::Index i, const LambdaView& x) {
  Real sum = 0;
  for (SparseMatrix::InnerIterator it(a, i); it; ++it)
    sum += it.value() * x[it.col()];
  return sum;
}

template <typename Matrix>
bool all_finite(const Matrix& m) {
  if constexpr (std::is_same_v<Matrix, SparseMatrix>) {
    for (Eigen::Index k = 0; k < m.outerSize(); ++k) {
      for (typename Matrix::InnerIterator it(m, k); it; ++it) {
        if (!is_finite(it.value())) return false;
      }
    }
    return true;
  } else {
    return m.allFinite();
  }
}

// Projected Gauss-Seidel on A lambda = b (seed 000), A = J M^-1 J^T + diag(softness): lambda_i +=
// sor (b_i - A_i lambda) / A_ii, clamped to the row's bounds, which for friction rows follow the
// current normal impulse. A disc pair steps as in pgs_solver.cpp, with its step from A's 2 x 2
// block, and is clamped to the disc.
template <typename Matrix>
void projected_gauss_seidel(const Matrix& a, const Vector& b, RowStore& rows,
                            const SolverSettings& settings, Real b_norm, SolveStats& stats) {
  const Eigen::Index m = Eigen::Index(rows.size());
  LambdaView lambda(rows.lambda.data(), m);  // friction bounds read the normal impulses in place
  const Vector diagonal = a.diagonal();
  Vector pair_step = Vector::Zero(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    if (rows.disc_first(std::size_t(i)))
      pair_step[i] = disc_pair_step(diagonal[i], a.coeff(i, i + 1), diagonal[i + 1]);
  }
  const auto w_of = [&](std::size_t i) {
    const Eigen::Index k = Eigen::Index(i);
    return diagonal[k] > 0 ? row_dot(a, k, lambda) - b[k] : Real(0);
  };
  if (measures_every_iteration(settings))
    stats.initial_residual = measure_rows(rows, w_of, b_norm).relative_residual;
  RowOrder order(rows.size(), settings.shuffle);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = 0;
    for (const std::uint32_t r : order.next()) {
      const Eigen::Index i = r;
      if (rows.disc_second(r)) continue;  // stepped with its first row
      if (rows.disc_first(r)) {
        if (!(pair_step[i] > 0)) continue;
        const Real step = settings.sor * pair_step[i];
        const TangentPair next = project_to_disc(
            {lambda[i] - step * w_of(r), lambda[i + 1] - step * w_of(r + 1)}, rows.disc_radius(r));
        max_delta =
            std::max({max_delta, std::abs(next.t1 - lambda[i]), std::abs(next.t2 - lambda[i + 1])});
        lambda[i] = next.t1;
        lambda[i + 1] = next.t2;
        continue;
      }
      if (!(diagonal[i] > 0)) continue;
      const Real target = lambda[i] + settings.sor * (b[i] - row_dot(a, i, lambda)) / diagonal[i];
      const Real clamped = std::clamp(target, rows.lower(r), rows.upper(r));
      max_delta = std::max(max_delta, std::abs(clamped - lambda[i]));
      lambda[i] = clamped;
    }
    const auto measure = [&] { return measure_rows(rows, w_of, b_norm); };
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
}

template <typename Matrix>
void solve_global(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                  SolveStats& stats, std::size_t max_rows) {
  begin_stats(stats, rows);
  if (rows.size() == 0) return;
  if (rows.size() > max_rows) {
    stats.status = SolveStatus::refused;
    stats.diagnostic = std::to_string(rows.size()) + " rows exceed the limit of " +
                       std::to_string(max_rows) + " for this solver";
    return;
  }
  const AssembledSystem system = assemble_system(rows, bodies);
  const Vector& b = system.b;
  Matrix a;
  if constexpr (std::is_same_v<Matrix, SparseMatrix>) {
    a = system_matrix(system).pruned();
  } else {
    a = DenseMatrix(system.j) * DenseMatrix(system.b_matrix);
    a += system.softness;
  }
  const Eigen::Index m = Eigen::Index(rows.size());
  // Seed 000, "Why do solvers break?": refuse what would poison the solve rather than crash.
  if (!all_finite(a) || !b.allFinite()) {
    stats.status = SolveStatus::refused;
    stats.diagnostic = "the assembled system holds a non-finite entry";
    return;
  }
  stats.degenerate_rows = 0;  // judged on the assembled diagonal
  for (Eigen::Index i = 0; i < m; ++i) {
    if (!(a.coeff(i, i) > 0)) ++stats.degenerate_rows;
  }
  if (!settings.warm_start) std::fill(rows.lambda.begin(), rows.lambda.end(), Real(0));
  projected_gauss_seidel(a, b, rows, settings,
                         std::max(Real(b.norm()), std::numeric_limits<Real>::min()), stats);

  apply_impulses(system, Eigen::Map<const Vector>(rows.lambda.data(), m), bodies.velocities);
}

}  // namespace

void GlobalSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                         SolveStats& stats) {
  if (sparse_) {
    solve_global<SparseMatrix>(rows, bodies, settings, stats, k_max_sparse_global_rows);
  } else {
    solve_global<DenseMatrix>(rows, bodies, settings, stats, k_max_dense_global_rows);
  }
}

}  // namespace impulse
