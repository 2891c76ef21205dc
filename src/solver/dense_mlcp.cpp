#include "solver/dense_mlcp.h"

#include "solver/dense_least_squares.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace impulse {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double k_inf = std::numeric_limits<double>::infinity();

// A may be asymmetric by this fraction of sqrt(a_ii a_jj), and its symmetric part have
// eigenvalues down to minus this fraction of the largest, as rounding in a single-precision
// J M^-1 J^T makes them; beyond that it is rejected.
constexpr double k_input_tolerance = 1e-5;
constexpr int k_max_friction_rounds = 50;
// Newton steps on the coupled problem per round of the fixed-point loop.
constexpr int k_max_newton_steps = 10;
// A step of length s on the friction limits is taken when it shrinks their gap to those the
// normal impulses imply by the factor 1 - k_sufficient_decrease s; Newton steps are halved down
// to k_min_newton_step.
constexpr double k_sufficient_decrease = 0.5;
constexpr double k_min_newton_step = 1.0 / 4;
// A failed friction loop's last search (search_neighbours) goes two rows off its active sets up
// to this many rows (2n + 2n^2 solves of the coupled system, each O(n^3)), one row (2n solves) up
// to the second bound, and not at all beyond: the pivoting solver's whole systems of up to 1000
// rows would take millions of solves.
constexpr Index k_max_rows_two_off = 24;
constexpr Index k_max_rows_one_off = 64;

// Relative tolerances: the larger of a default for exact data and a multiple of the noise in A,
// its largest asymmetry or negative eigenvalue against its largest eigenvalue. A singular
// J M^-1 J^T assembled in single precision has eigenvalues of about -1e-7 that the solver must
// not take for curvature (the reduced problems would not be convex), nor its residuals for
// errors.
struct Tolerances {
  explicit Tolerances(double noise)
      : sign(std::max(1e-11, 10 * noise)),
        consistency(std::max(1e-10, 30 * noise)),
        verify(std::max(1e-9, 100 * noise)),
        rank(std::max(1e-12, 10 * noise)),
        bound(std::max(1e-12, 100 * noise)) {}
  // Against the scale of w, max(|b|, |A| |x|) (infinity norms, |A| the largest row sum):
  double sign;         // a bound row whose w has the wrong sign by more is released
  double consistency;  // the right-hand side's part in the free block's null space above this:
                       // no minimum on the face
  double verify;       // the final check of the conditions (mlcp_complementarity_error)
  // Against the first (largest) pivot:
  double rank;  // the free rows' factorisation stops where the pivots fall below this
  // Against |lambda|:
  double bound;  // friction bounds have settled when they move by less
};

enum class RowState : std::uint8_t { free, lower, upper };

// |A|: the largest absolute row sum, a bound on A's largest eigenvalue.
double largest_row_sum(const MatrixXd& a) {
  return a.cwiseAbs().rowwise().sum().maxCoeff();
}

std::string number(double value) {
  std::ostringstream text;
  text.precision(10);
  text << value;
  return text.str();
}

bool is_friction(const MlcpProblem& problem, Index i) {
  return !problem.normal_index.empty() && problem.normal_index[std::size_t(i)] >= 0;
}

Index normal_of(const MlcpProblem& problem, Index i) {
  return problem.normal_index[std::size_t(i)];
}

Index normal_count_of(const MlcpProblem& problem, Index i) {
  return problem.normal_count.empty() ? 1 : problem.normal_count[std::size_t(i)];
}

// A's entries: finite, a positive diagonal, symmetric to rounding. Empty when they are.
std::string check_matrix(const MatrixXd& a) {
  const Index n = a.rows();
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < n; ++i) {
      if (!std::isfinite(a(i, j))) {
        return "A(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + number(a(i, j)) +
               " is not finite";
      }
    }
  }
  for (Index i = 0; i < n; ++i) {
    // Seed 000, "Why do solvers break?": a zero diagonal means a row that moves nothing.
    if (!(a(i, i) > 0)) {
      return "A(" + std::to_string(i) + ", " + std::to_string(i) + ") = " + number(a(i, i)) +
             " is not positive: the diagonal of J M^-1 J^T must be, or the row acts on no body";
    }
  }
  for (Index j = 0; j < n; ++j) {
    for (Index i = j + 1; i < n; ++i) {
      // |a_ij| <= sqrt(a_ii a_jj) for a PSD matrix, so that is the scale of rounding in a_ij.
      const double bound = std::sqrt(a(i, i) * a(j, j));
      if (std::abs(a(i, j) - a(j, i)) > k_input_tolerance * bound) {
        return "A is not symmetric: A(" + std::to_string(i) + ", " + std::to_string(j) +
               ") = " + number(a(i, j)) + " but A(" + std::to_string(j) + ", " + std::to_string(i) +
               ") = " + number(a(j, i));
      }
    }
  }
  return {};
}

// A's measures (MlcpMatrixFacts), its spectrum given or measured.
MlcpMatrixFacts measure_matrix(const MatrixXd& a, const std::optional<MlcpSpectrum>& spectrum) {
  return {a.rows(), spectrum ? *spectrum : mlcp_spectrum(a),
          (a - a.transpose()).cwiseAbs().maxCoeff(), largest_row_sum(a)};
}

