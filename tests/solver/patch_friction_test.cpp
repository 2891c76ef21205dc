// The patch friction model on a box resting on the ground by its four base corners, its rows
// written by the engine's own writer (write_manifold_rows): two tangent rows at the corners'
// centre and a twist row about the normal, bounded by mu times the four normal impulses' sum (the
// twist by that times the corners' distance from the centre). The laws checked are Coulomb's for
// the whole face: a push or a spin the friction can absorb sticks; a larger slide loses exactly
// mu g dt of speed, a larger spin exactly mu g dt d m / I of turning rate, on every solver; the
// impulses stored back for the warm start are the same, and keep their sum and moment on any
// patch.

#include <gtest/gtest.h>

#include <cmath>

#include "solver/manifold_rows.h"
#include "solver/residual.h"
#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::RowProblem;

constexpr Real k_mu = Real(0.5);
constexpr Real k_half = Real(0.5);  // m, half the cube's side
constexpr Real k_dt = Real(1) / 60;
constexpr Real k_gravity_dv = Real(9.81) * k_dt;  // m/s: gravity's velocity over one step
const Real k_corner_distance = k_half * std::sqrt(Real(2));
// 1 / I of the 1 kg cube: I = m (2h)^2 / 6.
constexpr Real k_inv_inertia = Real(6) / (4 * k_half * k_half);

struct PatchBox {
  RowProblem p;
  std::uint32_t box = 0;
  ContactManifold manifold;
  std::vector<ManifoldRows> manifold_rows{1};
};

// The patch rows of a 1 kg cube on static ground (body 0), falling at g dt, sliding at `speed`
// along x and turning at `spin` about y, its warm start from the manifold's points.
void write_rows(PatchBox& s, const SolverSettings& solver) {
  const ContactRowSettings row_settings{k_dt, 1, Real(9.81), &solver, {}};
  s.p.rows.clear();
  std::vector<BodyMotion> motions(2);
  motions[1].center = {0, k_half, 0};
  motions[1].inv_mass = 1;
  std::vector<ContactManifold> manifolds{s.manifold};
  testing::write_contact_rows_with(k_mu, manifolds, motions, s.p.masses, s.p.velocities,
                                   row_settings, s.p.rows, s.manifold_rows);
}

