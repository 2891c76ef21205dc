#include "solver/contradicting_rows.h"

namespace impulse {

bool rows_contradict(const RowStore& store, std::span<const std::uint32_t> rows,
                     const Eigen::VectorXd& lambda, const Eigen::MatrixXd& a, double mass) {
  double pushing = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (store.one_sided(rows[r])) pushing += lambda[Eigen::Index(r)] * lambda[Eigen::Index(r)];
  }
  double energy = 0;  // lambda^T A lambda, without A lambda's temporary
  for (Eigen::Index c = 0; c < lambda.size(); ++c)
    energy += lambda[c] * a.col(c).dot(lambda);
  return impulses_contradict(pushing, energy, mass);
}

}  // namespace impulse
