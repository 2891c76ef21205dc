#include "solver/pivoting_solver.h"

#include "core/island_sets.h"
#include "solver/assembly.h"
#include "solver/contradicting_rows.h"
#include "solver/disc_mlcp.h"
#include "solver/residual.h"

#include <vector>

namespace impulse {
namespace {

// The one-sided rows of the first island (rows joined through moving bodies) whose impulses
// push against each other (contradicting_rows.h), named for the diagnostic; empty where none do.
// usable[k] is the store row of lambda[k] and of a's row k.
std::string contradicting_rows(const RowStore& rows, std::span<const SolverBodyMass> masses,
                               const std::vector<Eigen::Index>& usable,
                               const Eigen::VectorXd& lambda, const Eigen::MatrixXd& a) {
  IslandSets sets;
  sets.reset(masses.size());
  for (const Eigen::Index i : usable) {
    const std::uint32_t body_a = rows.body_a[std::size_t(i)], body_b = rows.body_b[std::size_t(i)];
    if (masses[body_a].movable() && masses[body_b].movable()) sets.join(body_a, body_b);
  }
  // Per island's root: the one-sided rows' squared impulses, the energy lambda^T A lambda (A holds
  // nothing between islands), the mass of its moving bodies.
  std::vector<double> pushing(masses.size(), 0), energy(masses.size(), 0), mass(masses.size(), 0);
  std::vector<std::uint8_t> counted(masses.size(), 0);
  std::vector<std::uint32_t> root_of(usable.size());
  const Eigen::VectorXd response = a * lambda;
  for (std::size_t k = 0; k < usable.size(); ++k) {
    const auto i = std::size_t(usable[k]);
    const bool a_moves = masses[rows.body_a[i]].movable();
    const std::uint32_t root = sets.find(a_moves ? rows.body_a[i] : rows.body_b[i]);
    root_of[k] = root;
    const double impulse = lambda[Eigen::Index(k)];
    if (rows.one_sided(i)) pushing[root] += impulse * impulse;
    energy[root] += impulse * response[Eigen::Index(k)];
    for (const std::uint32_t body : {rows.body_a[i], rows.body_b[i]}) {
      if (counted[body] || masses[body].inv_mass <= 0) continue;
      counted[body] = 1;
      mass[root] += 1 / double(masses[body].inv_mass);
    }
  }
  std::string named;
  for (std::size_t k = 0; k < usable.size(); ++k) {
    const std::uint32_t root = root_of[k];
    if (!impulses_contradict(pushing[root], energy[root], mass[root])) continue;
    for (std::size_t n = k; n < usable.size() && named.size() < 60; ++n) {
      if (root_of[n] == root && rows.one_sided(std::size_t(usable[n])) &&
          lambda[Eigen::Index(n)] != 0)
        named += (named.empty() ? "" : ", ") + std::to_string(usable[n]);
    }
    return named;
  }
  return named;
}

}  // namespace

void PivotingSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                           SolveStats& stats) {
  begin_stats(stats, rows);
  if (rows.size() == 0) return;
  if (rows.size() > std::size_t(k_max_direct_mlcp_rows)) {
    stats.status = SolveStatus::refused;
    stats.diagnostic = std::to_string(rows.size()) +
                       " rows exceed the pivoting solver's limit of " +
                       std::to_string(k_max_direct_mlcp_rows);
    return;
  }
  const AssembledSystem system = assemble_system(rows, bodies);
  const Eigen::MatrixXd a_full = system_matrix(system).toDense().cast<double>();
  // Degenerate rows (zero J M^-1 J^T) are left out and keep a zero impulse, as in every solver.
  std::vector<int> index_of(rows.size(), -1);
  std::vector<Eigen::Index> usable;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows.inv_eff_mass[i] > 0) {
      index_of[i] = int(usable.size());
      usable.push_back(Eigen::Index(i));
    }
  }
  const Eigen::Index m = Eigen::Index(usable.size());
  MlcpProblem problem;
  problem.a = a_full(usable, usable);
  problem.a = 0.5 * (problem.a + problem.a.transpose()).eval();  // exact symmetry despite rounding
  problem.b = system.b.cast<double>()(usable);
  problem.lo.resize(m);
  problem.hi.resize(m);
  problem.normal_index.assign(std::size_t(m), -1);
  problem.normal_count.assign(std::size_t(m), 1);
  problem.mu = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd guess(m);
  std::vector<int> disc_pairs;  // both rows of a disc pair are usable, so adjacent here too
  for (Eigen::Index k = 0; k < m; ++k) {
    const std::size_t i = std::size_t(usable[std::size_t(k)]);
    if (rows.disc_first(i)) disc_pairs.push_back(int(k));
    problem.lo[k] = rows.lo[i];
    problem.hi[k] = rows.hi[i];
    const std::int32_t normal = rows.normal_row[i];
    // The usable ones of its normal rows follow each other here too (nothing lies between them in
    // the store); a degenerate normal row carries nothing.
    int first = -1, count = 0;
    for (std::int32_t n = normal; normal >= 0 && n < normal + rows.normal_count[i]; ++n) {
      if (index_of[std::size_t(n)] < 0) continue;
      if (count++ == 0) first = index_of[std::size_t(n)];
    }
    if (count > 0) {
      problem.normal_index[std::size_t(k)] = first;
      problem.normal_count[std::size_t(k)] = count;
      problem.mu[k] = rows.mu[i];
    } else if (normal >= 0) {
      problem.lo[k] = problem.hi[k] = 0;  // friction under degenerate normal rows carries nothing
    }
    guess[k] = rows.lambda[i];
  }
  if (!problem.a.allFinite() || !problem.b.allFinite()) {
    stats.status = SolveStatus::refused;
    stats.diagnostic = "the assembled system holds a non-finite entry";
    return;
  }
  const MlcpResult result =
      solve_dense_mlcp_with_discs(problem, disc_pairs, settings.warm_start ? &guess : nullptr);
  if (!result.solved) {
    stats.status = SolveStatus::refused;
    stats.diagnostic = result.failure;
    return;
  }
  const std::string pushing =
      contradicting_rows(rows, bodies.masses, usable, result.lambda, problem.a);
  if (!pushing.empty()) {
    stats.status = SolveStatus::refused;
    stats.diagnostic = "the impulses of rows " + pushing +
                       " push against each other (their position biases contradict: a jam)";
    return;
  }
  std::fill(rows.lambda.begin(), rows.lambda.end(), Real(0));
  for (Eigen::Index k = 0; k < m; ++k)
    rows.lambda[std::size_t(usable[std::size_t(k)])] = Real(result.lambda[k]);
  stats.iterations = 1;
  const bool measure_it = measures_residuals(settings);
  const Real b_norm = measure_it ? rhs_norm(rows, bodies.velocities) : Real(1);
  apply_impulses(system, Eigen::Map<const Vector>(rows.lambda.data(), Eigen::Index(rows.size())),
                 bodies.velocities);
  if (!measure_it) return;
  const ResidualMeasure measure = measure_residual(rows, bodies.velocities, b_norm);
  stats.residuals = {measure.relative_residual};
  record_final_figures(measure, stats);
}

}  // namespace impulse
