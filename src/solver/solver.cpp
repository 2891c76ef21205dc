#include "solver/solver.h"

#include "solver/block_solver.h"
#include "solver/global_solver.h"
#include "solver/jacobi_solver.h"
#include "solver/pgs_solver.h"
#include "solver/pivoting_solver.h"

namespace impulse {

std::unique_ptr<Solver> make_solver(SolverType type) {
  switch (type) {
    case SolverType::pgs:
      return std::make_unique<PgsSolver>();
    case SolverType::global_dense:
      return std::make_unique<GlobalSolver>(false);
    case SolverType::global_sparse:
      return std::make_unique<GlobalSolver>(true);
    case SolverType::jacobi:
      return std::make_unique<JacobiSolver>();
    case SolverType::block:
      return std::make_unique<BlockSolver>();
    case SolverType::pivoting:
      return std::make_unique<PivotingSolver>();
  }
  return std::make_unique<PgsSolver>();
}

}  // namespace impulse