// Whether the problem's facts are A's to use (MlcpProblem::matrix_facts).
bool holds_facts(const MlcpProblem& p) {
  return p.matrix_facts && p.matrix_facts->size == p.a.rows();
}

// The failure for a spectrum more negative than rounding makes; empty for one that is not.
std::string check_spectrum(const MlcpSpectrum& spectrum) {
  if (spectrum.smallest >= -k_input_tolerance * spectrum.largest) return {};
  return "A is not positive semi-definite: an eigenvalue of " + number(spectrum.smallest) +
         " against a largest of " + number(spectrum.largest);
}

// Everything but the size limit and definiteness, which only the solver checks; A's entries only
// where the problem holds no MlcpMatrixFacts of A's size (made by mlcp_matrix_facts, which checked
// them). Empty when the problem is usable.
std::string check_problem(const MlcpProblem& p) {
  const Index n = p.a.rows();
  const bool sizes_match = p.a.cols() == n && p.b.size() == n && p.lo.size() == n &&
                           p.hi.size() == n &&
                           (p.normal_index.empty() || Index(p.normal_index.size()) == n) &&
                           (p.normal_count.empty() || Index(p.normal_count.size()) == n);
  if (!sizes_match) {  // (a stream costs a locale: built only when needed)
    std::ostringstream why;
    if (p.a.cols() != n) {
      why << "A is " << n << " x " << p.a.cols() << "; it must be square";
    } else if (p.b.size() != n) {
      why << "b has " << p.b.size() << " entries for " << n << " rows";
    } else if (p.lo.size() != n || p.hi.size() != n) {
      why << "lo and hi have " << p.lo.size() << " and " << p.hi.size() << " entries for " << n
          << " rows";
    } else if (!p.normal_index.empty() && Index(p.normal_index.size()) != n) {
      why << "normal_index has " << p.normal_index.size() << " entries for " << n
          << " rows (expected 0 or " << n << ")";
    } else if (!p.normal_count.empty() && Index(p.normal_count.size()) != n) {
      why << "normal_count has " << p.normal_count.size() << " entries for " << n
          << " rows (expected 0 or " << n << ")";
    }
    return why.str();
  }

  bool coupled = false;
  for (Index i = 0; i < n; ++i) {
    coupled = coupled || is_friction(p, i);
  }
  if (coupled && p.mu.size() != n) {
    return "mu has " + std::to_string(p.mu.size()) + " entries for " + std::to_string(n) + " rows";
  }
  if (!holds_facts(p)) {
    std::string why = check_matrix(p.a);
    if (!why.empty()) return why;
  }
  for (Index i = 0; i < n; ++i) {
    if (!std::isfinite(p.b(i))) {
      return "b(" + std::to_string(i) + ") = " + number(p.b(i)) + " is not finite";
    }
  }
  for (Index i = 0; i < n; ++i) {
    // Formatted only on failure, as every text here: this runs on every block solver's visit.
    const auto row = [i] { return std::to_string(i); };
    if (is_friction(p, i)) {
      const Index first = normal_of(p, i), count = normal_count_of(p, i);
      const auto naming = [&] {
        return "normal_index[" + row() + "] = " + std::to_string(first) + " with normal_count " +
               std::to_string(count);
      };
      if (count < 1) return naming() + ": a friction row needs at least one normal row";
      if (first > n - count)
        return naming() + " runs past the last row (" + std::to_string(n - 1) + ")";
      for (Index k = first; k < first + count; ++k) {
        if (k == i || is_friction(p, k)) {
          return naming() + " names row " + std::to_string(k) +
                 ": it must be another row that is not a friction row itself";
        }
        if (!(p.lo(k) >= 0)) {
          return "friction row " + row() + " follows row " + std::to_string(k) +
                 ", whose lo = " + number(p.lo(k)) +
                 " allows a negative normal impulse (lo >= 0 required)";
        }
      }
      if (!std::isfinite(p.mu(i)) || p.mu(i) < 0) {
        return "mu(" + row() + ") = " + number(p.mu(i)) + " must be finite and non-negative";
      }
      continue;  // its own lo and hi are not used
    }
    if (!p.normal_index.empty() && p.normal_index[std::size_t(i)] != -1) {
      return "normal_index[" + row() + "] = " + std::to_string(p.normal_index[std::size_t(i)]) +
             " must be -1 or a row index";
    }
    if (std::isnan(p.lo(i)) || std::isnan(p.hi(i)) || p.lo(i) == k_inf || p.hi(i) == -k_inf) {
      return "row " + row() + " has bounds [" + number(p.lo(i)) + ", " + number(p.hi(i)) +
             "]: lo must be below +inf and hi above -inf, neither NaN";
    }
    if (p.lo(i) > p.hi(i)) {
      std::string message = "lo(" + row() + ") = ";
      message += number(p.lo(i));
      message += " > hi(" + row() + ") = ";
      message += number(p.hi(i));
      return message;
    }
  }
  return {};
}