PatchBox patch_box(Real speed, Real spin) {
  PatchBox s;
  s.p.add_body(0);
  s.box = s.p.add_body(1, Vec3{speed, -k_gravity_dv, 0});
  s.p.velocities[s.box].angular = {0, spin, 0};
  s.p.masses[s.box].inv_inertia = Mat33::diagonal(Vec3::splat(k_inv_inertia));
  // The ground is body a, the box body b: the normal points from the ground up into the box.
  s.manifold.body_a = 0;
  s.manifold.body_b = s.box;
  s.manifold.normal = Vec3::unit_y();
  s.manifold.count = 4;
  const Real corners[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  for (std::size_t k = 0; k < 4; ++k)
    s.manifold.points[k].point.position = {corners[k][0] * k_half, 0, corners[k][1] * k_half};
  return s;
}

SolverSettings patch_settings(SolverType type) {
  // Converged as the cone tests are (the budgets of RandomMlcp, docs/solvers.md).
  SolverSettings settings = testing::iterations(type == SolverType::jacobi ? 20000 : 2000);
  settings.tolerance = Real(1e-7);
  settings.friction_model = FrictionModel::patch;
  return settings;
}

constexpr std::uint32_t k_t1 = 0, k_t2 = 1, k_twist = 2, k_first_normal = 3;

Real normal_sum(const PatchBox& s) {
  Real sum = 0;
  for (std::uint32_t k = 0; k < 4; ++k)
    sum += s.p.rows.lambda[k_first_normal + k];
  return sum;
}

TEST(PatchFriction, AManifoldOfFourPointsIsSevenRowsBoundedByAllItsNormals) {
  PatchBox s = patch_box(0, 0);
  write_rows(s, patch_settings(SolverType::pgs));
  ASSERT_EQ(s.p.rows.size(), 7u);
  EXPECT_EQ(manifold_row_count(s.manifold, FrictionModel::patch), 7u);
  EXPECT_EQ(manifold_row_count(s.manifold, FrictionModel::coulomb), 12u);
  for (const std::uint32_t row : {k_t1, k_t2, k_twist}) {
    EXPECT_EQ(s.p.rows.normal_row[row], std::int32_t(k_first_normal));
    EXPECT_EQ(s.p.rows.normal_count[row], 4);
  }
  EXPECT_FLOAT_EQ(s.p.rows.mu[k_t1], k_mu);
  EXPECT_FLOAT_EQ(s.p.rows.mu[k_twist], k_mu * k_corner_distance);
  // The twist row turns the bodies against each other about the normal only.
  EXPECT_EQ(s.p.rows.j_lin_a(k_twist), Vec3::zero());
  EXPECT_EQ(s.p.rows.j_lin_b(k_twist), Vec3::zero());
  EXPECT_EQ(s.p.rows.j_ang_a(k_twist), -Vec3::unit_y());
  EXPECT_EQ(s.p.rows.j_ang_b(k_twist), Vec3::unit_y());
  // One point: a tangent pair at the point, no twist row.
  s.manifold.count = 1;
  EXPECT_EQ(manifold_row_count(s.manifold, FrictionModel::patch), 3u);
  write_rows(s, patch_settings(SolverType::pgs));
  ASSERT_EQ(s.p.rows.size(), 3u);
  EXPECT_EQ(s.p.rows.normal_row[k_t1], 2);
  EXPECT_EQ(s.p.rows.normal_count[k_t2], 1);
  EXPECT_EQ(s.p.rows.normal_row[2], -1);
}

// Sliding at three times what one step's friction can take: the face loses mu g dt of speed, the
// friction of the whole face (mu times the weight it carries), and does not turn.
TEST(PatchFriction, ASlidingBoxLosesMuGDtEveryStepOnEverySolver) {
  const Real speed = 3 * k_mu * k_gravity_dv;
  for (const SolverType type : testing::k_all_solvers) {
    PatchBox s = patch_box(speed, 0);
    write_rows(s, patch_settings(type));
    const SolveStats stats = s.p.solve(type, patch_settings(type));
    const std::string label = solver_type_name(type);
    EXPECT_LT(stats.complementarity_error, 1e-4) << label;
    const BodyVelocity& v = s.p.velocities[s.box];
    EXPECT_NEAR(v.linear.x, speed - k_mu * k_gravity_dv, 2e-5) << label;
    EXPECT_NEAR(v.linear.y, 0, 2e-5) << label;
    EXPECT_NEAR(normal_sum(s), k_gravity_dv, 1e-5) << label;  // 1 kg
    EXPECT_NEAR(length(v.angular), 0, 2e-5) << label;
  }
}

// Turning at three times what one step's friction can stop: the twist row takes exactly
// mu (m g dt) d of angular impulse, d the corners' distance from the centre, the torque the four
// corners' friction would give.
TEST(PatchFriction, ASpinningBoxLosesTheCornersTorqueEveryStepOnEverySolver) {
  const Real loss = k_mu * k_gravity_dv * k_corner_distance * k_inv_inertia;
  const Real spin = 3 * loss;
  for (const SolverType type : testing::k_all_solvers) {
    PatchBox s = patch_box(0, spin);
    write_rows(s, patch_settings(type));
    s.p.solve(type, patch_settings(type));
    const std::string label = solver_type_name(type);
    const BodyVelocity& v = s.p.velocities[s.box];
    EXPECT_NEAR(v.angular.y, spin - loss, 2e-5 * spin) << label;
    EXPECT_NEAR(length(v.linear), 0, 2e-5) << label;
    EXPECT_NEAR(std::abs(s.p.rows.lambda[k_twist]), s.p.rows.upper(k_twist), 1e-6) << label;
  }
}

// A slide and a spin half as large as one step's friction can take: both stop, with the impulses
// inside their bounds.
TEST(PatchFriction, ASmallSlideAndSpinStickOnEverySolver) {
  const Real speed = Real(0.5) * k_mu * k_gravity_dv;
  const Real spin = Real(0.3) * k_mu * k_gravity_dv * k_corner_distance * k_inv_inertia;
  for (const SolverType type : testing::k_all_solvers) {
    PatchBox s = patch_box(speed, spin);
    write_rows(s, patch_settings(type));
    const SolveStats stats = s.p.solve(type, patch_settings(type));
    const std::string label = solver_type_name(type);
    EXPECT_LT(stats.complementarity_error, 1e-4) << label;
    const BodyVelocity& v = s.p.velocities[s.box];
    EXPECT_LT(length(v.linear), 2e-5) << label;
    EXPECT_LT(length(v.angular), 2e-5) << label;
    for (const std::uint32_t row : {k_t1, k_t2, k_twist})
      EXPECT_LE(std::abs(s.p.rows.lambda[row]), s.p.rows.upper(row) * (1 + Real(1e-5))) << label;
  }
}

// The solved patch impulses go to the points as point impulses of the same sum and moment about
// the centre; the next step's rows, written from them along the same tangents, start from the
// impulses solved.
TEST(PatchFriction, StoredImpulsesWarmStartTheSameRows) {
  const Real speed = 3 * k_mu * k_gravity_dv;
  PatchBox s = patch_box(speed, 2);
  const SolverSettings settings = patch_settings(SolverType::pgs);
  write_rows(s, settings);
  s.p.solve(SolverType::pgs, settings);
  std::vector<ContactManifold> manifolds{s.manifold};
  store_contact_impulses(s.p.rows, s.manifold_rows, manifolds, settings, Real(1) / 60);
  Vec3 sum = Vec3::zero();
  Real moment = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const ContactState& c = manifolds[0].points[k];
    sum += c.friction_impulse;
    moment += cross(c.point.position, c.friction_impulse).y;  // the centre is the origin
    EXPECT_FLOAT_EQ(c.normal_impulse, s.p.rows.lambda[k_first_normal + k]);
  }
  const Vec3 tangent = s.p.rows.j_lin_b(k_t1) * s.p.rows.lambda[k_t1] +
                       s.p.rows.j_lin_b(k_t2) * s.p.rows.lambda[k_t2];
  EXPECT_LT(length(sum - tangent), 1e-6);
  EXPECT_NEAR(moment, s.p.rows.lambda[k_twist], 1e-6);

  PatchBox next = s;
  next.manifold = manifolds[0];
  write_rows(next, settings);  // still sliding along x: the same first tangent
  for (std::uint32_t row = 0; row < 7; ++row)
    EXPECT_NEAR(next.p.rows.lambda[row], s.p.rows.lambda[row], 1e-6) << "row " << row;
}

