#include "solver/warm_start_line_search.h"

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
  moves_.resize(n);
  for (std::size_t k = 0; k < n; ++k)
    moves_[k] = masses[k].movable() ? 1 : 0;
  sets_.reset(n);
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint32_t a = rows.body_a[i], b = rows.body_b[i];
    if (moves_[a] && moves_[b]) sets_.join(a, b);
  }
  // Each applied row's island: that of a body it moves (a row between two bodies that cannot
  // move is degenerate, not applied).
  roots_.resize(end - begin);
  one_sided_.assign(n, 0);
  for (std::size_t i = begin; i < end; ++i) {
    if (!applied(rows, i)) continue;
    const std::uint32_t root = sets_.find(moves_[rows.body_a[i]] ? rows.body_a[i] : rows.body_b[i]);
    roots_[i - begin] = root;
    if (rows.one_sided(i)) one_sided_[root] = 1;
  }
  // f's terms by body: with p_k the joint rows' impulse on body k (J^T lambda) and r_k = M_k^-1
  // p_k its velocity change, lambda^T A lambda = sum p_k . r_k and lambda^T J v = sum p_k . v_k;
  // the other rows' impulses add lambda_o J_o r to the second. The rows' own terms first.
  searched_.assign(n, 0);
  impulse_.assign(n, BodyVelocity{});
  quadratic_.assign(n, 0);
  linear_.assign(n, 0);
  for (std::size_t i = begin; i < end; ++i) {
    if (!applied(rows, i)) continue;
    const std::uint32_t root = roots_[i - begin];
    if (!one_sided_[root]) continue;
    const Real lambda = rows.lambda[i];
    quadratic_[root] += double(rows.softness[i]) * lambda * lambda;
    linear_[root] -= double(lambda) * rows.bias[i];
    // Only the bodies that move: a static body's contacts have no response to gather.
    if (moves_[rows.body_a[i]]) {
      BodyVelocity& p = impulse_[rows.body_a[i]];
      p.linear += lambda * rows.j_lin_a(i);
      p.angular += lambda * rows.j_ang_a(i);
      searched_[rows.body_a[i]] = 1;
    }
    if (moves_[rows.body_b[i]]) {
      BodyVelocity& p = impulse_[rows.body_b[i]];
      p.linear += lambda * rows.j_lin_b(i);
      p.angular += lambda * rows.j_ang_b(i);
      searched_[rows.body_b[i]] = 1;
    }
  }
  // impulse_ becomes the response r_k of each searched body, and its root is kept.
  body_roots_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (!searched_[k]) continue;
    const std::uint32_t root = sets_.find(std::uint32_t(k));
    body_roots_[k] = root;
    BodyVelocity& p = impulse_[k];
    const BodyVelocity r{masses[k].linear_response(p.linear), masses[k].inv_inertia * p.angular};
    quadratic_[root] += double(dot(p.linear, r.linear)) + double(dot(p.angular, r.angular));
    linear_[root] += double(dot(p.linear, v[k].linear)) + double(dot(p.angular, v[k].angular));
    p = r;
  }
  const auto add_other = [&](std::size_t i) {
    const std::uint32_t a = rows.body_a[i], b = rows.body_b[i];
    if (!(searched_[a] | searched_[b]) || !applied(rows, i)) return;
    const double lambda = rows.lambda[i];
    if (searched_[a]) {
      const BodyVelocity& r = impulse_[a];
      linear_[body_roots_[a]] +=
          lambda * (dot(rows.j_lin_a(i), r.linear) + dot(rows.j_ang_a(i), r.angular));
    }
    if (searched_[b]) {
      const BodyVelocity& r = impulse_[b];
      linear_[body_roots_[b]] +=
          lambda * (dot(rows.j_lin_b(i), r.linear) + dot(rows.j_ang_b(i), r.angular));
    }
  };
  for (std::size_t i = 0; i < begin; ++i)
    add_other(i);
  for (std::size_t i = end; i < rows.size(); ++i)
    add_other(i);
  // f(alpha) = alpha^2 quadratic / 2 + alpha linear is least at -linear / quadratic.
  for (std::size_t i = begin; i < end; ++i) {
    if (!applied(rows, i)) continue;
    const std::uint32_t root = roots_[i - begin];
    if (!one_sided_[root] || !(quadratic_[root] > 0)) continue;
    const double alpha = std::clamp(-linear_[root] / quadratic_[root], 0.0, 1.0);
    rows.lambda[i] = Real(alpha * rows.lambda[i]);
  }
}

}  // namespace impulse