// Friction row i's limit x implies: mu_i times its normal impulse (normal_load).
double implied_limit(const MlcpProblem& p, const VectorXd& x, Index i) {
  return p.mu(i) * normal_load(p, x, i);
}

// The limits x implies, into `limits`: implied_limit for the friction rows, 0 for the others.
void implied_limits(const MlcpProblem& p, const VectorXd& x, VectorXd& limits) {
  limits.resize(x.size());
  for (Index i = 0; i < x.size(); ++i)
    limits(i) = is_friction(p, i) ? implied_limit(p, x, i) : 0.0;
}

// Sets the bounds of the friction rows from the normal impulses in x.
void update_friction_bounds(const MlcpProblem& p, const VectorXd& x, VectorXd& lo, VectorXd& hi) {
  for (Index i = 0; i < x.size(); ++i) {
    if (!is_friction(p, i)) continue;
    hi(i) = implied_limit(p, x, i);
    lo(i) = -hi(i);
  }
}

double clamp(double v, double lo, double hi) {
  return std::min(std::max(v, lo), hi);
}

// w <- A x - b, into w's storage (no temporary for the product).
void gradient(const MatrixXd& a, const VectorXd& b, const VectorXd& x, VectorXd& w) {
  w.noalias() = a * x;
  w -= b;
}

// max_i |a_ii x_i - mid(a_ii lo_i, a_ii hi_i, a_ii x_i - w_i)|; needs a positive diagonal. w:
// scratch.
double natural_residual(const MatrixXd& a, const VectorXd& b, const VectorXd& lo,
                        const VectorXd& hi, const VectorXd& x, VectorXd& w) {
  gradient(a, b, x, w);
  double error = 0;
  for (Index i = 0; i < x.size(); ++i) {
    const double d = a(i, i);
    const double v = d * x(i);
    const double row = std::abs(v - clamp(v - w(i), d * lo(i), d * hi(i)));
    if (!(row <= error)) error = row;  // a NaN kept (it compares as neither), no check passes it
    if (std::isnan(error)) break;
  }
  return error;
}

// Where the solver stands: impulses, the active set, and the bounds they were solved with.
struct Iterate {
  VectorXd x, lo, hi;
  std::vector<RowState> state;
};

}  // namespace

// Kept between solves: copying an iterate into one of these, or a vector of the problem's size
// into another, allocates nothing once it has held one of that size (prepare).
struct MlcpWorkspace::Scratch {
  Iterate it;
  Iterate plain, trial;  // the friction loop's candidate steps
  VectorXd w;            // A x - b
  VectorXd step;         // the free rows' step (solve_box) or impulses (solve_coupled), m entries
  VectorXd null_part;    // of the free rows' right-hand side (m entries)
  VectorXd residual;     // natural_residual's w
  // The friction loop's: its limits, their gap to those x implies, the Newton root, trials.
  VectorXd limits, gap, jump, implied, plain_limits, direction, trial_limits;
  std::vector<Index> free_rows;  // solve_box's free rows, solve_coupled's unknowns
  SemiDefiniteSystem free_block;
  // The Newton steps' (solve_active_set, solve_coupled): the iterate they try, x before settling,
  // its w and limits, the next active set and those tried (entries kept, counted per solve), the
  // last active set a failed solve stood at, each row's unknown, and the coupled system.
  Iterate newton;
  VectorXd unsettled, newton_w, newton_limits;
  std::vector<RowState> next, last_tried;
  std::vector<std::vector<RowState>> tried;
  std::vector<Index> column;
  GeneralSystem coupled;

  // Everything sized for n rows up front, whichever paths a solve takes: the first solve of n
  // rows allocates, the next ones do not (nor repeat the sizing: a block solver's every visit).
  void prepare(Index n) {
    if (n == prepared_rows) return;
    prepared_rows = n;
    for (VectorXd* v :
         {&w, &step, &null_part, &residual, &limits, &gap, &jump, &implied, &plain_limits,
          &direction, &trial_limits, &unsettled, &newton_w, &newton_limits})
      v->resize(n);
    for (Iterate* iterate : {&it, &plain, &trial, &newton}) {
      iterate->x.resize(n);
      iterate->lo.resize(n);
      iterate->hi.resize(n);
      iterate->state.reserve(std::size_t(n));
    }
    for (std::vector<RowState>* states : {&next, &last_tried})
      states->reserve(std::size_t(n));
    tried.resize(std::max(tried.size(), std::size_t(k_max_newton_steps)));
    for (std::vector<RowState>& states : tried)
      states.reserve(std::size_t(n));
    free_rows.reserve(std::size_t(n));
    column.reserve(std::size_t(n));
    // Room for every row at once: the free rows' count moves from pivot to pivot.
    free_block.reserve(n);
    coupled.reserve(n);
  }
  Index prepared_rows = -1;
};

