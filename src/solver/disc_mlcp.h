#pragma once
// The direct solver with cone friction (rows.h: disc pairs). A disc is no polyhedron, so the
// active-set method of dense_mlcp.h cannot take it as it is; instead each disc pair gets a tangent
// frame (u, u_perp) in which it is solved as an ordinary box pair, and the frames are turned until
// every pair's box solution lies in its disc. Then the solution meets the disc conditions exactly:
// a pair inside the disc has both w = 0 (its rows are free in the box); a pair on the rim has
// lambda = +-r u with lambda_perp = 0 strictly inside its box, so w_perp = 0 and w opposes lambda
// along u (maximal dissipation). No polygon approximates the disc.
//
// The frames come from up to 100 sweeps of projected block Gauss-Seidel in double (each pair set to
// its exact disc solution with the rest fixed: a 2 x 2 trust-region problem, (K + nu I) x = g with
// |x| = r), then each round solves the box problem in the frames (solve_dense_mlcp, warm started)
// and turns the frames of the pairs that left their discs to their own disc solutions. That
// converges fast near the solution but can cycle far from it (pairs at their box corners), so a
// round that does not halve the largest excess is followed by more sweeps instead. Rotating a
// pair's rows by R turns A into R^T A R: A stays symmetric and the friction coupling to the normal
// row is unchanged. There is no convergence proof; after k_max_disc_rounds it reports failure
// with the pairs clamped to their discs. Measured: all of 200 random contact problems solved.

#include "solver/dense_mlcp.h"

#include <span>

namespace impulse {

/// Rounds of frame turning before solve_dense_mlcp_with_discs gives up.
inline constexpr int k_max_disc_rounds = 50;

/// Solves the MLCP of dense_mlcp.h where, for each p in disc_pairs, rows p and p + 1 are a disc
/// pair: |(lambda_p, lambda_p+1)| <= r with r = mu_p lambda_n (its normal rows' impulse,
/// MlcpProblem) when the pair is coupled to normal rows of the problem, else r = hi_p (a fixed
/// radius; lo_p = -hi_p). Both rows of a pair must have the same normal rows, mu and bounds. Solved
/// means the box conditions for the other rows and the disc conditions for the pairs hold, each
/// pair within its disc to a relative 1e-10.
MlcpResult solve_dense_mlcp_with_discs(const MlcpProblem& problem, std::span<const int> disc_pairs,
                                       const Eigen::VectorXd* initial_guess = nullptr);
/// The same into a result the caller keeps, with its scratch (MlcpWorkspace); without disc pairs
/// it is solve_dense_mlcp's, whose allocations it shares; the disc pairs' rounds allocate.
void solve_dense_mlcp_with_discs(const MlcpProblem& problem, std::span<const int> disc_pairs,
                                 const Eigen::VectorXd* initial_guess, MlcpWorkspace& workspace,
                                 MlcpResult& result);

}  // namespace impulse
