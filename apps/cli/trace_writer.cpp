#include "trace_writer.h"

#include <impulse/error.h>

namespace impulse::cli {

TraceWriter::TraceWriter(const std::string& path) : out_(path) {
  if (!out_) throw Error(path + ": cannot open the trace file for writing");
  out_.precision(9);
  out_ << "step,iteration,residual,rows,complementarity_error,max_abs_lambda\n";
}

void TraceWriter::write(int step, const SolveStats& stats) {
  out_ << step << ",0," << stats.initial_residual << "," << stats.rows << ",,\n";
  // The command asks for every iteration's residual (record_residuals); should a solve have
  // recorded fewer, they are its last iterations' and numbered as such.
  const std::size_t first = std::size_t(stats.iterations) - stats.residuals.size() + 1;
  for (std::size_t k = 0; k < stats.residuals.size(); ++k) {
    out_ << step << "," << first + k << "," << stats.residuals[k] << "," << stats.rows << ",";
    if (k + 1 == stats.residuals.size())
      out_ << stats.complementarity_error << "," << stats.max_abs_lambda;
    else
      out_ << ",";
    out_ << "\n";
  }
}

}  // namespace impulse::cli