MlcpWorkspace::MlcpWorkspace() = default;
MlcpWorkspace::~MlcpWorkspace() = default;
MlcpWorkspace::MlcpWorkspace(const MlcpWorkspace&) {}
MlcpWorkspace& MlcpWorkspace::operator=(const MlcpWorkspace&) {
  return *this;
}
MlcpWorkspace::MlcpWorkspace(MlcpWorkspace&&) noexcept = default;
MlcpWorkspace& MlcpWorkspace::operator=(MlcpWorkspace&&) noexcept = default;

MlcpWorkspace::Scratch& MlcpWorkspace::scratch() {
  if (!scratch_) scratch_ = std::make_unique<Scratch>();
  return *scratch_;
}

namespace {

// The active set a feasible x implies: rows on a bound are on it (a fixed row counts as lower).
void states_from(Iterate& it) {
  it.state.resize(std::size_t(it.x.size()));
  for (Index i = 0; i < it.x.size(); ++i) {
    it.state[std::size_t(i)] = it.x(i) == it.lo(i)   ? RowState::lower
                               : it.x(i) == it.hi(i) ? RowState::upper
                                                     : RowState::free;
  }
}

// Puts x on the bounds its state names and the free rows within theirs, own-bound rows first so
// the friction bounds follow the final normal impulses.
void settle(const MlcpProblem& p, Iterate& it) {
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) update_friction_bounds(p, it.x, it.lo, it.hi);
    for (Index i = 0; i < it.x.size(); ++i) {
      if (is_friction(p, i) != (pass == 1)) continue;
      const RowState s = it.state[std::size_t(i)];
      it.x(i) = s == RowState::lower   ? it.lo(i)
                : s == RowState::upper ? it.hi(i)
                                       : clamp(it.x(i), it.lo(i), it.hi(i));
    }
  }
}

// One solve of a validated, non-empty problem.
class DenseMlcpSolver {
 public:
  // The noise of A: its asymmetry or negative eigenvalue against its largest eigenvalue.
  DenseMlcpSolver(const MlcpProblem& p, const MlcpMatrixFacts& facts,
                  MlcpWorkspace::Scratch& scratch)
      : p_(p),
        a_norm_(facts.norm),
        tolerances_(std::max(-facts.spectrum.smallest, facts.asymmetry) / facts.spectrum.largest),
        s_(scratch) {}

  // Solves from the iterate (x feasible, its active set); returns the failure text, empty on
  // success, with the iterate settled on its bounds either way.
  std::string solve(Iterate& it) {
    bool coupled = false;
    for (Index i = 0; i < it.x.size(); ++i) {
      coupled = coupled || is_friction(p_, i);
    }
    std::string why = coupled ? solve_friction(it) : solve_box(it);
    settle(p_, it);
    if (why.empty() && !passes_check(it)) {
      why = "the result fails the final check: complementarity error " +
            number(natural_residual(p_.a, p_.b, it.lo, it.hi, it.x, s_.residual)) + " exceeds " +
            number(tolerances_.verify * w_scale(it.x)) + " (A badly conditioned?)";
    }
    return why;
  }

  int pivots() const { return pivots_; }

 private:
  double w_scale(const VectorXd& x) const {
    return std::max(p_.b.lpNorm<Eigen::Infinity>(), a_norm_ * x.lpNorm<Eigen::Infinity>());
  }

  bool passes_check(const Iterate& it) {
    return natural_residual(p_.a, p_.b, it.lo, it.hi, it.x, s_.residual) <=
           tolerances_.verify * w_scale(it.x);
  }

  // The step d from x toward the minimum of the objective over the free rows (the others fixed):
  // A_FF d = r with r = -w_F, given in d. Returns false with d that step, or true when the
  // objective is unbounded below on this face (r not in the range of a singular A_FF), with d a
  // descent direction in the null space (r's part there). A singular A_FF gives the minimum-norm
  // least-squares step. A may be asymmetric by rounding, so its symmetric part is factored
  // (within the noise tolerances).
  bool free_step(std::span<const Index> free_rows, Eigen::Ref<VectorXd> d, double scale) {
    SemiDefiniteSystem& system = s_.free_block;
    system.factor(p_.a, free_rows, tolerances_.rank);
    if (system.rank() < system.size()) {
      auto null_part = s_.null_part.head(d.size());
      system.null_part(d, null_part);
      if (null_part.lpNorm<Eigen::Infinity>() > tolerances_.consistency * scale) {
        d = null_part;
        return true;
      }
      d -= null_part;
    }
    system.solve(d, d);
    return false;
  }

