#include "solver/disc_mlcp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace impulse {
namespace {

using Eigen::Index;
using Eigen::Matrix2d;
using Eigen::MatrixXd;
using Eigen::Vector2d;
using Eigen::VectorXd;

// A pair within its disc to this relative excess has its frame within about 1.4e-5 rad of its
// impulse: the excess is half the square of the angle.
constexpr double k_disc_tolerance = 1e-10;
constexpr double k_inf = std::numeric_limits<double>::infinity();

double radius_of(const MlcpProblem& p, const VectorXd& x, int first) {
  const int normal = p.normal_index.empty() ? -1 : p.normal_index[std::size_t(first)];
  return normal >= 0 ? p.mu[first] * normal_load(p, x, first) : p.hi[first];
}

// A disc pair's own block K of A (symmetrised), as its eigenvalues and eigenvectors: the same in
// every sweep and round of a solve, so decomposed once.
struct PairBlock {
  Vector2d values;
  Matrix2d vectors;
};

PairBlock pair_block(const MlcpProblem& problem, Index p) {
  const Matrix2d k = 0.5 * (problem.a.block<2, 2>(p, p) + problem.a.block<2, 2>(p, p).transpose());
  const Eigen::SelfAdjointEigenSolver<Matrix2d> eigen(k);
  return {eigen.eigenvalues(), eigen.eigenvectors()};
}

// argmin 1/2 x'Kx - g'x over |x| <= r, K symmetric positive semi-definite 2 x 2 (the trust-region
// subproblem): x = (K + nu I)^-1 g with nu >= 0, and |x| = r when nu > 0. Newton's method on
// 1/|x(nu)| - 1/r, which is concave in nu, rises monotonically to the root from a nu at or below
// it (More and Sorensen, 1983).
Vector2d disc_minimizer(const PairBlock& block, const Vector2d& g, double r) {
  if (!(r > 0)) return Vector2d::Zero();  // an unloaded contact carries no friction
  const Vector2d& e = block.values;
  const Vector2d c = block.vectors.transpose() * g;
  const auto x_at = [&](double nu) {
    Vector2d y;
    for (int d = 0; d < 2; ++d)
      y[d] = c[d] == 0 ? 0 : c[d] / (e[d] + nu);
    return y;
  };
  // |x(nu)| >= |c| / (e_max + nu), so the root is not below |c| / r - e_max.
  double nu = std::max({0.0, c.norm() / r - e[1], -e[0] + 1e-12 * std::abs(e[1])});
  Vector2d y = x_at(nu);
  if (nu == 0 && y.norm() <= r) return block.vectors * y;
  for (int step = 0; step < 60 && std::abs(y.norm() - r) > 1e-14 * r; ++step) {
    const double length = y.norm();
    double curvature = 0;  // y' (K + nu I)^-1 y
    for (int d = 0; d < 2; ++d)
      curvature += y[d] * y[d] / (e[d] + nu);
    nu += length * length / curvature * (length - r) / r;
    y = x_at(nu);
  }
  return block.vectors * y;
}

Vector2d clamp_to_disc(const Vector2d& t, double r) {
  return t.norm() > r ? Vector2d(t * (r / t.norm())) : t;
}

// The best impulse of the pair at row p (its block as pair_block) with every other row fixed (g =
// b_p - A_p,rest x_rest).
Vector2d pair_minimizer(const MlcpProblem& problem, const PairBlock& block, const VectorXd& x,
                        Index p, double r) {
  const Vector2d g = problem.b.segment<2>(p) - problem.a.middleRows<2>(p) * x +
                     problem.a.block<2, 2>(p, p) * x.segment<2>(p);
  return disc_minimizer(block, g, r);
}

// Rows' roles in the sweeps: a plain row, the second row of a pair, or (>= 0) a pair's first row.
constexpr int k_plain_row = -1;
constexpr int k_second_row = -2;
constexpr int k_sweeps_per_round = 100;

// Projected block Gauss-Seidel in double: each plain row clamped to its bounds (friction: mu times
// the current normal impulse), each disc pair set to its exact disc solution with the rest fixed.
// Convergent for positive definite A and fixed radii; it gives the frames a start near the
// solution.
void disc_sweeps(const MlcpProblem& problem, const std::vector<int>& role,
                 const std::vector<PairBlock>& blocks, VectorXd& x) {
  const Index n = x.size();
  for (int sweep = 0; sweep < k_sweeps_per_round; ++sweep) {
    const VectorXd before = x;
    for (Index i = 0; i < n; ++i) {
      if (role[std::size_t(i)] == k_second_row) continue;
      if (const int pair = role[std::size_t(i)]; pair >= 0) {
        x.segment<2>(i) =
            pair_minimizer(problem, blocks[std::size_t(pair)], x, i, radius_of(problem, x, int(i)));
        continue;
      }
      const double a_ii = problem.a(i, i);
      if (!(a_ii > 0)) continue;
      const int normal = problem.normal_index.empty() ? -1 : problem.normal_index[std::size_t(i)];
      const double limit = normal >= 0 ? problem.mu[i] * normal_load(problem, x, i) : 0;
      const double lo = normal >= 0 ? -limit : problem.lo[i];
      const double hi = normal >= 0 ? limit : problem.hi[i];
      x[i] = std::clamp(x[i] + (problem.b[i] - problem.a.row(i).dot(x)) / a_ii, lo, hi);
    }
    // Settled (at once for a lone pair, as in a block of two): the frames are as good as they get.
    if ((x - before).lpNorm<Eigen::Infinity>() <= 1e-14 * x.lpNorm<Eigen::Infinity>()) return;
  }
}

struct Frame {
  double c = 1, s = 0;  // u = (c, s) in the pair's own row axes, u_perp = (-s, c)
};

// The problem in the pairs' frames: rows p, p + 1 become u and u_perp, A -> R^T A R, b -> R^T b.
void rotate(MatrixXd& a, VectorXd& b, std::span<const int> pairs,
            const std::vector<Frame>& frames) {
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Index p = pairs[k];
    const double c = frames[k].c, s = frames[k].s;
    const VectorXd row1 = a.row(p), row2 = a.row(p + 1);
    a.row(p) = c * row1 + s * row2;
    a.row(p + 1) = -s * row1 + c * row2;
    const VectorXd col1 = a.col(p), col2 = a.col(p + 1);
    a.col(p) = c * col1 + s * col2;
    a.col(p + 1) = -s * col1 + c * col2;
    const double b1 = b[p], b2 = b[p + 1];
    b[p] = c * b1 + s * b2;
    b[p + 1] = -s * b1 + c * b2;
  }
}

