// Every iterative solver against the pivoting reference on 200 random feasible MLCPs made of rows
// (seeded): equality, contact and box rows and friction coupled to contacts, between bodies of
// random mass and inertia; some with redundant rows, so A = J M^-1 J^T is only semi-definite.

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include <random>
#include <span>

#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::RowProblem;

// Iteration budgets documented in docs/solvers.md: what each solver needs on these problems.
int iteration_budget(SolverType type) {
  return type == SolverType::jacobi ? 20000 : 2000;
}

struct RandomMlcp {
  RowProblem problem;
  bool positive_definite = false;
};

class MlcpGenerator {
 public:
  explicit MlcpGenerator(unsigned seed) : rng_(seed) {}

  RandomMlcp next(bool semi_definite) {
    RandomMlcp out;
    RowProblem& p = out.problem;
    p.add_body(0);  // the world
    const int body_count = uniform_int(2, 4);
    for (int k = 0; k < body_count; ++k) {
      const Real mass = uniform(Real(0.5), 5);
      const Quat axes =
          normalize(Quat{uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)});
      const Mat33 r = to_matrix(axes);
      const Vec3 moments{uniform(Real(0.2), 2), uniform(Real(0.2), 2), uniform(Real(0.2), 2)};
      p.masses.push_back(
          {1 / mass,
           r * Mat33::diagonal({1 / moments.x, 1 / moments.y, 1 / moments.z}) * transpose(r)});
      p.velocities.push_back({random_vec(), random_vec()});
    }
    const int row_count = uniform_int(3, 2 * body_count + 2);
    for (int i = 0; i < row_count; ++i)
      add_random_row(p, body_count);
    if (semi_definite) {
      // Duplicate a few rows exactly: consistent redundancy, as a table on six legs.
      const int copies = uniform_int(1, 2);
      for (int c = 0; c < copies; ++c) {
        const std::size_t src = std::size_t(uniform_int(0, int(p.rows.size()) - 1));
        if (p.rows.normal_row[src] >= 0) continue;
        RowSpec copy = spec_of(p.rows, src);
        p.rows.add(copy);
      }
    }
    p.rows.prepare(p.masses);
    out.positive_definite = min_eigenvalue(p) > 1e-3;
    return out;
  }

 private:
  Real uniform(Real lo, Real hi) { return std::uniform_real_distribution<Real>(lo, hi)(rng_); }
  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  Vec3 random_vec() { return {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)}; }

  static RowSpec spec_of(const RowStore& rows, std::size_t i) {
    RowSpec s;
    s.body_a = rows.body_a[i];
    s.body_b = rows.body_b[i];
    s.j_lin_a = rows.j_lin_a(i);
    s.j_ang_a = rows.j_ang_a(i);
    s.j_lin_b = rows.j_lin_b(i);
    s.j_ang_b = rows.j_ang_b(i);
    s.bias = rows.bias[i];
    s.lo = rows.lo[i];
    s.hi = rows.hi[i];
    return s;
  }

  void add_random_row(RowProblem& p, int body_count) {
    RowSpec row;
    row.body_a = std::uint32_t(uniform_int(1, body_count));
    row.body_b = std::uint32_t(uniform_int(0, body_count));
    if (row.body_b == row.body_a) row.body_b = 0;
    row.j_lin_a = random_vec();
    row.j_ang_a = random_vec();
    if (row.body_b != 0) {
      row.j_lin_b = random_vec();
      row.j_ang_b = random_vec();
    }
    row.bias = uniform(-1, 1);
    const int kind = uniform_int(0, 3);
    if (kind == 1) row.lo = 0;  // contact
    if (kind == 2) {            // box, as a motor with bounded force
      row.hi = uniform(Real(0.1), 2);
      row.lo = -row.hi;
    }
    if (kind == 3) {  // friction on an earlier contact row, same bodies
      for (std::size_t n = 0; n < p.rows.size(); ++n) {
        if (p.rows.lo[n] == 0 && p.rows.hi[n] == k_infinity && p.rows.normal_row[n] < 0) {
          row.body_a = p.rows.body_a[n];
          row.body_b = p.rows.body_b[n];
          if (row.body_b == 0) row.j_lin_b = row.j_ang_b = Vec3::zero();
          row.normal_row = std::int32_t(n);
          row.mu = uniform(Real(0.1), 1);
          break;
        }
      }
    }
    p.rows.add(row);
  }

  static double min_eigenvalue(const RowProblem& p) {
    const auto n = Eigen::Index(p.rows.size());
    Eigen::MatrixXd a(n, n);
    RowStore rows = p.rows;
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < n; ++j) {
        double sum = 0;
        const auto ii = std::size_t(i), jj = std::size_t(j);
        if (rows.body_a[ii] == rows.body_a[jj])
          sum += dot(rows.j_lin_a(ii), rows.b_lin_a(jj)) + dot(rows.j_ang_a(ii), rows.b_ang_a(jj));
        if (rows.body_a[ii] == rows.body_b[jj])
          sum += dot(rows.j_lin_a(ii), rows.b_lin_b(jj)) + dot(rows.j_ang_a(ii), rows.b_ang_b(jj));
        if (rows.body_b[ii] == rows.body_a[jj])
          sum += dot(rows.j_lin_b(ii), rows.b_lin_a(jj)) + dot(rows.j_ang_b(ii), rows.b_ang_a(jj));
        if (rows.body_b[ii] == rows.body_b[jj])
          sum += dot(rows.j_lin_b(ii), rows.b_lin_b(jj)) + dot(rows.j_ang_b(ii), rows.b_ang_b(jj));
        a(i, j) = sum;
      }
    }
    const double scale = a.diagonal().maxCoeff();
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues().minCoeff() / scale;
  }

  std::mt19937 rng_;
};

