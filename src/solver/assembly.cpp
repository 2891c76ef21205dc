#include "solver/assembly.h"

namespace impulse {
namespace {

void add_block(std::vector<Eigen::Triplet<Real>>& t, int row, int col, const Vec3& v) {
  for (int k = 0; k < 3; ++k) {
    if (v[k] != 0) t.emplace_back(row, col + k, v[k]);
  }
}

}  // namespace

AssembledSystem assemble_system(const RowStore& rows, const SolverBodies& bodies) {
  AssembledSystem system;
  std::vector<std::int32_t> column_of(bodies.velocities.size(), -1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const std::uint32_t body : {rows.body_a[i], rows.body_b[i]}) {
      if (column_of[body] < 0) {
        column_of[body] = std::int32_t(system.bodies.size());
        system.bodies.push_back(body);
      }
    }
  }
  std::vector<Eigen::Triplet<Real>> j_triplets, m_triplets, softness_triplets;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int row = int(i);
    // A degenerate row stays degenerate (zero diagonal) in the assembled solvers too.
    if (rows.softness[i] != 0 && rows.inv_eff_mass[i] > 0)
      softness_triplets.emplace_back(row, row, rows.softness[i]);
    const int a = 6 * column_of[rows.body_a[i]], b = 6 * column_of[rows.body_b[i]];
    add_block(j_triplets, row, a, rows.j_lin_a(i));
    add_block(j_triplets, row, a + 3, rows.j_ang_a(i));
    add_block(j_triplets, row, b, rows.j_lin_b(i));
    add_block(j_triplets, row, b + 3, rows.j_ang_b(i));
  }
  const Eigen::Index n = Eigen::Index(6 * system.bodies.size());
  Vector u(n);
  for (std::size_t k = 0; k < system.bodies.size(); ++k) {
    const SolverBodyMass& mass = bodies.masses[system.bodies[k]];
    const BodyVelocity& v = bodies.velocities[system.bodies[k]];
    const int c = int(6 * k);
    for (int d = 0; d < 3; ++d) {
      u[c + d] = v.linear[d];
      u[c + 3 + d] = v.angular[d];
      for (int e = 0; e < 3; ++e) {
        // The linear block inv_mass (I - n n^T) (rows.h, SolverBodyMass::linear_response).
        const Real linear =
            mass.inv_mass * (Real(d == e) - mass.plane_normal[d] * mass.plane_normal[e]);
        if (linear != 0) m_triplets.emplace_back(c + d, c + e, linear);
        if (mass.inv_inertia(d, e) != 0)
          m_triplets.emplace_back(c + 3 + d, c + 3 + e, mass.inv_inertia(d, e));
      }
    }
  }
  const Eigen::Index m = Eigen::Index(rows.size());
  system.j.resize(m, n);
  system.j.setFromTriplets(j_triplets.begin(), j_triplets.end());
  system.softness.resize(m, m);
  system.softness.setFromTriplets(softness_triplets.begin(), softness_triplets.end());
  SparseMatrix m_inv(n, n);
  m_inv.setFromTriplets(m_triplets.begin(), m_triplets.end());
  system.b_matrix = m_inv * SparseMatrix(system.j.transpose());
  system.b = Eigen::Map<const Vector>(rows.bias.data(), m) - system.j * u;
  return system;
}

SparseMatrix system_matrix(const AssembledSystem& system) {
  return SparseMatrix(system.j * system.b_matrix) + system.softness;
}

void apply_impulses(const AssembledSystem& system, const Vector& lambda,
                    std::span<BodyVelocity> velocities) {
  const Vector du = system.b_matrix * lambda;
  for (std::size_t k = 0; k < system.bodies.size(); ++k) {
    BodyVelocity& v = velocities[system.bodies[k]];
    for (int d = 0; d < 3; ++d) {
      v.linear[d] += du[Eigen::Index(6 * k + d)];
      v.angular[d] += du[Eigen::Index(6 * k + 3 + d)];
    }
  }
}

}  // namespace impulse