// x in the rows' axes -> x in the frames (or back, with to_rows).
void rotate(VectorXd& x, std::span<const int> pairs, const std::vector<Frame>& frames,
            bool to_rows) {
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const Index p = pairs[k];
    const double c = frames[k].c, s = to_rows ? -frames[k].s : frames[k].s;
    const double x1 = x[p], x2 = x[p + 1];
    x[p] = c * x1 + s * x2;
    x[p + 1] = -s * x1 + c * x2;
  }
}

}  // namespace

MlcpResult solve_dense_mlcp_with_discs(const MlcpProblem& problem, std::span<const int> disc_pairs,
                                       const VectorXd* initial_guess) {
  if (disc_pairs.empty()) return solve_dense_mlcp(problem, initial_guess);
  const Index n = problem.a.rows();
  for (const int p : disc_pairs) {
    if (p < 0 || p + 1 >= n || problem.b.size() != n) {
      MlcpResult rejected;
      rejected.lambda = VectorXd::Zero(n);
      rejected.failure = "disc pair at row " + std::to_string(p) + " is outside the problem";
      return rejected;
    }
  }
  std::vector<int> role(std::size_t(n), k_plain_row);
  for (std::size_t k = 0; k < disc_pairs.size(); ++k) {
    role[std::size_t(disc_pairs[k])] = int(k);
    role[std::size_t(disc_pairs[k]) + 1] = k_second_row;
  }
  std::vector<Frame> frames(disc_pairs.size());
  std::vector<PairBlock> blocks(disc_pairs.size());
  for (std::size_t k = 0; k < disc_pairs.size(); ++k)
    blocks[k] = pair_block(problem, disc_pairs[k]);
  VectorXd x = initial_guess != nullptr ? *initial_guess : VectorXd::Zero(n);
  MlcpResult result;
  MlcpProblem turned = problem;
  // Turning the frames (A -> R^T A R) keeps A's eigenvalues: measured once, not every round; its
  // other facts (asymmetry, norm) are the turned A's own.
  turned.matrix_facts.reset();
  if (problem.matrix_facts && problem.matrix_facts->size == n) {
    turned.spectrum = problem.matrix_facts->spectrum;
  } else if (!turned.spectrum && problem.a.cols() == n && problem.a.allFinite()) {
    turned.spectrum = mlcp_spectrum(problem.a);
  }
  bool sweep = true;
  double last_excess = k_inf;
  for (int round = 0; round < k_max_disc_rounds; ++round) {
    if (sweep) {
      disc_sweeps(problem, role, blocks, x);
      for (std::size_t k = 0; k < disc_pairs.size(); ++k) {
        const Vector2d t = x.segment<2>(disc_pairs[k]);
        if (t.norm() > 0) frames[k] = {t[0] / t.norm(), t[1] / t.norm()};
      }
    }
    turned.a = problem.a;
    turned.b = problem.b;
    rotate(turned.a, turned.b, disc_pairs, frames);
    rotate(x, disc_pairs, frames, false);
    const int pivots = result.pivots;
    result = solve_dense_mlcp(turned, &x);
    result.pivots += pivots;
    x = result.lambda;
    rotate(x, disc_pairs, frames, true);
    result.lambda = x;
    if (!result.solved) return result;
    double excess = 0;  // the largest |lambda_pair| / r - 1
    for (const int p : disc_pairs) {
      const double r = radius_of(problem, x, p), length = x.segment<2>(p).norm();
      if (length > 0) excess = std::max(excess, r > 0 ? length / r - 1 : k_inf);
    }
    if (excess <= k_disc_tolerance) return result;
    // Turning each frame to its pair's own disc solution converges fast near the solution but can
    // cycle far from it; when it does not halve the excess, sweeps from the clamped iterate first.
    sweep = !(excess < 0.5 * last_excess);
    last_excess = excess;
    for (std::size_t k = 0; k < disc_pairs.size(); ++k) {
      const int p = disc_pairs[k];
      const double r = radius_of(problem, x, p);
      if (sweep) {
        x.segment<2>(p) = clamp_to_disc(x.segment<2>(p), r);
      } else if (x.segment<2>(p).norm() > r * (1 + k_disc_tolerance)) {
        const Vector2d u = pair_minimizer(problem, blocks[k], x, p, r);
        if (u.norm() > 0) frames[k] = {u[0] / u.norm(), u[1] / u.norm()};
      }
    }
  }
  for (const int p : disc_pairs)
    x.segment<2>(p) = clamp_to_disc(x.segment<2>(p), radius_of(problem, x, p));
  result.lambda = x;
  result.solved = false;
  result.failure =
      "the disc pairs' frames did not settle in " + std::to_string(k_max_disc_rounds) + " rounds";
  return result;
}

void solve_dense_mlcp_with_discs(const MlcpProblem& problem, std::span<const int> disc_pairs,
                                 const VectorXd* initial_guess, MlcpWorkspace& workspace,
                                 MlcpResult& result) {
  if (disc_pairs.empty()) {
    solve_dense_mlcp(problem, initial_guess, workspace, result);
  } else {
    result = solve_dense_mlcp_with_discs(problem, disc_pairs, initial_guess);
  }
}

}  // namespace impulse
