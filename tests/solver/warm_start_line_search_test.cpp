// A jointed island's warm start scaled back where it would add energy
// (solver/warm_start_line_search.h): the exact line search along the warm start, on rows written
// by hand, and the chain that gained 35 kJ with it whole.

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>

#include "row_problem.h"
#include "solver/residual.h"
#include "solver/warm_start_line_search.h"
#include "support/optimised.h"

namespace impulse {
namespace {

using testing::RowProblem;

constexpr Real k_dt = Real(1) / 60;
constexpr Real k_g = Real(9.81);

// A limit holding `body` up from the world along y (J v = v_y >= 0), warm started with `lambda`.
std::uint32_t add_limit(RowProblem& p, std::uint32_t body, std::uint32_t world, Real lambda) {
  RowSpec row = RowProblem::row_along(body, world, Vec3::unit_y());
  row.lo = 0;
  row.lambda = lambda;
  return p.rows.add(row);
}

// A rigid row along y between a and b, warm started with `lambda`.
std::uint32_t add_rod(RowProblem& p, std::uint32_t a, std::uint32_t b, Real lambda) {
  RowSpec row = RowProblem::row_along(a, b, Vec3::unit_y());
  row.lambda = lambda;
  return p.rows.add(row);
}

// The solve's objective at impulses scale * lambda (the rows' lambda): the kinetic energy they
// add to the velocities, less the work the biases ask for (here none).
double objective(const RowProblem& p, double scale) {
  std::vector<BodyVelocity> v = p.velocities;
  for (std::size_t i = 0; i < p.rows.size(); ++i)
    apply_row_impulse(p.rows, i, Real(scale) * p.rows.lambda[i], v);
  double added = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (p.masses[k].inv_mass == 0) continue;
    const double m = 1 / double(p.masses[k].inv_mass);
    added += m / 2 *
             (double(dot(v[k].linear, v[k].linear)) -
              double(dot(p.velocities[k].linear, p.velocities[k].linear)));
  }
  return added;
}

void scale_joint_rows(RowProblem& p, std::size_t begin, std::size_t end) {
  p.rows.prepare(p.masses);
  WarmStartLineSearch().scale(p.rows, begin, end, p.velocities, p.masses);
}

// A 1 kg body on its limit, gravity's dv taken: the last step's load m g dt is the answer, and the
// line search keeps it.
TEST(WarmStartLineSearch, AConvergedWarmStartIsKept) {
  RowProblem p;
  const std::uint32_t world = p.add_body(0);
  const std::uint32_t body = p.add_body(1, {0, -k_g * k_dt, 0});
  add_limit(p, body, world, k_g * k_dt);
  scale_joint_rows(p, 0, 1);
  EXPECT_FLOAT_EQ(p.rows.lambda[0], k_g * k_dt);
}

// The body pressing into its limit at half the speed the last step's load took away needs half of
// that load: f(alpha) = alpha^2 lambda^2 / 2m + alpha lambda v is least at alpha = -m v / lambda,
// here 1/2; at rest on the limit, or moving away from it, the body needs none (alpha = 0).
TEST(WarmStartLineSearch, ALimitLettingGoKeepsWhatLowersTheEnergy) {
  for (const auto& [velocity, expected] :
       {std::pair{-k_g * k_dt / 2, Real(0.5)}, std::pair{Real(0), Real(0)},
        std::pair{Real(1), Real(0)}}) {
    RowProblem p;
    const std::uint32_t world = p.add_body(0);
    const std::uint32_t body = p.add_body(2, {0, velocity, 0});
    add_limit(p, body, world, 2 * k_g * k_dt);
    scale_joint_rows(p, 0, 1);
    EXPECT_NEAR(p.rows.lambda[0], expected * 2 * k_g * k_dt, 1e-6) << velocity;
  }
}

// A 1 kg body on a limit carrying a 10 kg body on a rod, both moving into the limit at a third of
// the load's dv: the island's rows share one scale, the least of f along the warm start (here
// f(alpha) = 11/2 u^2 (alpha^2 - 2 alpha / 3), least at 1/3), where f is lower than both with the
// warm start whole and with none.
TEST(WarmStartLineSearch, AnIslandsRowsShareTheScaleThatLowersItsEnergyMost) {
  RowProblem p;
  const std::uint32_t world = p.add_body(0);
  const Vec3 pressing{0, -k_g * k_dt / 3, 0};
  const std::uint32_t link = p.add_body(1, pressing);
  const std::uint32_t load = p.add_body(10, pressing);
  add_limit(p, link, world, 11 * k_g * k_dt);
  add_rod(p, load, link, 10 * k_g * k_dt);
  const RowProblem whole = p;
  scale_joint_rows(p, 0, 2);
  const double alpha = p.rows.lambda[0] / whole.rows.lambda[0];
  EXPECT_NEAR(p.rows.lambda[1] / whole.rows.lambda[1], alpha, 1e-6);
  EXPECT_NEAR(alpha, 1.0 / 3, 1e-5);
  RowProblem scaled = whole;
  scaled.rows.prepare(scaled.masses);
  EXPECT_LT(objective(scaled, alpha), objective(scaled, 1));
  EXPECT_LT(objective(scaled, alpha), 0);
  EXPECT_LE(objective(scaled, alpha), objective(scaled, alpha + 0.01));
  EXPECT_LE(objective(scaled, alpha), objective(scaled, alpha - 0.01));
}

// Rows of bilateral joints alone keep their warm start, however it moves their bodies; so do the
// rows outside the range (contacts), whose warm start counts in the velocities the limit's scale
// is found from: a contact already holding the body up leaves the limit nothing to do.
TEST(WarmStartLineSearch, EqualityIslandsAndContactsKeepTheirWarmStarts) {
  RowProblem p;
  const std::uint32_t world = p.add_body(0);
  const std::uint32_t a = p.add_body(1, {0, 5, 0});
  const std::uint32_t b = p.add_body(1, {0, -5, 0});
  const std::uint32_t c = p.add_body(1, {0, -k_g * k_dt, 0});
  add_rod(p, a, b, 3);
  add_limit(p, c, world, k_g * k_dt);
  p.rows.lambda[p.add_contact_y(c, world)] = k_g * k_dt;
  scale_joint_rows(p, 0, 2);
  EXPECT_EQ(p.rows.lambda[0], 3);
  EXPECT_EQ(p.rows.lambda[1], 0);
  EXPECT_EQ(p.rows.lambda[2], k_g * k_dt);
}

// A 1 kg link on a swing-limited cone-twist from a post, a 4.8 kg plate welded below it and an
// 11.6 kg block sliding on the plate between limits (one of scripts/sweep.py's random chains,
// rounded). With the limits' warm starts whole, pgs's ten sweeps could not take back the load a
// limit letting go threw the chain apart with, and it gained 35 kJ in 10 s; passive, with
// inelastic stops, it may only lose energy.
TEST(WarmStartLineSearch, ALightLinkOnASwingLimitCarryingHeavyBodiesGainsNoEnergy) {
  SKIP_UNLESS_OPTIMISED();
  const Scene scene = parse_scene(R"({
    "format": "impulse-scene/1", "sleeping": false, "solver": {"type": "pgs", "iterations": 10},
    "bodies": [
      {"name": "post", "type": "static", "position": [0, 4, 0],
       "shape": {"type": "sphere", "radius": 0.05}},
      {"name": "link", "type": "dynamic", "mass": 1, "position": [-0.32, 3.9, 0.35],
       "shape": {"type": "capsule", "radius": 0.11, "half_height": 0.11}},
      {"name": "plate", "type": "dynamic", "mass": 4.8, "position": [-0.87, 3.4, 0.4],
       "shape": {"type": "box", "half_extents": [0.4, 0.39, 0.05]}},
      {"name": "block", "type": "dynamic", "mass": 11.6, "position": [-1.53, 3.82, -0.07],
       "shape": {"type": "box", "half_extents": [0.36, 0.17, 0.14]}}],
    "joints": [
      {"name": "swing", "type": "cone_twist", "body_a": "link", "body_b": "post",
       "anchor": [-0.16, 3.95, 0.18], "axis": [0.15, -0.92, -0.36], "swing_limit": 0.6,
       "twist_limits": [-0.24, 0.9]},
      {"name": "weld", "type": "fixed", "body_a": "plate", "body_b": "link",
       "anchor": [-0.6, 3.65, 0.38]},
      {"name": "slide", "type": "prismatic", "body_a": "block", "body_b": "plate",
       "anchor": [-1.2, 3.61, 0.17], "axis": [-0.83, 0.55, 0.1], "limits": [-0.34, 0.46]}]})");
  World world = build_world(scene);
  const double start = world.kinetic_energy() + world.potential_energy();
  double most = start, least = start;
  for (int i = 0; i < 600; ++i) {
    world.step(k_dt);
    const double energy = world.kinetic_energy() + world.potential_energy();
    most = std::max(most, energy);
    least = std::min(least, energy);
  }
  EXPECT_LE(most, start + 1e-3 * std::abs(start));
  EXPECT_LT(least, start - 50);  // the stops took energy out: the chain swung onto its limits
}

}  // namespace
}  // namespace impulse
