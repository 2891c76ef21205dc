#include "solver/contradicting_rows.h"

namespace impulse {

bool rows_contradict(const RowStore& store, std::span<const std::uint32_t> rows,
                     const Eigen::VectorXd& lambda, const Eigen::MatrixXd& a, double mass) {
  double pushing = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (store.one_sided(rows[r])) pushing += lambda[Eigen::Index(r)] * lambda[Eigen::Index(r)];
  }
  return impulses_contradict(pushing, lambda.dot(a * lambda), mass);
}

}  // namespace impulse
