// Projected Gauss-Seidel on the sparse rows (seed 001 algorithm 4), which is the sequential-impulse
// method of seeds 003 and 004: each row in turn gets the impulse that zeroes its velocity error,
// the accumulated impulse (not the increment) is clamped to the bounds, and the velocities are
// updated at once so the next row sees them. A disc pair (cone friction) is visited as one: both
// tangent rows step from the same velocities with the pair's one step, the accumulated impulse
// vector is clamped to the disc (seed 003), and the change is applied.

#include "solver/pgs_solver.h"

#include "solver/lanes.h"
#include "solver/residual.h"

#include <algorithm>

namespace impulse {
namespace {

// How a visit reads a row's velocity error and applies an impulse: straight from the RowStore
// and the bodies' velocities (pgs_visit_row, for the block solver), or from PGS's packed copy.
struct StoreAccess {
  RowStore& rows;
  std::span<BodyVelocity> v;
  Real error(std::size_t i) const { return row_error(rows, i, v); }
  void apply(std::size_t i, Real delta) const { apply_row_impulse(rows, i, delta, v); }
};

// The Jacobian, B and the velocities padded to lanes (lanes.h), contiguous per row and per body:
// one load per 3-vector, and the same sums in the same order as row_error and apply_row_impulse.
struct PackedAccess {
  const RowStore& rows;
  const Lanes* jacobian;  // 4 per row: linear a, angular a, linear b, angular b
  const Lanes* response;  // 4 per row: B = M^-1 J^T, in the same order
  Lanes* velocity;        // 2 per body: linear, angular
  [[gnu::always_inline]] Real error(std::size_t i) const {
    const Lanes* j = jacobian + 4 * i;
    const Lanes* a = velocity + 2 * std::size_t(rows.body_a[i]);
    const Lanes* b = velocity + 2 * std::size_t(rows.body_b[i]);
    const Real jv = dot3(j[0], a[0]) + dot3(j[1], a[1]) + dot3(j[2], b[0]) + dot3(j[3], b[1]);
    return jv - rows.bias[i] + rows.softness[i] * rows.lambda[i];
  }
  [[gnu::always_inline]] void apply(std::size_t i, Real delta) const {
    const Lanes* r = response + 4 * i;
    Lanes* a = velocity + 2 * std::size_t(rows.body_a[i]);
    Lanes* b = velocity + 2 * std::size_t(rows.body_b[i]);
    a[0] += delta * r[0];
    a[1] += delta * r[1];
    b[0] += delta * r[2];
    b[1] += delta * r[3];
  }
};

template <class Access>
[[gnu::always_inline]] inline Real visit_row(RowStore& rows, const Access& access, std::size_t i,
                                             Real sor) {
  const Real w = access.error(i);
  const Real old_lambda = rows.lambda[i];
  // The bounds once: a friction row's are mu times its normal row's impulse.
  const std::int32_t normal = rows.normal_row[i];
  const Real bound = normal < 0 ? Real(0) : rows.mu[i] * rows.lambda[std::size_t(normal)];
  const Real lo = normal < 0 ? rows.lo[i] : -bound, hi = normal < 0 ? rows.hi[i] : bound;
  const Real new_lambda = std::clamp(old_lambda - sor * w * rows.inv_eff_mass[i], lo, hi);
  const Real delta = new_lambda - old_lambda;
  rows.lambda[i] = new_lambda;
  access.apply(i, delta);
  return std::abs(delta);
}

template <class Access>
[[gnu::always_inline]] inline Real visit_disc_pair(RowStore& rows, const Access& access,
                                                   std::size_t i, Real sor) {
  const Real step = sor * rows.disc_step[i];
  const Real old1 = rows.lambda[i], old2 = rows.lambda[i + 1];
  const TangentPair next = project_to_disc(
      {old1 - step * access.error(i), old2 - step * access.error(i + 1)}, rows.disc_radius(i));
  rows.lambda[i] = next.t1;
  rows.lambda[i + 1] = next.t2;
  access.apply(i, next.t1 - old1);
  access.apply(i + 1, next.t2 - old2);
  return std::max(std::abs(next.t1 - old1), std::abs(next.t2 - old2));
}

template <class Access>
[[gnu::always_inline]] inline Real visit(RowStore& rows, const Access& access, std::size_t i,
                                         Real sor) {
  if (rows.disc_second(i)) return 0;  // visited with its first row
  return rows.disc_first(i) ? visit_disc_pair(rows, access, i, sor)
                            : visit_row(rows, access, i, sor);
}

}  // namespace

Real pgs_visit_row(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor) {
  return visit(rows, StoreAccess{rows, v}, i, sor);
}

void PgsSolver::pack(const RowStore& rows, std::span<const BodyVelocity> v) {
  jacobian_.resize(4 * rows.size());
  response_.resize(4 * rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Lanes* j = &jacobian_[4 * i];
    Lanes* r = &response_[4 * i];
    to_lanes(rows.j_lin_a[i], j[0]);
    to_lanes(rows.j_ang_a[i], j[1]);
    to_lanes(rows.j_lin_b[i], j[2]);
    to_lanes(rows.j_ang_b[i], j[3]);
    to_lanes(rows.b_lin_a[i], r[0]);
    to_lanes(rows.b_ang_a[i], r[1]);
    to_lanes(rows.b_lin_b[i], r[2]);
    to_lanes(rows.b_ang_b[i], r[3]);
  }
  velocity_.resize(2 * v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    to_lanes(v[k].linear, velocity_[2 * k]);
    to_lanes(v[k].angular, velocity_[2 * k + 1]);
  }
}

void PgsSolver::unpack(std::span<BodyVelocity> v) const {
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = {to_vec3(velocity_[2 * k]), to_vec3(velocity_[2 * k + 1])};
}

void PgsSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                      SolveStats& stats) {
  const Real b_norm = start_row_solve(rows, bodies.velocities, settings, stats);
  pack(rows, bodies.velocities);
  const PackedAccess access{rows, jacobian_.data(), response_.data(), velocity_.data()};
  order_.reset(rows.size(), settings.shuffle);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = 0;
    for (const std::uint32_t i : order_.next())
      max_delta = std::max(max_delta, visit(rows, access, i, settings.sor));
    const auto measure = [&] {
      unpack(bodies.velocities);
      return measure_residual(rows, bodies.velocities, b_norm);
    };
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
  unpack(bodies.velocities);
}

}  // namespace impulse
