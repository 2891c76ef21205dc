#pragma once
// `impulse run --trace FILE`: the solver's convergence, one CSV line per step and iteration.
//   step,iteration,residual,rows,complementarity_error,max_abs_lambda
// Iteration 0 is the relative residual at the warm start, before the first iteration.

#include <impulse/stats.h>

#include <fstream>
#include <string>

namespace impulse::cli {

class TraceWriter {
 public:
  /// Opens the file; throws impulse::Error when it cannot be written.
  explicit TraceWriter(const std::string& path);
  void write(int step, const SolveStats& stats);

 private:
  std::ofstream out_;
};

}  // namespace impulse::cli