  // The primal active-set method for the iterate's (fixed) bounds: x feasible, the active set
  // updated. Returns the failure text, empty on success.
  std::string solve_box(Iterate& it) {
    const MatrixXd& a = p_.a;
    const VectorXd& b = p_.b;
    const VectorXd& lo = it.lo;
    const VectorXd& hi = it.hi;
    VectorXd& x = it.x;
    std::vector<RowState>& state = it.state;
    const Index n = b.size();
    const int max_pivots = 50 * int(n) + 100;
    // Largest-violation releases can cycle on degenerate problems; least index (Bland) cannot.
    const int bland_after = 5 * int(n) + 10;
    int made = 0;
    Index released = -1;  // released by the last pivot, so its step must leave its bound
    std::vector<Index>& free_rows = s_.free_rows;
    VectorXd& w = s_.w;
    for (;;) {
      if (made >= max_pivots) {
        return "pivot limit (" + std::to_string(max_pivots) +
               ") reached before the conditions held";
      }
      free_rows.clear();
      for (Index i = 0; i < n; ++i) {
        if (state[std::size_t(i)] == RowState::free) free_rows.push_back(i);
      }
      gradient(a, b, x, w);
      if (!free_rows.empty()) {
        auto d = s_.step.head(Index(free_rows.size()));
        for (std::size_t k = 0; k < free_rows.size(); ++k)
          d(Index(k)) = -w(free_rows[k]);
        const bool unbounded = free_step(free_rows, d, w_scale(x));
        // Ratio test: the first row to reach a bound on the way (lowest index on ties).
        double alpha = unbounded ? k_inf : 1.0;
        Index blocking = -1;
        RowState blocking_side = RowState::free;
        for (std::size_t k = 0; k < free_rows.size(); ++k) {
          const Index i = free_rows[k];
          const double step = d(Index(k));
          // A released row moves off its bound in exact arithmetic; a wrong sign is rounding.
          if (i == released && ((x(i) == lo(i) && step < 0) || (x(i) == hi(i) && step > 0))) {
            continue;
          }
          double t;
          RowState side;
          if (step < 0 && lo(i) > -k_inf) {
            t = (lo(i) - x(i)) / step;
            side = RowState::lower;
          } else if (step > 0 && hi(i) < k_inf) {
            t = (hi(i) - x(i)) / step;
            side = RowState::upper;
          } else {
            continue;
          }
          t = std::max(t, 0.0);
          if (t < alpha) {
            alpha = t;
            blocking = i;
            blocking_side = side;
          }
        }
        released = -1;
        if (blocking < 0 && unbounded) {
          std::string rows;
          for (std::size_t k = 0; k < free_rows.size() && rows.size() < 60; ++k) {
            if (d(Index(k)) != 0) rows += (rows.empty() ? "" : ", ") + std::to_string(free_rows[k]);
          }
          return "no solution: the impulses of rows " + rows +
                 " can grow without bound and keep lowering the objective (A is singular there "
                 "and b is not in its range: the rows contradict each other)";
        }
        for (std::size_t k = 0; k < free_rows.size(); ++k) {
          const Index i = free_rows[k];
          x(i) = clamp(x(i) + alpha * d(Index(k)), lo(i), hi(i));
        }
        if (blocking >= 0) {
          x(blocking) = blocking_side == RowState::lower ? lo(blocking) : hi(blocking);
          state[std::size_t(blocking)] = blocking_side;
          ++made;
          ++pivots_;
          continue;
        }
        gradient(a, b, x, w);
      }
      // At the minimum over the face: release the bound row whose w has the wrong sign.
      const double tolerance = tolerances_.sign * w_scale(x);
      const bool bland = made >= bland_after;
      Index release = -1;
      double worst = tolerance;
      for (Index i = 0; i < n; ++i) {
        const RowState s = state[std::size_t(i)];
        if (s == RowState::free || lo(i) == hi(i)) continue;
        const double violation = s == RowState::lower ? -w(i) : w(i);
        if (violation > worst) {
          release = i;
          if (bland) break;
          worst = violation;
        }
      }
      if (release < 0) return {};
      state[std::size_t(release)] = RowState::free;
      released = release;
      ++made;
      ++pivots_;
    }
  }

  // The box problem with the friction bounds at -/+ limits, warm-started from the iterate: a
  // friction row keeps its side even while its bounds are 0, and a free row now on or past a
  // moved bound starts on it.
  std::string solve_with_limits(const VectorXd& limits, Iterate& it) {
    for (Index i = 0; i < it.x.size(); ++i) {
      if (!is_friction(p_, i)) continue;
      it.lo(i) = -limits(i);
      it.hi(i) = limits(i);
      RowState& s = it.state[std::size_t(i)];
      if (s == RowState::free && it.x(i) <= it.lo(i)) s = RowState::lower;
      if (s == RowState::free && it.x(i) >= it.hi(i)) s = RowState::upper;
      it.x(i) = s == RowState::lower ? it.lo(i) : s == RowState::upper ? it.hi(i) : it.x(i);
    }
    return solve_box(it);
  }

