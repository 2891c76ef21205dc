#pragma once
// The solver family behind one interface (DESIGN.md, "Solvers"). Every solver finds the impulses
// lambda of a RowStore within their bounds, starting from the rows' lambda (the warm start), and
// applies them to the body velocities: v = v_free + M^-1 J^T lambda.

#include <impulse/settings.h>
#include <impulse/stats.h>

#include "constraints/rows.h"
#include "core/task_pool.h"
#include "dynamics/body_storage.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace impulse {

/// The bodies a solve works on: velocities in and out, masses read.
struct SolverBodies {
  std::span<BodyVelocity> velocities;
  std::span<const SolverBodyMass> masses;
  /// Threads a solver may share its work with; its results must not depend on their count.
  TaskPool* pool = nullptr;
  /// |g| dt, m/s: the speed gravity gives a body in this step, so that a row's impulse times a
  /// body's inverse mass says how many times that body's own weight the row carries (the ratio
  /// islands of pgs and block); 0 where unknown.
  Real gravity_dv = 0;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual SolverType type() const = 0;
  /// Whether bilateral rows (lo = -inf, hi = +inf) come out exact from every solve: then a
  /// Baumgarte bias cannot pump energy into them and joints need no softness to damp it.
  virtual bool solves_bilateral_rows_exactly() const { return false; }
  /// Solves the prepared rows (RowStore::prepare) and updates the velocities.
  virtual void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                     SolveStats& stats) = 0;
  /// Whether the last solve solved every row in one direct solve: every row bilateral (a
  /// joint's equality rows, springs), not over-relaxed. Solving the same rows again from its
  /// impulses would then give its velocities again, to the direct solve's regularisation (a set of
  /// redundant joints may split its impulses among them differently).
  virtual bool last_solve_exact() const { return false; }
  /// Solves the rows of the last solve again from other velocities, biases and impulses (the
  /// relax solve): their Jacobians, masses, softness and bounds are as they were, so a solver may
  /// keep what it derived from them. Gives the same result as solve; but with
  /// impulses_applied, which only a caller for whom continues_from_solved_velocities(settings)
  /// holds may set, the velocities are those the last solve left, unchanged since (the rows'
  /// impulses are in them already), and the solve continues from them without a warm start.
  virtual void solve_again(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                           SolveStats& stats, [[maybe_unused]] bool impulses_applied) {
    solve(rows, bodies, settings, stats);
  }
  /// Whether solve_again with these settings may continue from the velocities the last solve
  /// left: they are the free ones plus the response to the rows' impulses, which a warm start
  /// would only compute again (a pass over every row), to rounding.
  virtual bool continues_from_solved_velocities(const SolverSettings&) const { return false; }
};

std::unique_ptr<Solver> make_solver(SolverType type);

/// A world's solver. A copy (World::snapshot) is a fresh solver of the same type: between solves
/// a solver keeps only scratch storage and, for pgs, the equality block's fill-reducing ordering,
/// which depends on the rows' coupling pattern alone, so the copy solves the same rows to the
/// same bits.
class SolverInstance {
 public:
  explicit SolverInstance(SolverType type = SolverType::pgs) : solver_(make_solver(type)) {}
  SolverInstance(const SolverInstance& other) : solver_(make_solver(other->type())) {}
  SolverInstance& operator=(const SolverInstance& other) {
    if (this != &other) solver_ = make_solver(other->type());
    return *this;
  }
  SolverInstance(SolverInstance&&) noexcept = default;
  SolverInstance& operator=(SolverInstance&&) noexcept = default;
  ~SolverInstance() = default;
  Solver* operator->() const { return solver_.get(); }
  Solver& operator*() const { return *solver_; }

 private:
  std::unique_ptr<Solver> solver_;
};

}  // namespace impulse
