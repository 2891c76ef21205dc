#pragma once
// Contact manifolds' rows written straight into a RowProblem, as the contact writer lays them out
// (no collision code): for the batch tests (unit_batches_test.cpp) and the batch benchmark
// (bench/batch_bench.cpp); and the contact writer itself on manifolds built by hand (the friction
// tests, bench/contact_rows_bench.cpp).

#include "constraints/contact_rows.h"
#include "row_problem.h"

#include <numeric>

namespace impulse::testing {

// The rows of a manifold between bodies a and b with `points` contact points (1, 2 or 4, the
// corners of a unit box's face), written as the contact writer writes them: a block of friction
// rows (per point, two each bounded by the point's normal row; or the patch model's two tangents
// and a twist, bounded by all the normal rows), then the normal rows, whose targets `bias` scales
// (one point's normal row is a row alone, the others a group).
inline void add_manifold(RowProblem& p, std::uint32_t a, std::uint32_t b, int points, bool patch,
                         Real bias) {
  const Vec3 n = Vec3::unit_y();
  const auto corner = [&](int k, Real side) {
    return Vec3{k % 2 == 0 ? Real(-0.5) : Real(0.5), side, k < 2 ? Real(-0.5) : Real(0.5)};
  };
  const auto row = [&](const Vec3& lin, const Vec3& ang_a, const Vec3& ang_b) {
    RowSpec spec;
    spec.body_a = a;
    spec.body_b = b;
    spec.j_lin_a = lin;
    spec.j_ang_a = ang_a;
    spec.j_lin_b = -lin;
    spec.j_ang_b = -ang_b;
    return spec;
  };
  const auto first = std::int32_t(p.rows.size());
  const std::int32_t friction_rows = patch ? 3 : 2 * points;
  p.rows.begin_block();
  if (patch) {
    for (const Vec3& t : {Vec3::unit_x(), Vec3::unit_z()}) {
      RowSpec f = row(t, cross(Vec3{0, Real(-0.5), 0}, t), cross(Vec3{0, Real(0.5), 0}, t));
      f.normal_row = first + friction_rows;
      f.normal_count = std::uint8_t(points);
      f.mu = Real(0.5);
      p.rows.add(f);
    }
    RowSpec twist = row(Vec3::zero(), n, n);
    twist.normal_row = first + friction_rows;
    twist.normal_count = std::uint8_t(points);
    twist.mu = Real(0.25);
    p.rows.add(twist);
  } else {
    for (int k = 0; k < points; ++k) {
      for (const Vec3& t : {Vec3::unit_x(), Vec3::unit_z()}) {
        RowSpec f = row(t, cross(corner(k, Real(-0.5)), t), cross(corner(k, Real(0.5)), t));
        f.normal_row = first + friction_rows + k;
        f.mu = Real(0.5);
        p.rows.add(f);
      }
    }
  }
  for (int k = 0; k < points; ++k) {
    RowSpec normal = row(n, cross(corner(k, Real(-0.5)), n), cross(corner(k, Real(0.5)), n));
    normal.lo = 0;
    normal.bias = bias * Real(0.01) * Real(1 + k);
    p.rows.add(normal);
  }
  p.rows.end_block();
}

// Columns of unit boxes on the ground (body 0), numbered row by row, each resting on the one
// below (add_manifold). Every third column touches along an edge (two points: a group padded to
// four rows); every fifth box flies up off its support (an idle manifold); the others fall, slide
// and spin at different speeds, so some groups lift a corner (the all-rows solve fails and the
// group is visited alone). `bias` scales the normal rows' targets (a second solve on the same
// layout with other numbers). With one_point_every n > 0, every nth column's boxes but those on
// edges stand on a corner (one point: a lone normal row).
inline RowProblem columns(int width, int height, bool patch, Real bias = 1,
                          int one_point_every = 0) {
  RowProblem p;
  p.add_body(0);
  for (int k = 0; k < width * height; ++k) {
    const Real up = k % 5 == 4 ? Real(3) : Real(-1) - Real(k % 4) * Real(0.1);
    p.add_body(1 + Real(k % 5) * Real(0.3),
               {Real(k % 3) * Real(0.2) - Real(0.2), up, Real(k % 7) * Real(0.05)});
    p.velocities.back().angular = {Real(k % 2) * Real(0.9), 0, Real(k % 3) * Real(-0.6)};
  }
  const auto box = [&](int x, int y) { return std::uint32_t(1 + y * width + x); };
  const auto points = [&](int x) {
    if (x % 3 == 2) return 2;
    return one_point_every > 0 && x % one_point_every == one_point_every - 1 ? 1 : 4;
  };
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x)
      add_manifold(p, box(x, y), y == 0 ? 0 : box(x, y - 1), points(x), patch, bias);
  }
  p.rows.prepare(p.masses);
  return p;
}

// The engine's contact writer (write_contact_rows) on every manifold in list order, on one thread,
// with friction mu and no restitution on every body, each body counted with four contact points
// (the constant model's share of mass).
inline void write_contact_rows_with(Real mu, std::span<ContactManifold> manifolds,
                                    std::span<const BodyMotion> motions,
                                    std::span<const SolverBodyMass> masses,
                                    std::span<const BodyVelocity> velocities,
                                    const ContactRowSettings& settings, RowStore& rows,
                                    std::vector<ManifoldRows>& where) {
  // Kept from call to call: the writer's benchmark calls this in its timed loop.
  static std::vector<std::uint32_t> list_order;
  if (list_order.size() < manifolds.size()) {
    list_order.resize(manifolds.size());
    std::iota(list_order.begin(), list_order.end(), std::uint32_t(0));
  }
  write_contact_rows(
      manifolds, motions, masses, velocities, [](const ContactManifold&) { return true; },
      [mu](std::uint32_t) {
        return ContactMaterial{mu, 0};
      },
      [](std::uint32_t) { return 4; }, settings, std::span(list_order).first(manifolds.size()),
      rows, where);
}

}  // namespace impulse::testing