  // Solves the linear system the active set implies with the friction coupling exact: free rows
  // have w = 0, rows at their own bounds are fixed, friction rows at a bound are -/+ mu times
  // their normal impulse. The fixed point the outer loop converges to once the active set
  // settles.
  //
  // lambda = E y + c with y the free rows' impulses: E's column for a free row holds 1 at it and
  // the slopes of the friction rows at a bound whose normal rows include it; c holds the fixed
  // rows' bounds (and their friction rows' share). Solves A_U E y = b_U - A_U c (U: the free
  // rows) in the least-squares sense, with E and c applied sparsely. Into `lambda`.
  void solve_coupled(const std::vector<RowState>& state, VectorXd& lambda) {
    const Index n = p_.b.size();
    const auto slope = [&](Index i) {  // of friction row i at a bound
      return state[std::size_t(i)] == RowState::lower ? -p_.mu(i) : p_.mu(i);
    };
    // f(i, k) for each friction row i at a bound and each of its normal rows k.
    const auto for_coupled_normals = [&](const auto& f) {
      for (Index i = 0; i < n; ++i) {
        if (state[std::size_t(i)] == RowState::free || !is_friction(p_, i)) continue;
        const Index first = normal_of(p_, i);
        for (Index k = first; k < first + normal_count_of(p_, i); ++k)
          f(i, k);
      }
    };
    std::vector<Index>& unknowns = s_.free_rows;
    std::vector<Index>& column = s_.column;  // per row: its unknown, or -1
    unknowns.clear();
    column.assign(std::size_t(n), -1);
    VectorXd& c = lambda;
    c.setZero(n);
    for (Index i = 0; i < n; ++i) {
      if (state[std::size_t(i)] == RowState::free) {
        column[std::size_t(i)] = Index(unknowns.size());
        unknowns.push_back(i);
      } else if (!is_friction(p_, i)) {
        c(i) = state[std::size_t(i)] == RowState::lower ? p_.lo(i) : p_.hi(i);
      }
    }
    for_coupled_normals([&](Index i, Index k) {
      if (column[std::size_t(k)] < 0) c(i) += slope(i) * c(k);
    });
    const Index u = Index(unknowns.size());
    if (u == 0) return;
    // A_U E, column by column: A's column of the free row plus the slopes' columns.
    auto m = s_.coupled.matrix(u);
    auto g = s_.step.head(u);
    for (Index r = 0; r < u; ++r) {
      for (Index k = 0; k < u; ++k)
        m(r, k) = p_.a(unknowns[std::size_t(r)], unknowns[std::size_t(k)]);
      g(r) = p_.b(unknowns[std::size_t(r)]) - p_.a.row(unknowns[std::size_t(r)]).dot(c);
    }
    for_coupled_normals([&](Index i, Index k) {
      const Index at = column[std::size_t(k)];
      for (Index r = 0; at >= 0 && r < u; ++r)
        m(r, at) += slope(i) * p_.a(unknowns[std::size_t(r)], i);
    });
    s_.coupled.factor(tolerances_.rank);
    s_.coupled.solve(g, g);
    for (Index r = 0; r < u; ++r)  // lambda = E y + c
      lambda(unknowns[std::size_t(r)]) += g(r);
    for_coupled_normals([&](Index i, Index k) {
      const Index at = column[std::size_t(k)];
      if (at >= 0) lambda(i) += slope(i) * g(at);
    });
  }

  // Newton's method on the coupled problem, which is piecewise linear in lambda: solve the
  // linear system of the iterate's active set (solve_coupled), then take the active set that
  // lambda - w / a_ii projected onto the bounds implies (the primal-dual active-set rule), until
  // a result passes the check. The rule can cycle where A is singular or the coupling makes the
  // system far from an M-matrix; an active set it already tried is not taken again: only its
  // first changed row changes (Murty's least-index rule). On success the iterate holds it. `jump`
  // gets the first solve, the root of the linearization at the iterate.
  bool solve_active_set(Iterate& it, VectorXd& jump) {
    const Index n = p_.b.size();
    Iterate& trial = s_.newton;
    trial.lo = p_.lo;
    trial.hi = p_.hi;
    trial.state = it.state;
    VectorXd& unsettled = s_.unsettled;
    VectorXd& w = s_.newton_w;
    VectorXd& limits = s_.newton_limits;
    std::vector<RowState>& next = s_.next;
    std::vector<std::vector<RowState>>& tried = s_.tried;
    std::size_t tried_count = 0;  // tried's first entries (k_max_newton_steps) are this solve's
    // Failing, the active set it stands at is kept for search_neighbours.
    const auto fail = [&] {
      s_.last_tried = trial.state;
      return false;
    };
    for (int step = 0; step < k_max_newton_steps; ++step) {
      solve_coupled(trial.state, trial.x);
      if (step == 0) jump = trial.x;
      if (!trial.x.allFinite()) return fail();
      unsettled = trial.x;
      settle(p_, trial);
      if (passes_check(trial)) {
        std::swap(it, trial);
        return true;
      }
      gradient(p_.a, p_.b, unsettled, w);
      implied_limits(p_, unsettled, limits);
      tried[tried_count++] = trial.state;
      next = trial.state;
      int changes = 0;
      Index first_change = -1;
      for (Index i = 0; i < n; ++i) {
        const double lo = is_friction(p_, i) ? -limits(i) : p_.lo(i);
        const double hi = is_friction(p_, i) ? limits(i) : p_.hi(i);
        // A row with equal bounds (friction with no normal impulse) takes the side y is on,
        // ready for when its bounds open.
        const double y = unsettled(i) - w(i) / p_.a(i, i);
        RowState& s = next[std::size_t(i)];
        const RowState was = s;
        s = y >= hi ? RowState::upper : RowState::free;
        if (y <= lo) s = RowState::lower;
        if (s == was) continue;
        ++changes;
        if (first_change < 0) first_change = i;
      }
      if (changes == 0) return fail();
      const auto tried_end = tried.begin() + std::ptrdiff_t(tried_count);
      if (std::find(tried.begin(), tried_end, next) != tried_end) {
        const auto row = std::size_t(first_change);
        trial.state[row] = next[row];
        changes = 1;
      } else {
        std::swap(trial.state, next);
      }
      pivots_ += changes;
    }
    return fail();
  }

