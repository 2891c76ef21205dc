#include "solver/warm_start_line_search.h"

#include "solver/residual.h"

#include <algorithm>

namespace impulse {
namespace {

// A row the solvers apply an impulse on: a degenerate one (RowStore::prepare) they leave alone.
bool applied(const RowStore& rows, std::size_t i) {
  return rows.lambda[i] != 0 && rows.inv_eff_mass[i] != 0;
}

}  // namespace

void WarmStartLineSearch::scale(RowStore& rows, std::size_t begin, std::size_t end,
                                std::span<const BodyVelocity> v,
                                std::span<const SolverBodyMass> masses) {
  bool any = false;
  for (std::size_t i = begin; i < end && !any; ++i)
    any = rows.one_sided(i) && applied(rows, i);
  if (!any) return;

  const std::size_t n = masses.size();
  sets_.reset(n);
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint32_t a = rows.body_a[i], b = rows.body_b[i];
    if (masses[a].movable() && masses[b].movable()) sets_.join(a, b);
  }
  // Each applied row's island: that of a body it moves (a row between two bodies that cannot
  // move is degenerate, not applied).
  roots_.resize(end - begin);
  one_sided_.assign(n, 0);
  for (std::size_t i = begin; i < end; ++i) {
    if (!applied(rows, i)) continue;
    const std::uint32_t root =
        sets_.find(masses[rows.body_a[i]].movable() ? rows.body_a[i] : rows.body_b[i]);
    roots_[i - begin] = root;
    if (rows.one_sided(i)) one_sided_[root] = 1;
  }
  const auto searched_row = [&](std::size_t i) {
    return applied(rows, i) && one_sided_[roots_[i - begin]];
  };
  // The searched islands' bodies: the joint rows' warm-start response, and v with the other rows'.
  searched_.assign(n, 0);
  joint_response_.assign(n, BodyVelocity{});
  for (std::size_t i = begin; i < end; ++i) {
    if (!searched_row(i)) continue;
    // Only the bodies that move: a static body's contacts have no response to gather.
    for (const std::uint32_t body : {rows.body_a[i], rows.body_b[i]})
      searched_[body] = masses[body].movable() ? 1 : 0;
    apply_row_impulse(rows, i, rows.lambda[i], joint_response_);
  }
  others_applied_.assign(v.begin(), v.end());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if ((i < begin || i >= end) && applied(rows, i) &&
        (searched_[rows.body_a[i]] || searched_[rows.body_b[i]]))
      apply_row_impulse(rows, i, rows.lambda[i], others_applied_);
  }
  quadratic_.assign(n, 0);
  linear_.assign(n, 0);
  for (std::size_t i = begin; i < end; ++i) {
    if (!searched_row(i)) continue;
    const double lambda = rows.lambda[i];
    const std::uint32_t root = roots_[i - begin];
    quadratic_[root] += lambda * (double(row_velocity(rows, i, joint_response_)) +
                                  double(rows.softness[i]) * lambda);
    linear_[root] += lambda * double(row_velocity(rows, i, others_applied_) - rows.bias[i]);
  }
  // f(alpha) = alpha^2 quadratic / 2 + alpha linear is least at -linear / quadratic.
  for (std::size_t i = begin; i < end; ++i) {
    if (!searched_row(i)) continue;
    const std::uint32_t root = roots_[i - begin];
    if (!(quadratic_[root] > 0)) continue;
    const double alpha = std::clamp(-linear_[root] / quadratic_[root], 0.0, 1.0);
    rows.lambda[i] = Real(alpha * rows.lambda[i]);
  }
}

}  // namespace impulse
