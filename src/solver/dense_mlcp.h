#pragma once
// A direct solver for small dense mixed LCPs (seed 001 section 7.3): the reference the iterative
// solvers are compared against, and the per-block solve of the block Gauss-Seidel solver.
//
// With A symmetric positive semi-definite and fixed bounds, the MLCP is the optimality (KKT)
// system of  min 1/2 x'Ax - b'x  subject to  lo <= x <= hi,  with w = Ax - b the gradient. The
// solver is a primal active-set method on that problem (rows at lo, rows at hi, free rows): each
// pivot solves the free rows' system (pivoted, rank-revealing LDL^T: dense_least_squares.h; the
// minimum-norm solution when that block is singular) and either stops at the first bound on the way
// or releases the bound row whose w has the most wrong sign. For positive definite A it terminates
// in finitely many pivots unless degenerate (zero-length) steps repeat; a least-index (Bland) rule
// after 5 n + 10 pivots guards against that, and a limit of 50 n + 100 pivots ends it with a
// failure.
//
// A assembled in single precision is only near symmetric and, where J M^-1 J^T is singular,
// indefinite by about 1e-7 of its largest eigenvalue. The solver measures that noise (asymmetry,
// negative eigenvalues), treats pivots and residuals below a multiple of it as zero, and checks
// the result to the same level; for exact double-precision data the tolerances are unchanged.
//
// Friction rows make the bounds depend on the solution, and the problem is no longer convex. An
// outer loop holds the friction limits fixed, solves, and moves the limits toward mu times the
// normal impulses found (the fixed-point iteration), until they move by less than 1e-12 |lambda|
// (or the noise level of A).
// Since that iteration diverges when friction feeds back into the normal impulse by more than it
// takes out, each round also tries Newton's method on the piecewise-linear coupled system (exact
// solves of the active set's linear system with lambda_t = -/+ mu lambda_n, active sets updated
// by the primal-dual rule) and takes damped Newton steps on the limits when the plain step does
// not shrink the gap. It has no termination guarantee: after 50 rounds it reports failure. On
// random positive definite problems that is rare; jammed contacts (more rows than degrees of
// freedom, normals from all sides) fail more often.
//
// Cost: O(n^3) per pivot, O(n) pivots typical: about 0.1 s for 300 rows and several seconds for
// 1000 on one core.

#include <Eigen/Dense>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace impulse {

/// The smallest and largest eigenvalues of the symmetric part of A (mlcp_spectrum).
struct MlcpSpectrum {
  double smallest = 0, largest = 0;
};

/// What solve_dense_mlcp checks and measures of A alone before it solves (mlcp_matrix_facts).
struct MlcpMatrixFacts {
  Eigen::Index size = 0;  ///< A's rows: facts of another size are not A's, and not used
  MlcpSpectrum spectrum;
  double asymmetry = 0;  ///< the largest |a_ij - a_ji|
  double norm = 0;       ///< |A|, the largest absolute row sum
};

/// w = A lambda - b, lo <= lambda <= hi, and per row: lambda_i = lo_i => w_i >= 0;
/// lambda_i = hi_i => w_i <= 0; lo_i < lambda_i < hi_i => w_i = 0 (seed 001 section 7.3).
/// A friction row (normal_index[i] >= 0) has lo_i = -mu_i * lambda_n and hi_i = +mu_i * lambda_n
/// instead of its own lo/hi (which are then ignored), lambda_n the sum of lambda over its normal
/// rows normal_index[i] to normal_index[i] + normal_count[i] - 1 (one row when normal_count is
/// empty). The normal rows of a friction row must have their own bounds and lo >= 0, so their
/// impulses are never negative; mu_i must be finite and >= 0.
struct MlcpProblem {
  Eigen::MatrixXd a;  // symmetric positive semi-definite (J M^-1 J^T)
  Eigen::VectorXd b;
  Eigen::VectorXd lo, hi;         // may hold -inf / +inf
  std::vector<int> normal_index;  // -1 for rows with their own bounds; empty = none coupled
  std::vector<int> normal_count;  // per row, >= 1 where normal_index >= 0; empty = all 1
  Eigen::VectorXd mu;  // used only where normal_index >= 0 (may be empty when none coupled)
  /// mlcp_spectrum(a) when the caller has it (an O(n^3) eigensolve a caller solving many problems
  /// with one A makes once), or semi_definite_spectrum(a) when A is positive semi-definite by
  /// construction; empty: solve_dense_mlcp measures it.
  std::optional<MlcpSpectrum> spectrum;
  /// mlcp_matrix_facts(a) made by a caller that solves many problems with one A (the block solver
  /// visits each block every iteration with other b and bounds): solve_dense_mlcp then skips its
  /// O(n^2) checks and measures of A (then `spectrum` is not read); ExactBlock makes them for its
  /// blocks (the block solver's, the mass-ratio islands'). The caller's promise that A is the
  /// matrix they were made for; facts of another size are ignored.
  std::optional<MlcpMatrixFacts> matrix_facts;
};