  // Whether row i may take state s: a bound it has (a friction row has both).
  bool may_take(Index i, RowState s) const {
    if (s == RowState::free || is_friction(p_, i)) return true;
    return s == RowState::lower ? p_.lo(i) > -k_inf : p_.hi(i) < k_inf && p_.hi(i) != p_.lo(i);
  }

  // The active sets that differ from `state` in exactly `rows_off` rows (from row `from` on),
  // each solved with the friction coupling exact (solve_coupled); the first whose result passes
  // the check goes into the iterate. Of 44 random problems the loop left unsolved (each of the 26
  // small enough to enumerate has a solution), 33 had such an active set within two rows of the
  // iterate's or of the last one tried (docs/solvers.md). 2n solves one row off, 2n^2 two.
  bool search_off(std::vector<RowState> state, Iterate& it, Index from, int rows_off) {
    for (Index i = from; i < p_.b.size(); ++i) {
      const RowState was = state[std::size_t(i)];
      for (const RowState s : {RowState::free, RowState::lower, RowState::upper}) {
        if (s == was || !may_take(i, s)) continue;
        state[std::size_t(i)] = s;
        if (rows_off > 1) {
          if (search_off(state, it, i + 1, rows_off - 1)) return true;
          continue;
        }
        Iterate trial{VectorXd(), p_.lo, p_.hi, state};
        solve_coupled(state, trial.x);
        if (!trial.x.allFinite()) continue;
        settle(p_, trial);
        if (passes_check(trial)) {
          it = std::move(trial);
          return true;
        }
      }
      state[std::size_t(i)] = was;
    }
    return false;
  }

  // Breadth first: every active set one row off the iterate's and off the last one the Newton
  // steps tried (where that is another), then two rows off each, up to `depth` rows.
  bool search_neighbours(Iterate& it, int depth) {
    const std::vector<RowState> iterate_state = it.state;
    for (int rows_off = 1; rows_off <= depth; ++rows_off) {
      if (search_off(iterate_state, it, 0, rows_off) ||
          (s_.last_tried != iterate_state && search_off(s_.last_tried, it, 0, rows_off)))
        return true;
    }
    return false;
  }

  // The friction rows' bounds are -/+ limits with limits = mu lambda_normal, a fixed point: the
  // outer loop solves the box problem for given limits and moves the limits toward those its
  // normal impulses imply, by the plain fixed-point step when that shrinks the gap between the
  // two, else by a damped Newton step toward the root of the linearization (solve_active_set's
  // jump) that does, else by the plain step anyway.
  std::string solve_friction(Iterate& it) {
    VectorXd& limits = s_.limits;
    VectorXd& gap = s_.gap;
    VectorXd& jump = s_.jump;
    implied_limits(p_, it.x, limits);
    std::string why = solve_with_limits(limits, it);
    for (int round = 1; why.empty(); ++round) {
      implied_limits(p_, it.x, gap);
      gap -= limits;
      if (gap.lpNorm<Eigen::Infinity>() <= tolerances_.bound * it.x.lpNorm<Eigen::Infinity>()) {
        return {};
      }
      if (solve_active_set(it, jump)) return {};
      if (round >= k_max_friction_rounds) {
        // A last search near the iterate's active set and the last one the Newton steps tried
        // (where that is another).
        const Index n = p_.b.size();
        const int depth = n <= k_max_rows_two_off ? 2 : n <= k_max_rows_one_off ? 1 : 0;
        if (search_neighbours(it, depth)) return {};
        return "friction bounds still moved by " + number(gap.lpNorm<Eigen::Infinity>()) +
               " after " + std::to_string(k_max_friction_rounds) +
               " rounds of the fixed-point loop";
      }
      const auto shrinks = [&](const Iterate& trial, const VectorXd& trial_limits, double step) {
        implied_limits(p_, trial.x, s_.implied);
        return (s_.implied - trial_limits).norm() <=
               (1 - k_sufficient_decrease * step) * gap.norm();
      };
      // The candidates live in the scratch and are swapped in, so that none allocates.
      Iterate& plain = s_.plain;
      plain = it;
      VectorXd& plain_limits = s_.plain_limits;
      plain_limits = limits + gap;
      why = solve_with_limits(plain_limits, plain);
      if (why.empty() && shrinks(plain, plain_limits, 1)) {
        std::swap(it, plain);
        limits = plain_limits;
        continue;
      }
      bool stepped = false;
      if (jump.allFinite()) {
        VectorXd& direction = s_.direction;
        implied_limits(p_, jump, direction);
        direction -= limits;
        for (double step = 1; step >= k_min_newton_step && !stepped; step /= 2) {
          Iterate& trial = s_.trial;
          trial = it;
          VectorXd& trial_limits = s_.trial_limits;
          trial_limits = (limits + step * direction).cwiseMax(0.0);
          if (!solve_with_limits(trial_limits, trial).empty()) continue;
          if (shrinks(trial, trial_limits, step)) {
            std::swap(it, trial);
            limits = trial_limits;
            stepped = true;
            why.clear();
          }
        }
      }
      if (!stepped) {
        std::swap(it, plain);
        limits = plain_limits;
      }
    }
    return why;
  }