double relative_difference(std::span<const Real> a, std::span<const Real> b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += double(a[i] - b[i]) * double(a[i] - b[i]);
    norm += double(b[i]) * double(b[i]);
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), 1e-6);
}

TEST(RandomMlcp, IterativeSolversReachThePivotingSolutionWithinTheirBudgets) {
  MlcpGenerator generator(20261122);
  int unique = 0;
  for (int n = 0; n < 200; ++n) {
    const RandomMlcp instance = generator.next(/*semi_definite=*/n % 4 == 3);
    RowProblem reference = instance.problem;
    const SolveStats exact = reference.solve(SolverType::pivoting, testing::iterations(1));
    ASSERT_EQ(exact.status, SolveStatus::ok) << "problem " << n << ": " << exact.diagnostic;
    EXPECT_LT(exact.complementarity_error, 1e-4) << "problem " << n;
    unique += instance.positive_definite;
    for (SolverType type : {SolverType::pgs, SolverType::global_dense, SolverType::global_sparse,
                            SolverType::jacobi, SolverType::block}) {
      RowProblem p = instance.problem;
      SolverSettings settings = testing::iterations(iteration_budget(type));
      settings.tolerance = Real(1e-7);
      const SolveStats stats = p.solve(type, settings);
      const std::string label =
          std::string(solver_type_name(type)) + " on problem " + std::to_string(n);
      ASSERT_EQ(stats.status, SolveStatus::ok) << label;
      for (std::size_t i = 0; i < p.rows.size(); ++i) {
        const Real slack = Real(1e-5) * std::max(Real(1), std::abs(p.rows.lambda[i]));
        EXPECT_GE(p.rows.lambda[i], p.rows.lower(i) - slack) << label << " row " << i;
        EXPECT_LE(p.rows.lambda[i], p.rows.upper(i) + slack) << label << " row " << i;
      }
      EXPECT_LT(stats.complementarity_error, 1e-3) << label;
      if (instance.positive_definite) {
        EXPECT_LT(relative_difference(p.rows.lambda, reference.rows.lambda), 1e-4)
            << label << " after " << stats.iterations << " iterations";
      }
    }
  }
  EXPECT_GT(unique, 100);  // most problems have a unique solution to compare against
}

}  // namespace
}  // namespace impulse
