#pragma once
// Small constraint problems built straight from rows (no collision code), shared by the solver
// tests: bodies as masses and velocities, rows written by hand as in seed 000's 1D examples.

#include "constraints/rows.h"
#include "solver/solver.h"
#include "support/solvers.h"

#include <cstring>
#include <vector>

namespace impulse::testing {

struct RowProblem {
  std::vector<SolverBodyMass> masses;
  std::vector<BodyVelocity> velocities;
  RowStore rows;

  /// Adds a body; mass 0 makes it immovable. Unit-sphere-like inertia 0.4 m for rotation.
  std::uint32_t add_body(Real mass, const Vec3& velocity = {}) {
    const Real inv = mass > 0 ? 1 / mass : 0;
    masses.push_back({inv, Mat33::diagonal(Vec3::splat(mass > 0 ? 1 / (Real(0.4) * mass) : 0))});
    velocities.push_back({velocity, Vec3::zero()});
    return std::uint32_t(masses.size() - 1);
  }

  /// A row along `axis` between `upper` and `lower`: J v = (v_upper - v_lower) . axis.
  static RowSpec row_along(std::uint32_t upper, std::uint32_t lower, const Vec3& axis) {
    RowSpec row;
    row.body_a = upper;
    row.body_b = lower;
    row.j_lin_a = axis;
    row.j_lin_b = -axis;
    return row;
  }

  /// A 1D contact along y: body `upper` rests on `lower`; J v = v_upper.y - v_lower.y >= bias.
  std::uint32_t add_contact_y(std::uint32_t upper, std::uint32_t lower, Real bias = 0) {
    RowSpec row = row_along(upper, lower, Vec3::unit_y());
    row.bias = bias;
    row.lo = 0;
    return rows.add(row);
  }

  /// A friction row along x between `upper` and `lower` with mu 0.5, bounded by row `normal`'s
  /// impulse (which may lie in another block, before it or after it).
  std::uint32_t add_friction_x(std::uint32_t upper, std::uint32_t lower, std::int32_t normal) {
    RowSpec row = row_along(upper, lower, Vec3::unit_x());
    row.normal_row = normal;
    row.mu = Real(0.5);
    return rows.add(row);
  }

  SolverBodies bodies() { return {velocities, masses}; }

  SolveStats solve(SolverType type, const SolverSettings& settings) {
    rows.prepare(masses);
    SolveStats stats;
    make_solver(type)->solve(rows, bodies(), settings, stats);
    return stats;
  }
};

// Three bilateral rows holding point lever_a of body a on point lever_b of body b (a ball joint).
inline void add_ball_rows(RowProblem& p, std::uint32_t a, std::uint32_t b, const Vec3& lever_a,
                          const Vec3& lever_b) {
  p.rows.begin_block();
  for (const Vec3& axis : {Vec3::unit_x(), Vec3::unit_y(), Vec3::unit_z()}) {
    RowSpec row;
    row.body_a = a;
    row.body_b = b;
    row.j_lin_a = axis;
    row.j_ang_a = cross(lever_a, axis);
    row.j_lin_b = -axis;
    row.j_ang_b = -cross(lever_b, axis);
    p.rows.add(row);
  }
  p.rows.end_block();
}

// A chain of `links` new bodies hanging from body 0 (the world) by ball joints, the links falling
// at 1 m/s and spinning; returns its last link.
inline std::uint32_t add_chain(RowProblem& p, int links) {
  const auto first = std::uint32_t(p.masses.size());
  for (int k = 1; k <= links; ++k) {
    p.add_body(1, {0, -1, 0});
    p.velocities.back().angular = {Real(0.1) * Real(k % 3), 0, Real(0.2)};
  }
  for (std::uint32_t k = 0; k < std::uint32_t(links); ++k) {
    const std::uint32_t a = first + k, b = k == 0 ? 0 : a - 1;
    add_ball_rows(p, a, b, {Real(-0.5), 0, 0}, {b == 0 ? Real(0) : Real(0.5), 0, 0});
  }
  return first + std::uint32_t(links) - 1;
}

/// Whether x and y are the same bits (the solves that promise the same results to the bit).
inline bool same_bits(Real x, Real y) {
  return std::memcmp(&x, &y, sizeof(Real)) == 0;
}

inline SolverSettings iterations(int count) {
  SolverSettings s;
  s.iterations = count;
  s.measure_residuals = true;  // the tests read the final figures
  return s;
}

}  // namespace impulse::testing