  const MlcpProblem& p_;
  const double a_norm_;
  const Tolerances tolerances_;
  MlcpWorkspace::Scratch& s_;
  int pivots_ = 0;
};

}  // namespace

double normal_load(const MlcpProblem& problem, const VectorXd& x, Index i) {
  const Index first = normal_of(problem, i);
  return std::max(x.segment(first, normal_count_of(problem, i)).sum(), 0.0);
}

MlcpSpectrum mlcp_spectrum(const MatrixXd& a) {
  const MatrixXd symmetric = 0.5 * (a + a.transpose());
  const VectorXd eigenvalues =
      Eigen::SelfAdjointEigenSolver<MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues();
  return {eigenvalues.minCoeff(), eigenvalues.maxCoeff()};
}

MlcpSpectrum semi_definite_spectrum(const MatrixXd& a) {
  return {0, largest_row_sum(a)};
}

std::optional<MlcpMatrixFacts> mlcp_matrix_facts(const MatrixXd& a,
                                                 const std::optional<MlcpSpectrum>& spectrum) {
  if (a.size() == 0 || a.rows() != a.cols() || !check_matrix(a).empty()) return {};
  const MlcpMatrixFacts facts = measure_matrix(a, spectrum);
  if (!check_spectrum(facts.spectrum).empty()) return {};
  return facts;
}

void solve_dense_mlcp(const MlcpProblem& problem, const VectorXd* initial_guess,
                      MlcpWorkspace& workspace, MlcpResult& result) {
  const Index n = problem.a.rows();
  result.lambda.setZero(n);
  result.solved = false;
  result.pivots = 0;
  result.failure.clear();
  if (n > k_max_direct_mlcp_rows || problem.a.cols() > k_max_direct_mlcp_rows) {
    result.failure = std::to_string(std::max(n, problem.a.cols())) +
                     " rows exceed the dense solver's limit of " +
                     std::to_string(k_max_direct_mlcp_rows) + " (k_max_direct_mlcp_rows)";
    return;
  }
  result.failure = check_problem(problem);
  if (result.failure.empty() && initial_guess != nullptr) {
    if (initial_guess->size() != n) {
      result.failure = "the initial guess has " + std::to_string(initial_guess->size()) +
                       " entries for " + std::to_string(n) + " rows";
    } else if (!initial_guess->allFinite()) {
      result.failure = "the initial guess has a non-finite entry";
    }
  }
  if (!result.failure.empty()) return;
  if (n == 0) {
    result.solved = true;
    return;
  }

  // The noise floor of A: how far it is from symmetric positive semi-definite.
  const MlcpMatrixFacts facts =
      holds_facts(problem) ? *problem.matrix_facts : measure_matrix(problem.a, problem.spectrum);
  result.failure = check_spectrum(facts.spectrum);
  if (!result.failure.empty()) return;
  MlcpWorkspace::Scratch& scratch = workspace.scratch();
  scratch.prepare(n);
  DenseMlcpSolver solver(problem, facts, scratch);

  Iterate& it = scratch.it;
  if (initial_guess != nullptr) {
    it.x = *initial_guess;
  } else {
    it.x.setZero(n);
  }
  it.lo = problem.lo;
  it.hi = problem.hi;
  it.state.assign(std::size_t(n), RowState::free);
  // Clamping the guess is settling it with every row free; the rows that land on a bound start
  // there.
  settle(problem, it);
  states_from(it);
  result.failure = solver.solve(it);
  result.lambda = it.x;
  result.solved = result.failure.empty();
  result.pivots = solver.pivots();
}

MlcpResult solve_dense_mlcp(const MlcpProblem& problem, const VectorXd* initial_guess) {
  MlcpWorkspace workspace;
  MlcpResult result;
  solve_dense_mlcp(problem, initial_guess, workspace, result);
  return result;
}

double mlcp_complementarity_error(const MlcpProblem& problem, const VectorXd& lambda) {
  if (!check_problem(problem).empty() || lambda.size() != problem.b.size() || !lambda.allFinite()) {
    return k_inf;
  }
  VectorXd lo = problem.lo;
  VectorXd hi = problem.hi;
  update_friction_bounds(problem, lambda, lo, hi);
  VectorXd w;
  return natural_residual(problem.a, problem.b, lo, hi, lambda, w);
}

}  // namespace impulse
