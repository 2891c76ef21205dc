#pragma once
// Every solver type, for the tests that hold each of them to the same outcome.

#include <impulse/settings.h>

namespace impulse::testing {

inline constexpr SolverType k_all_solvers[] = {SolverType::pgs,           SolverType::global_dense,
                                               SolverType::global_sparse, SolverType::jacobi,
                                               SolverType::block,         SolverType::pivoting};

}  // namespace impulse::testing
