// The order contact rows are written in (ContactOrder): the manifolds that push, touch or would
// touch within two steps first, the idle ones (every point apart by more than the slop, no impulse
// carried, not closing the gap within two steps) after them, each in list order; decided again
// only when the list's structure changes. And the writer on such an order: each manifold's rows
// where its record says, its impulses stored back to it.

#include <gtest/gtest.h>

#include <vector>

#include "constraints/contact_order.h"
#include "constraints/contact_rows.h"
#include "solver/row_problem.h"

namespace impulse {
namespace {

constexpr Real k_slop = Real(0.005);
constexpr Real k_dt = Real(1) / 60;

// Unit boxes side by side along x on static ground (body 0), at rest: box k's centre at x = k.
struct Boxes {
  std::vector<BodyMotion> motions;
  std::vector<BodyVelocity> velocities;
  std::vector<ContactManifold> manifolds;

  explicit Boxes(std::size_t count) : motions(count + 1), velocities(count + 1) {
    for (std::size_t k = 1; k <= count; ++k)
      motions[k].center = {Real(k), Real(0.5), 0};
  }
  // A one-point manifold from box a to box b (normal +x) at the middle of a's side facing +x,
  // `depth` deep (negative: apart).
  ContactManifold& add(std::uint32_t a, std::uint32_t b, Real depth) {
    ContactManifold& m = manifolds.emplace_back();
    m.body_a = m.shape_a = a;
    m.body_b = m.shape_b = b;
    m.normal = Vec3::unit_x();
    m.count = 1;
    m.points[0].point.position = {Real(a) + Real(0.5), Real(0.5), 0};
    m.points[0].point.depth = depth;
    return m;
  }
  std::vector<std::uint32_t> order_by(ContactOrder& contact_order) const {
    const std::span<const std::uint32_t> o =
        contact_order.update(manifolds, motions, velocities, k_slop, k_dt);
    return {o.begin(), o.end()};
  }
};

TEST(ContactOrder, IdleManifoldsComeAfterTheOthersEachInListOrder) {
  Boxes boxes(9);
  boxes.add(1, 2, Real(0.001));                                       // 0: touching
  boxes.add(2, 3, Real(-0.02));                                       // 1: idle
  boxes.add(3, 4, Real(-0.001));                                      // 2: apart within the slop
  boxes.add(4, 5, Real(-0.02)).points[0].normal_impulse = Real(0.1);  // 3: carried an impulse
  boxes.add(5, 6, Real(-0.02));                                       // 4: idle
  boxes.add(6, 7, Real(-0.02));  // 5: closing at 1 m/s: 3.3 cm within two steps
  boxes.velocities[6].linear = {Real(1), 0, 0};
  // 6: at the top of the facing sides, box 8 turning towards box 7 there at 1 m/s
  boxes.add(7, 8, Real(-0.02)).points[0].point.position.y = 1;
  boxes.velocities[8].angular = {0, 0, Real(2)};
  // 7: friction carried apart (the constant model bounds it without the normal impulse)
  boxes.add(8, 9, Real(-0.02)).points[0].friction_impulse = {0, Real(0.1), 0};
  ContactOrder contact_order;
  EXPECT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{0, 2, 3, 5, 6, 7, 1, 4}));
}

TEST(ContactOrder, ClosingTooSlowlyToTouchWithinTwoStepsStaysIdle) {
  Boxes boxes(2);
  boxes.add(1, 2, Real(-0.02));
  boxes.add(2, 1, Real(0.001));
  // 0.4 m/s: 1.3 cm of the 2 cm gap within two steps, still more than the slop apart.
  boxes.velocities[1].linear = {Real(0.4), 0, 0};
  ContactOrder contact_order;
  EXPECT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{1, 0}));
}

TEST(ContactOrder, KeepsItsOrderUntilTheListsStructureChanges) {
  Boxes boxes(3);
  ContactOrder contact_order;
  EXPECT_TRUE(boxes.order_by(contact_order).empty());  // no contacts yet
  boxes.add(1, 2, Real(-0.02));
  boxes.add(2, 3, Real(0.001));
  ASSERT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{1, 0}));
  // The idle manifold touches and pushes: the same structure, the same order (the solver's layout
  // holds).
  boxes.manifolds[0].points[0].point.depth = Real(0.001);
  boxes.manifolds[0].points[0].normal_impulse = Real(0.2);
  EXPECT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{1, 0}));
  // A point more: the order is decided again.
  boxes.manifolds[1].count = 2;
  boxes.manifolds[1].points[1] = boxes.manifolds[1].points[0];
  EXPECT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{0, 1}));
  // The first is idle again, which alone moves nothing; a manifold more: decided again.
  boxes.manifolds[0].points[0].point.depth = Real(-0.03);
  boxes.manifolds[0].points[0].normal_impulse = 0;
  EXPECT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{0, 1}));
  boxes.add(3, 1, Real(0.001));
  EXPECT_EQ(boxes.order_by(contact_order), (std::vector<std::uint32_t>{1, 2, 0}));
}

TEST(ContactOrder, TheWriterPlacesEachManifoldsRowsInTheOrderGivenAndStoresThemBack) {
  // Box 1 on the ground by one point, box 2 by two; written box 2's first.
  testing::RowProblem p;
  p.add_body(0);
  p.add_body(1);
  p.add_body(1);
  std::vector<BodyMotion> motions(3);
  std::vector<ContactManifold> manifolds(2);
  for (std::uint32_t k = 0; k < 2; ++k) {
    ContactManifold& m = manifolds[k];
    m.body_a = 0;
    m.body_b = k + 1;
    m.normal = Vec3::unit_y();
    m.count = int(k) + 1;
    motions[k + 1].center = {Real(2 * k), Real(0.5), 0};
    for (int c = 0; c < m.count; ++c) {
      m.points[std::size_t(c)].point.position = {Real(2 * k) + Real(0.5 * c), 0, 0};
      m.points[std::size_t(c)].point.depth = Real(0.001);
    }
  }
  SolverSettings solver;
  solver.friction_model = FrictionModel::coulomb;
  const ContactRowSettings settings{k_dt, 1, Real(9.81), &solver, {}};
  const std::vector<std::uint32_t> order{1, 0};
  std::vector<ManifoldRows> where;
  write_contact_rows(
      std::span(manifolds), motions, p.masses, p.velocities,
      [](const ContactManifold&) { return true; },
      [](std::uint32_t) {
        return ContactMaterial{Real(0.5), 0};
      },
      [](std::uint32_t) { return 1; }, settings, order, p.rows, where);
  ASSERT_EQ(p.rows.size(), 9u);
  EXPECT_EQ(where[1].first_row, 0u);  // box 2's six rows, then box 1's three
  EXPECT_EQ(where[0].first_row, 6u);
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    EXPECT_EQ(p.rows.body_b[i], i < 6 ? 2u : 1u) << "row " << i;
    p.rows.lambda[i] = Real(i + 1);
  }
  // A manifold's friction rows (two a point), then its normal rows.
  store_contact_impulses(p.rows, where, manifolds, solver, k_dt);
  EXPECT_EQ(manifolds[0].points[0].normal_impulse, Real(9));
  EXPECT_EQ(manifolds[1].points[0].normal_impulse, Real(5));
  EXPECT_EQ(manifolds[1].points[1].normal_impulse, Real(6));
}

}  // namespace
}  // namespace impulse