struct MlcpResult {
  Eigen::VectorXd lambda;
  /// true: lambda meets the conditions, checked: mlcp_complementarity_error <= tol max(|b|,
  /// |A| |lambda|) (infinity norms; |A| the largest absolute row sum) with tol = 1e-9, or 100
  /// times the noise of A when larger (see above). false: `failure` says why; lambda is the best
  /// iterate, within bounds, or all zeros when the input was rejected.
  bool solved = false;
  int pivots = 0;  // active-set changes made, including rows switched by Newton steps
  std::string failure;
};

/// The spectrum solve_dense_mlcp measures A's noise with (its definiteness and rounding); the
/// same for A and R^T A R with R orthogonal, to rounding.
MlcpSpectrum mlcp_spectrum(const Eigen::MatrixXd& a);

/// The spectrum of an A positive semi-definite by construction (J M^-1 J^T + diag(softness)) for
/// MlcpProblem::spectrum or mlcp_matrix_facts, without the O(n^3) eigensolve: smallest 0 and
/// largest bounded by |A| (the largest absolute row sum), so that the solver takes A's asymmetry
/// against |A| for its noise. Measured on the mass-ratio islands: a 1000 kg box on eight unit boxes
/// (108 rows) steps in 0.81 ms instead of 1.39, its 600 steps all solved either way.
MlcpSpectrum semi_definite_spectrum(const Eigen::MatrixXd& a);

/// A's part of solve_dense_mlcp's checks (finite entries, a positive diagonal, symmetric and
/// positive semi-definite to rounding) and its measures, the spectrum given (MlcpProblem::spectrum)
/// or measured (mlcp_spectrum); nothing where solve_dense_mlcp would reject A (it says why) or A
/// is empty.
/// O(n^2) with a spectrum given.
std::optional<MlcpMatrixFacts> mlcp_matrix_facts(const Eigen::MatrixXd& a,
                                                 const std::optional<MlcpSpectrum>& spectrum = {});

/// The dense factorizations cost O(n^3) per pivot; beyond this, use an iterative solver.
inline constexpr int k_max_direct_mlcp_rows = 1000;

/// Friction row i's normal impulse: x summed over its normal rows (MlcpProblem), never below 0.
double normal_load(const MlcpProblem& problem, const Eigen::VectorXd& x, Eigen::Index i);

/// Scratch kept between solves by a caller that solves again and again (ExactBlock: the block
/// solver's blocks, pgs's mass-ratio islands, each kept by row count: ExactBlockPool): a problem of
/// as many rows as the last one it solved is solved without allocating, on the box problem's path
/// and the friction loop's fixed-point and Newton steps (a problem of another size resizes its
/// vectors). Still allocating: the friction loop's last search after its rounds run out (its
/// active sets and trial iterates, by value), and failures' texts. A copy starts empty: scratch is
/// no state.
class MlcpWorkspace {
 public:
  struct Scratch;  // dense_mlcp.cpp
  MlcpWorkspace();
  ~MlcpWorkspace();
  MlcpWorkspace(const MlcpWorkspace&);
  MlcpWorkspace& operator=(const MlcpWorkspace&);
  MlcpWorkspace(MlcpWorkspace&&) noexcept;
  MlcpWorkspace& operator=(MlcpWorkspace&&) noexcept;
  Scratch& scratch();  // made at first use

 private:
  std::unique_ptr<Scratch> scratch_;
};

/// Solves the MLCP. The initial guess (if any) is clamped into the bounds and its rows at a bound
/// start in the active set, so a guess near the solution needs few pivots.
/// Rejected (solved = false) with the offending entry named: mismatched sizes, more than
/// k_max_direct_mlcp_rows rows, non-finite entries in A, b, mu or the guess, NaN bounds, lo > hi,
/// a zero or negative diagonal entry of A, A asymmetric by more than 1e-5 sqrt(a_ii a_jj) or with
/// an eigenvalue below -1e-5 times its largest (more than rounding), a bad normal_index or
/// normal_count.
/// Fails (solved = false) on: no solution (rows whose impulses can grow without bound while
/// lowering the objective: A singular and b outside its range there), the pivot limit or the
/// friction round limit reached, or a result that does not pass the final check.
MlcpResult solve_dense_mlcp(const MlcpProblem& problem,
                            const Eigen::VectorXd* initial_guess = nullptr);
/// The same into a result the caller keeps, with its scratch (MlcpWorkspace).
void solve_dense_mlcp(const MlcpProblem& problem, const Eigen::VectorXd* initial_guess,
                      MlcpWorkspace& workspace, MlcpResult& result);

/// The largest violation of the conditions above for a given lambda, in the units of w:
///   max_i |a_ii lambda_i - mid(a_ii lo_i, a_ii hi_i, a_ii lambda_i - w_i)|,
/// the natural residual scaled by the diagonal. It is |w_i| for a row well inside its bounds, the
/// wrong-signed part of w_i for a row at a bound, at least a_ii times the distance for a row
/// outside its bounds, and for a row near a bound the smaller of |w_i| and a_ii times its
/// distance to the bound. 0 for an exact solution; +inf when the problem is malformed (any reason
/// solve_dense_mlcp rejects it but the size limit and a negative eigenvalue) or lambda has the
/// wrong size or a non-finite entry. Friction bounds use max(lambda_normal, 0): a negative normal
/// impulse counts on its row.
double mlcp_complementarity_error(const MlcpProblem& problem, const Eigen::VectorXd& lambda);

}  // namespace impulse
