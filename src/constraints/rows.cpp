#include "constraints/rows.h"

namespace impulse {

std::uint32_t RowStore::add(const RowSpec& row) {
  const auto index = static_cast<std::uint32_t>(size());
  body_a.push_back(row.body_a);
  body_b.push_back(row.body_b);
  j_lin_a.push_back(row.j_lin_a);
  j_ang_a.push_back(row.j_ang_a);
  j_lin_b.push_back(row.j_lin_b);
  j_ang_b.push_back(row.j_ang_b);
  b_lin_a.emplace_back();
  b_ang_a.emplace_back();
  b_lin_b.emplace_back();
  b_ang_b.emplace_back();
  diagonal.push_back(0);
  inv_eff_mass.push_back(0);
  bias.push_back(row.bias);
  lo.push_back(row.lo);
  hi.push_back(row.hi);
  normal_row.push_back(row.normal_row);
  mu.push_back(row.mu);
  lambda.push_back(row.lambda);
  if (!in_block_) block_begin.push_back(index + 1);
  return index;
}

void RowStore::begin_block() {
  in_block_ = true;
}

void RowStore::end_block() {
  in_block_ = false;
  if (block_begin.back() != size()) block_begin.push_back(static_cast<std::uint32_t>(size()));
}

void RowStore::prepare(const std::vector<SolverBodyMass>& bodies) {
  degenerate_rows_ = 0;
  for (std::size_t i = 0; i < size(); ++i) {
    const SolverBodyMass& a = bodies[body_a[i]];
    const SolverBodyMass& b = bodies[body_b[i]];
    b_lin_a[i] = a.inv_mass * j_lin_a[i];
    b_ang_a[i] = a.inv_inertia * j_ang_a[i];
    b_lin_b[i] = b.inv_mass * j_lin_b[i];
    b_ang_b[i] = b.inv_inertia * j_ang_b[i];
    diagonal[i] = dot(j_lin_a[i], b_lin_a[i]) + dot(j_ang_a[i], b_ang_a[i]) +
                  dot(j_lin_b[i], b_lin_b[i]) + dot(j_ang_b[i], b_ang_b[i]);
    // Seed 000, "Why do solvers break?": a zero diagonal (a row between immovable bodies, or
    // J = 0) would divide by zero. Such a row is inert rather than fatal.
    const bool usable = is_finite(diagonal[i]) && diagonal[i] > 0;
    inv_eff_mass[i] = usable ? Real(1) / diagonal[i] : Real(0);
    if (!usable) ++degenerate_rows_;
  }
}

void RowStore::clear() {
  for (auto* v : {&body_a, &body_b})
    v->clear();
  for (auto* v : {&j_lin_a, &j_ang_a, &j_lin_b, &j_ang_b, &b_lin_a, &b_ang_a, &b_lin_b, &b_ang_b})
    v->clear();
  for (auto* v : {&diagonal, &inv_eff_mass, &bias, &lo, &hi, &mu, &lambda})
    v->clear();
  normal_row.clear();
  block_begin.assign(1, 0);
  degenerate_rows_ = 0;
  in_block_ = false;
}

}  // namespace impulse
