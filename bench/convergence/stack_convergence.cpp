// The convergence of every solver on a resting column of 10 cubes (tests/support/row_stack.h),
// warm and cold started: CSV of the relative residual after each iteration of one step in the
// rest state, for docs/solvers.md (scripts/plot_convergence.sh draws it).
//   solver,warm_start,iteration,residual

#include <impulse/world.h>

#include <cstdio>
#include <limits>

#include "support/row_stack.h"

int main() {
  using namespace impulse;
  std::printf("solver,warm_start,iteration,residual\n");
  for (SolverType type :
       {SolverType::pgs, SolverType::global_sparse, SolverType::jacobi, SolverType::block}) {
    for (bool warm : {false, true}) {
      WorldSettings settings;
      settings.sleeping = false;
      settings.solver.type = type;
      settings.solver.warm_start = warm;
      settings.solver.iterations = 200;
      // A tolerance makes the solve measure its residual after every iteration (a fixed count
      // measures at most the last, and only with measure_residuals); this one stops only once no
      // impulse changes at all.
      settings.solver.tolerance = std::numeric_limits<Real>::min();
      World world(settings);
      testing::add_row_stack(world, 10);
      for (int step = 0; step < 120; ++step)
        world.step(settings.timestep);  // settle, then report
      const SolveStats& stats = world.last_step_stats().solve;
      std::printf("%s,%d,0,%.9g\n", solver_type_name(type), int(warm),
                  double(stats.initial_residual));
      for (std::size_t k = 0; k < stats.residuals.size(); ++k)
        std::printf("%s,%d,%zu,%.9g\n", solver_type_name(type), int(warm), k + 1,
                    double(stats.residuals[k]));
    }
  }
}
