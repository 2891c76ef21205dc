// The order contact rows are written in (ContactOrder): the manifolds that push, touch or close
// first, the idle ones (every point apart by more than the slop, no impulse carried, not closing
// within two steps) after them, each in list order; decided again only when the list's structure
// changes.

#include <gtest/gtest.h>

#include <vector>

#include "constraints/contact_order.h"

namespace impulse {
namespace {

constexpr Real k_slop = Real(0.005);
constexpr Real k_dt = Real(1) / 60;

// Unit boxes side by side along x on static ground (body 0), at rest: body k's centre at x = k.
struct Row {
  std::vector<BodyMotion> motions;
  std::vector<BodyVelocity> velocities;
  std::vector<ContactManifold> manifolds;

  explicit Row(std::size_t boxes) : motions(boxes + 1), velocities(boxes + 1) {
    for (std::size_t k = 1; k <= boxes; ++k)
      motions[k].center = {Real(k), Real(0.5), 0};
  }
  // A one-point manifold from box a to box b (normal +x) at the middle of their facing sides,
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
  std::vector<std::uint32_t> order(ContactOrder& order) const {
    const std::span<const std::uint32_t> o =
        order.update(manifolds, motions, velocities, k_slop, k_dt);
    return {o.begin(), o.end()};
  }
};

TEST(ContactOrder, IdleManifoldsComeAfterTheOthersEachInListOrder) {
  Row row(8);
  row.add(1, 2, Real(0.001));                                       // 0: touching
  row.add(2, 3, Real(-0.02));                                       // 1: idle
  row.add(3, 4, Real(-0.001));                                      // 2: apart within the slop
  row.add(4, 5, Real(-0.02)).points[0].normal_impulse = Real(0.1);  // 3: carried an impulse
  row.add(5, 6, Real(-0.02));                                       // 4: idle
  row.add(6, 7, Real(-0.02));  // 5: closing at 1 m/s: 3.3 cm within two steps
  row.velocities[6].linear = {Real(1), 0, 0};
  // 6: at the top of the facing sides, box 8 turning towards box 7 there at 1 m/s
  row.add(7, 8, Real(-0.02)).points[0].point.position.y = 1;
  row.velocities[8].angular = {0, 0, Real(2)};
  ContactOrder order;
  EXPECT_EQ(row.order(order), (std::vector<std::uint32_t>{0, 2, 3, 5, 6, 1, 4}));
}

TEST(ContactOrder, ClosingTooSlowlyToTouchWithinTwoStepsStaysIdle) {
  Row row(2);
  row.add(1, 2, Real(-0.02));
  row.add(2, 1, Real(0.001));
  // 0.4 m/s: 1.3 cm of the 2 cm gap within two steps, still more than the slop apart.
  row.velocities[1].linear = {Real(0.4), 0, 0};
  ContactOrder order;
  EXPECT_EQ(row.order(order), (std::vector<std::uint32_t>{1, 0}));
}

TEST(ContactOrder, KeepsItsOrderUntilTheListsStructureChanges) {
  Row row(3);
  row.add(1, 2, Real(-0.02));
  row.add(2, 3, Real(0.001));
  ContactOrder order;
  ASSERT_EQ(row.order(order), (std::vector<std::uint32_t>{1, 0}));
  // The idle manifold touches and pushes: the same structure, the same order (the solver's layout
  // holds).
  row.manifolds[0].points[0].point.depth = Real(0.001);
  row.manifolds[0].points[0].normal_impulse = Real(0.2);
  EXPECT_EQ(row.order(order), (std::vector<std::uint32_t>{1, 0}));
  // A point more: the order is decided again.
  row.manifolds[1].count = 2;
  row.manifolds[1].points[1] = row.manifolds[1].points[0];
  EXPECT_EQ(row.order(order), (std::vector<std::uint32_t>{0, 1}));
  // Another manifold: again.
  row.add(3, 1, Real(-0.03));
  EXPECT_EQ(row.order(order), (std::vector<std::uint32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace impulse
