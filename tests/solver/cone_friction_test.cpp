// The two friction models on a box sliding on the ground, its four contact points written as rows
// (no collision code): a normal along y and two tangent rows along x and z per point. Pushed at 45
// degrees to the tangent axes, the box model (coulomb) lets each point's friction reach the box's
// corner, sqrt(2) mu lambda_n; the cone model (seed 003: the tangent impulse clamped to the disc)
// keeps it within mu lambda_n and opposite the slip. The laws checked are Coulomb's: a push the
// friction can absorb sticks; a larger one slides, losing exactly mu g dt of speed (the cone) or
// sqrt(2) mu g dt (the box at 45 degrees).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include <Eigen/Dense>

#include "solver/residual.h"
#include "solver/row_problem.h"

namespace impulse {
namespace {

using testing::RowProblem;

constexpr Real k_mu = Real(0.5);
constexpr Real k_half = Real(0.5);              // m, half the box's side
constexpr Real k_gravity_dv = Real(9.81) / 60;  // m/s: gravity's velocity over one 60 Hz step
const Vec3 k_push_dir = normalize(Vec3{1, 0, 1});

struct Contact {
  std::uint32_t normal, t1, t2;  // rows; t1 along x, t2 along z
};

struct SlidingBox {
  RowProblem p;
  std::uint32_t box = 0;
  std::vector<Contact> contacts;
};

// A 1 kg cube (inertia m (2h)^2 / 6) on static ground, falling at g dt and moving at `speed` along
// the push direction, touching at `points` corners of its base (4, or a tripod of 3).
SlidingBox sliding_box(Real speed, FrictionModel model, int points = 4) {
  SlidingBox s;
  s.p.add_body(0);
  s.box = s.p.add_body(1, speed * k_push_dir - Vec3{0, k_gravity_dv, 0});
  s.p.masses[s.box].inv_inertia = Mat33::diagonal(Vec3::splat(Real(6) / (4 * k_half * k_half)));
  const Real corners[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  for (int k = 0; k < points; ++k) {
    const Vec3 r{corners[k][0] * k_half, -k_half, corners[k][1] * k_half};
    const auto row = [&](const Vec3& axis) {
      RowSpec spec;
      spec.body_a = s.box;
      spec.body_b = 0;
      spec.j_lin_a = axis;
      spec.j_ang_a = cross(r, axis);
      return spec;
    };
    RowSpec normal = row(Vec3::unit_y());
    normal.lo = 0;
    const auto n = s.p.rows.add(normal);
    RowSpec t1 = row(Vec3::unit_x()), t2 = row(Vec3::unit_z());
    t1.normal_row = t2.normal_row = std::int32_t(n);
    t1.mu = t2.mu = k_mu;
    t1.cone = model == FrictionModel::cone;
    const auto first = s.p.rows.add(t1);
    s.contacts.push_back({n, first, s.p.rows.add(t2)});
  }
  return s;
}

SolverSettings converged(SolverType type) {
  // The budgets of RandomMlcp (docs/solvers.md), with a tolerance near float's floor.
  SolverSettings settings = testing::iterations(type == SolverType::jacobi ? 20000 : 2000);
  settings.tolerance = Real(1e-7);
  return settings;
}

Vec3 friction_of(const SlidingBox& s, const Contact& c) {
  return {s.p.rows.lambda[c.t1], 0, s.p.rows.lambda[c.t2]};
}

Real slip(const SlidingBox& s, std::uint32_t row) {
  return row_velocity(s.p.rows, row, s.p.velocities);
}

Real angle_between(const Vec3& a, const Vec3& b) {
  return std::atan2(length(cross(a, b)), dot(a, b));
}

Vec3 horizontal(const Vec3& v) {
  return {v.x, 0, v.z};
}

// Sliding: three times the speed one step's friction can take away.
constexpr Real k_sliding_speed = 3 * k_mu * k_gravity_dv;
// Sticking: half of it.
constexpr Real k_sticking_speed = Real(0.5) * k_mu * k_gravity_dv;

TEST(ConeFriction, SlidingBoxFrictionStaysInTheDiscAndOpposesTheSlip) {
  for (SolverType type : testing::k_all_solvers) {
    SlidingBox s = sliding_box(k_sliding_speed, FrictionModel::cone);
    const SolveStats stats = s.p.solve(type, converged(type));
    const std::string label = solver_type_name(type);
    ASSERT_EQ(stats.status, SolveStatus::ok) << label << ": " << stats.diagnostic;
    EXPECT_LT(stats.complementarity_error, 1e-4) << label;
    for (const Contact& c : s.contacts) {
      const Vec3 friction = friction_of(s, c);
      const Real radius = k_mu * s.p.rows.lambda[c.normal];
      EXPECT_LE(length(friction), radius * (1 + Real(1e-5))) << label;
      EXPECT_NEAR(length(friction), radius, radius * Real(1e-4)) << label << ": on the rim";
      EXPECT_LT(angle_between(friction, -k_push_dir), 1e-3) << label;
    }
    // Coulomb's sliding law: the speed drops by mu g dt, along the push.
    const Vec3 v = horizontal(s.p.velocities[s.box].linear);
    EXPECT_NEAR(length(v), k_sliding_speed - k_mu * k_gravity_dv, 1e-5) << label;
    EXPECT_LT(angle_between(v, k_push_dir), 1e-3) << label;
  }
}

TEST(ConeFriction, BoxModelReachesTheCornerOfTheBoxAt45Degrees) {
  for (SolverType type : testing::k_all_solvers) {
    SlidingBox s = sliding_box(k_sliding_speed, FrictionModel::coulomb);
    const SolveStats stats = s.p.solve(type, converged(type));
    const std::string label = solver_type_name(type);
    ASSERT_EQ(stats.status, SolveStatus::ok) << label << ": " << stats.diagnostic;
    for (const Contact& c : s.contacts) {
      const Real radius = k_mu * s.p.rows.lambda[c.normal];
      // 1e-7 N s absolute: iterative solvers may leave a point nearly unloaded (the four normal
      // impulses are not unique), where float rounding is relatively large.
      EXPECT_NEAR(length(friction_of(s, c)), std::sqrt(Real(2)) * radius,
                  radius * Real(1e-4) + Real(1e-7))
          << label;
    }
    const Vec3 v = horizontal(s.p.velocities[s.box].linear);
    EXPECT_NEAR(length(v), k_sliding_speed - std::sqrt(Real(2)) * k_mu * k_gravity_dv, 1e-5)
        << label;
  }
}

TEST(ConeFriction, PushBelowTheThresholdSticks) {
  for (SolverType type : testing::k_all_solvers) {
    SlidingBox s = sliding_box(k_sticking_speed, FrictionModel::cone);
    const SolveStats stats = s.p.solve(type, converged(type));
    const std::string label = solver_type_name(type);
    ASSERT_EQ(stats.status, SolveStatus::ok) << label << ": " << stats.diagnostic;
    for (const Contact& c : s.contacts) {
      EXPECT_NEAR(slip(s, c.t1), 0, 1e-5) << label;
      EXPECT_NEAR(slip(s, c.t2), 0, 1e-5) << label;
      EXPECT_LE(length(friction_of(s, c)), k_mu * s.p.rows.lambda[c.normal] * (1 + Real(1e-5)));
    }
    Vec3 total;
    for (const Contact& c : s.contacts)
      total += friction_of(s, c);
    EXPECT_NEAR(length(total + k_sticking_speed * k_push_dir), 0, 1e-5) << label;
  }
}

// A harder case for agreement: pushed at 30 degrees and spinning about y, so every point slips in
// its own direction, on a box of unequal inertia, so each pair's 2 x 2 block of A is anisotropic
// and coupled (the case where a step per row would miss maximal dissipation). On three points: on
// four, the split of the load among them is not unique, and with spin neither is the velocity
// (each point's friction torque follows its load); measured, jacobi then stops at another exact
// solution 1.6e-3 m/s away from the others.
SlidingBox spinning_box(Real speed) {
  SlidingBox s = sliding_box(0, FrictionModel::cone, 3);
  s.p.velocities[s.box].linear =
      speed * Vec3{std::cos(Real(0.52)), 0, std::sin(Real(0.52))} - Vec3{0, k_gravity_dv, 0};
  s.p.velocities[s.box].angular = {0, 4 * speed, 0};
  s.p.masses[s.box].inv_inertia = Mat33::diagonal({5, 9, 14});
  return s;
}

// Every solver against the pivoting reference. The body velocity is compared, not per-row
// impulses: the contacts over-determine the box (A is singular), so the impulses are not unique,
// but in these cases the velocity is. Tolerance 2e-5 m/s: the solvers stop at a relative residual
// of 1e-7 (jacobi's step criterion stops it near 1e-6), with velocities of 0.04 to 0.25 m/s in
// float; measured differences are below 1e-7 m/s (jacobi 6e-7).
TEST(ConeFriction, EverySolverAgreesWithThePivotingReference) {
  for (const Real speed : {k_sticking_speed, k_sliding_speed}) {
    for (const bool spinning : {false, true}) {
      const SlidingBox start =
          spinning ? spinning_box(speed) : sliding_box(speed, FrictionModel::cone);
      SlidingBox reference = start;
      const SolveStats exact = reference.p.solve(SolverType::pivoting, testing::iterations(1));
      ASSERT_EQ(exact.status, SolveStatus::ok)
          << exact.diagnostic << ", speed " << speed << (spinning ? ", spinning" : "");
      for (SolverType type : testing::k_all_solvers) {
        SlidingBox s = start;
        const SolveStats stats = s.p.solve(type, converged(type));
        const std::string label = std::string(solver_type_name(type)) + ", speed " +
                                  std::to_string(speed) + (spinning ? ", spinning" : "");
        EXPECT_LT(stats.complementarity_error, 1e-4) << label;
        const BodyVelocity& v = s.p.velocities[s.box];
        const BodyVelocity& ref = reference.p.velocities[s.box];
        EXPECT_LT(length(v.linear - ref.linear), 2e-5) << label;
        EXPECT_LT(length(v.angular - ref.angular), 2e-5) << label;
        for (const Contact& c : s.contacts) {
          EXPECT_LE(length(friction_of(s, c)), k_mu * s.p.rows.lambda[c.normal] * (1 + Real(1e-5)))
              << label;
        }
      }
    }
  }
}

TEST(ConeFriction, SameInputsGiveBitIdenticalResults) {
  for (SolverType type : testing::k_all_solvers) {
    for (const bool shuffle : {false, true}) {
      SolverSettings settings = testing::iterations(30);
      settings.shuffle = shuffle;
      settings.sor = Real(1.3);
      SlidingBox first = spinning_box(k_sliding_speed), second = first;
      first.p.solve(type, settings);
      second.p.solve(type, settings);
      const std::string label = solver_type_name(type);
      EXPECT_EQ(std::memcmp(first.p.rows.lambda.data(), second.p.rows.lambda.data(),
                            first.p.rows.lambda.size() * sizeof(Real)),
                0)
          << label;
      EXPECT_EQ(std::memcmp(first.p.velocities.data(), second.p.velocities.data(),
                            first.p.velocities.size() * sizeof(BodyVelocity)),
                0)
          << label;
    }
  }
}

TEST(ConeFriction, PgsOnRowsEqualsGaussSeidelOnTheDenseMatrix) {
  // The pair step is the same algorithm on both representations (as for the box rows).
  for (const bool shuffle : {false, true}) {
    SolverSettings settings = testing::iterations(7);
    settings.shuffle = shuffle;
    settings.sor = Real(1.2);
    SlidingBox rows = spinning_box(k_sliding_speed), matrix = rows;
    rows.p.solve(SolverType::pgs, settings);
    matrix.p.solve(SolverType::global_dense, settings);
    for (std::size_t i = 0; i < rows.p.rows.size(); ++i)
      EXPECT_NEAR(rows.p.rows.lambda[i], matrix.p.rows.lambda[i], 1e-5) << "row " << i;
  }
}

// Random contacts (seeded) between 2 to 4 bodies of random mass and inertia and the world: each a
// normal row and a cone pair on the same bodies (random normal, lever arms and mu in [0.1, 1]).
// Every solver must meet the disc conditions; where A is positive definite (so one solution is
// expected) the iterative solvers must reach the pivoting solution: within 1e-4 relative, jacobi
// 5e-4. At float's floor jacobi's velocities stop changing while a rim pair's impulse keeps
// turning by steps too small to move them (measured: 1e-4 relative per 10000 iterations on a
// converged problem); its velocities and residual are as accurate as the others'.
TEST(ConeFriction, RandomContactsMeetTheDiscConditionsAndMatchTheReference) {
  std::mt19937 rng(20261122);
  const auto uniform = [&](Real lo, Real hi) {
    return std::uniform_real_distribution<Real>(lo, hi)(rng);
  };
  const auto random_vec = [&]() { return Vec3{uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)}; };
  int compared = 0;
  constexpr int k_problems = 200;
  for (int problem = 0; problem < k_problems; ++problem) {
    RowProblem start;
    start.add_body(0);
    const int body_count = std::uniform_int_distribution<int>(2, 4)(rng);
    for (int k = 0; k < body_count; ++k) {
      const std::uint32_t body = start.add_body(uniform(Real(0.5), 5), random_vec());
      start.masses[body].inv_inertia =
          Mat33::diagonal({uniform(Real(0.5), 5), uniform(Real(0.5), 5), uniform(Real(0.5), 5)});
    }
    const int contacts = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int c = 0; c < contacts; ++c) {
      RowSpec row;
      row.body_a = std::uint32_t(std::uniform_int_distribution<int>(1, body_count)(rng));
      row.body_b = std::uint32_t(std::uniform_int_distribution<int>(0, body_count)(rng));
      if (row.body_b == row.body_a) row.body_b = 0;
      // A contact point: normal n and tangents t1, t2 orthonormal, lever arms r_a and r_b.
      const Vec3 n = normalize(random_vec());
      const Vec3 t1 =
          normalize(cross(n, std::abs(n.x) < Real(0.6) ? Vec3::unit_x() : Vec3::unit_y()));
      const Vec3 t2 = cross(n, t1);
      const Vec3 r_a = random_vec(), r_b = random_vec();
      const auto along = [&](const Vec3& axis) {
        RowSpec r = row;
        r.j_lin_a = axis;
        r.j_ang_a = cross(r_a, axis);
        r.j_lin_b = r.body_b != 0 ? -axis : Vec3::zero();
        r.j_ang_b = r.body_b != 0 ? -cross(r_b, axis) : Vec3::zero();
        return r;
      };
      RowSpec normal = along(n);
      normal.lo = 0;
      normal.bias = uniform(-1, 1);
      const auto normal_index = start.rows.add(normal);
      RowSpec f1 = along(t1), f2 = along(t2);
      f1.normal_row = f2.normal_row = std::int32_t(normal_index);
      f1.mu = f2.mu = uniform(Real(0.1), 1);
      f1.cone = true;
      start.rows.add(f1);
      start.rows.add(f2);
    }
    start.rows.prepare(start.masses);
    const auto size = Eigen::Index(start.rows.size());
    Eigen::MatrixXd a(size, size);
    for (Eigen::Index i = 0; i < size; ++i) {
      for (Eigen::Index j = 0; j < size; ++j)
        a(i, j) = start.rows.coupling(std::size_t(i), std::size_t(j));
    }
    const bool positive_definite =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues().minCoeff() >
        1e-3 * a.diagonal().maxCoeff();

    RowProblem reference = start;
    const SolveStats exact = reference.solve(SolverType::pivoting, testing::iterations(1));
    ASSERT_EQ(exact.status, SolveStatus::ok) << "problem " << problem << ": " << exact.diagnostic;
    EXPECT_LT(exact.complementarity_error, 1e-4) << "problem " << problem;
    compared += positive_definite;
    for (SolverType type : testing::k_all_solvers) {
      RowProblem p = start;
      const SolveStats stats = p.solve(type, converged(type));
      const std::string label =
          std::string(solver_type_name(type)) + " on problem " + std::to_string(problem);
      EXPECT_LT(stats.complementarity_error, 1e-3) << label;
      for (std::size_t i = 0; i < p.rows.size(); ++i) {
        if (!p.rows.disc_first(i)) continue;
        const Real length = std::sqrt(p.rows.lambda[i] * p.rows.lambda[i] +
                                      p.rows.lambda[i + 1] * p.rows.lambda[i + 1]);
        EXPECT_LE(length, p.rows.disc_radius(i) * (1 + Real(1e-5)) + Real(1e-7)) << label;
      }
      if (!positive_definite) continue;
      double diff = 0, norm = 0;
      for (std::size_t i = 0; i < p.rows.size(); ++i) {
        diff += std::pow(double(p.rows.lambda[i] - reference.rows.lambda[i]), 2);
        norm += std::pow(double(reference.rows.lambda[i]), 2);
      }
      const double tolerance = type == SolverType::jacobi ? 5e-4 : 1e-4;
      EXPECT_LT(std::sqrt(diff), tolerance * std::max(std::sqrt(norm), 1e-6))
          << label << " after " << stats.iterations << " iterations";
    }
  }
  EXPECT_GT(compared, k_problems / 2);
}

TEST(ConeRows, PairIsOneBlockAndItsPartnerIsChecked) {
  RowStore rows;
  RowSpec normal;
  normal.lo = 0;
  const auto n = rows.add(normal);
  RowSpec t;
  t.normal_row = std::int32_t(n);
  t.mu = k_mu;
  t.cone = true;
  rows.add(t);
  EXPECT_THROW(rows.begin_block(), std::invalid_argument);
  RowSpec partner = t;
  partner.cone = false;
  partner.mu = 2 * k_mu;
  EXPECT_THROW(rows.add(partner), std::invalid_argument);  // another mu: not the partner
  partner.mu = k_mu;
  rows.add(partner);
  EXPECT_EQ(rows.block_begin, (std::vector<std::uint32_t>{0, 1, 3}));
  EXPECT_EQ(std::vector<std::uint8_t>(rows.cone.begin(), rows.cone.end()),
            (std::vector<std::uint8_t>{0, 1, 0}));

  RowSpec not_friction;
  not_friction.cone = true;
  EXPECT_THROW(rows.add(not_friction), std::invalid_argument);
  rows.add(t);
  EXPECT_THROW(rows.prepare({SolverBodyMass{}}), std::invalid_argument);
}

TEST(ConeRows, ProjectionScalesOntoTheDisc) {
  const TangentPair inside = project_to_disc({Real(0.3), Real(-0.4)}, 1);
  EXPECT_EQ(inside.t1, Real(0.3));
  EXPECT_EQ(inside.t2, Real(-0.4));
  const TangentPair outside = project_to_disc({3, -4}, 2);
  EXPECT_NEAR(outside.t1, Real(1.2), 1e-6);
  EXPECT_NEAR(outside.t2, Real(-1.6), 1e-6);
  const TangentPair unloaded = project_to_disc({3, -4}, 0);
  EXPECT_EQ(unloaded.t1, 0);
  EXPECT_EQ(unloaded.t2, 0);
}

}  // namespace
}  // namespace impulse