// A lopsided patch of three points on a tilted plane: the point impulses stored for a tangent
// impulse and a twist keep their sum and their moment about the points' centre, and are the
// least such (their differences from the even share are all of the twist's form, n x d_k).
TEST(PatchFriction, StoredImpulsesKeepSumAndMomentOnALopsidedPatch) {
  const Vec3 n = normalize(Vec3{Real(0.2), 1, Real(-0.3)});
  const Vec3 u = normalize(cross(n, Vec3::unit_x())), w = cross(n, u);
  PatchBox s = patch_box(3 * k_mu * k_gravity_dv, 2);
  s.manifold.normal = n;
  s.manifold.count = 3;
  const Real at[3][2] = {{Real(0.9), Real(0.1)}, {Real(-0.2), Real(0.4)}, {Real(-0.3), -1}};
  for (std::size_t k = 0; k < 3; ++k) {
    s.manifold.points[k].point.position = u * at[k][0] + w * at[k][1];
    s.manifold.points[k].point.depth = Real(0.01) * Real(k);  // the rows act midway
  }
  const SolverSettings settings = patch_settings(SolverType::pgs);
  write_rows(s, settings);
  ASSERT_EQ(s.p.rows.size(), 6u);  // a tangent pair, a twist row, three normal rows
  s.p.solve(SolverType::pgs, settings);
  std::vector<ContactManifold> manifolds{s.manifold};
  store_contact_impulses(s.p.rows, s.manifold_rows, manifolds, settings, Real(1) / 60);
  Vec3 centre = Vec3::zero();
  for (std::size_t k = 0; k < 3; ++k) {
    const ContactPoint& p = manifolds[0].points[k].point;
    centre += (p.position + n * (p.depth / 2)) / Real(3);
  }
  const Vec3 tangent = s.p.rows.j_lin_b(k_t1) * s.p.rows.lambda[k_t1] +
                       s.p.rows.j_lin_b(k_t2) * s.p.rows.lambda[k_t2];
  Vec3 sum = Vec3::zero();
  Real moment = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    const ContactState& c = manifolds[0].points[k];
    const Vec3 offset = reject(c.point.position + n * (c.point.depth / 2) - centre, n);
    sum += c.friction_impulse;
    moment += dot(n, cross(offset, c.friction_impulse));
    // Least: what is left after the even share lies along n x offset.
    const Vec3 rest = c.friction_impulse - tangent / Real(3);
    EXPECT_LT(length(cross(rest, cross(n, offset))), 1e-6) << "point " << k;
  }
  EXPECT_LT(length(sum - tangent), 1e-6);
  EXPECT_GT(std::abs(s.p.rows.lambda[k_twist]), 1e-4);  // a twist to keep
  EXPECT_NEAR(moment, s.p.rows.lambda[k_twist], 1e-6);
}

}  // namespace
}  // namespace impulse
