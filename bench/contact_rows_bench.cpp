// Microseconds to write the rows of 400 four-point manifolds (a pyramid's: unit boxes resting on
// each other, slightly turned, with last step's impulses), under the coulomb and patch models, on
// one thread: the contact writer alone (write_contact_rows), which is most of a stack's rows stage.

#include <benchmark/benchmark.h>

#include <impulse/settings.h>

#include <random>
#include <vector>

#include "solver/manifold_rows.h"

namespace {

using namespace impulse;

constexpr std::size_t k_manifolds = 400;

struct Stack {
  std::vector<BodyMotion> motions;
  std::vector<SolverBodyMass> masses;
  std::vector<BodyVelocity> velocities;
  std::vector<ContactManifold> manifolds;
};

// Body 0 is the ground; manifold k joins body k and body k + 1 (or the ground), its four points at
// the corners of a unit box's bottom face.
Stack stack() {
  Stack s;
  std::mt19937 random(7);
  std::uniform_real_distribution<Real> noise(Real(-0.01), Real(0.01));
  const std::size_t bodies = k_manifolds + 1;
  s.motions.resize(bodies);
  s.masses.resize(bodies);
  s.velocities.resize(bodies);
  for (std::size_t b = 1; b < bodies; ++b) {
    BodyMotion& m = s.motions[b];
    m.center = {Real(b % 20) * Real(1.05), Real(0.5) + Real(b / 20), 0};
    m.orientation = Quat::from_axis_angle({0, 1, 0}, noise(random));
    m.inv_mass = 1;
    m.inv_inertia_local = Mat33::diagonal({6, 6, 6});
    m.refresh_world_inertia();
    s.masses[b] = {m.inv_mass, m.inv_inertia_world, Vec3::zero()};
    s.velocities[b] = {{noise(random), noise(random), 0}, {0, noise(random), 0}};
  }
  for (std::size_t k = 0; k < k_manifolds; ++k) {
    ContactManifold m;
    m.body_a = std::uint32_t(k >= 20 ? k - 19 : 0);
    m.body_b = std::uint32_t(k + 1);
    m.normal = normalize(Vec3{noise(random), 1, noise(random)});
    m.count = 4;
    const Vec3 c = s.motions[m.body_b].center - Vec3{0, Real(0.5), 0};
    for (int p = 0; p < 4; ++p) {
      ContactState& point = m.points[std::size_t(p)];
      point.point.position =
          c + Vec3{p % 2 ? Real(0.5) : Real(-0.5), 0, p / 2 ? Real(0.5) : Real(-0.5)};
      point.point.depth = Real(0.004) + noise(random) / 10;
      point.normal_impulse = Real(0.04);
      point.friction_impulse = {noise(random), 0, noise(random)};
    }
    s.manifolds.push_back(m);
  }
  return s;
}

void write_rows(benchmark::State& state, FrictionModel model) {
  Stack s = stack();
  SolverSettings solver;
  solver.friction_model = model;
  const ContactRowSettings settings{Real(1.0 / 60), 1, Real(9.81), &solver, {}};
  RowStore rows;
  std::vector<ManifoldRows> where;
  for (auto _ : state) {
    rows.clear();
    testing::write_contact_rows_with(Real(0.5), s.manifolds, s.motions, s.masses, s.velocities,
                                     settings, rows, where);
    benchmark::DoNotOptimize(rows.coefficients.data());
  }
  state.counters["rows"] = double(rows.size());
}

void BM_ContactRowsCoulomb(benchmark::State& state) {
  write_rows(state, FrictionModel::coulomb);
}
BENCHMARK(BM_ContactRowsCoulomb)->Unit(benchmark::kMicrosecond);

void BM_ContactRowsPatch(benchmark::State& state) {
  write_rows(state, FrictionModel::patch);
}
BENCHMARK(BM_ContactRowsPatch)->Unit(benchmark::kMicrosecond);

}  // namespace
