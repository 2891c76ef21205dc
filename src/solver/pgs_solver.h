#pragma once

#include "solver/lanes.h"
#include "solver/row_order.h"
#include "solver/solver.h"

namespace impulse {

/// One projected Gauss-Seidel visit of row i with over-relaxation sor; returns the largest impulse
/// change (magnitude). The first row of a disc pair visits the pair; its second row does nothing.
Real pgs_visit_row(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor);

class PgsSolver final : public Solver {
 public:
  SolverType type() const override { return SolverType::pgs; }
  void solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
             SolveStats& stats) override;

 private:
  /// Copies the rows' J and B and the velocities into the lanes below, for the sweeps.
  void pack(const RowStore& rows, std::span<const BodyVelocity> v);
  /// Copies the packed velocities back.
  void unpack(std::span<BodyVelocity> v) const;

  // Kept from solve to solve: no allocation once warmed up.
  RowOrder order_;
  std::vector<Lanes> jacobian_, response_, velocity_;
};

}  // namespace impulse
