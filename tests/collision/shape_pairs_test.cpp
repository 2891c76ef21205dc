// The narrowphase dispatch: every pair of shape types in either order reports from a to b, and
// the contact manager's cache keeps pairs while their fat boxes overlap and drops them after.

#include <gtest/gtest.h>

#include "collision/box_box.h"
#include "collision/contact_manager.h"
#include "collision/shape_pairs.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;

std::vector<CookedShape> convex_shapes() {
  return {Sphere{Real(0.5)}, Box{{Real(0.5), Real(0.4), Real(0.3)}}, Capsule{Real(0.3), Real(0.4)},
          cook_shape(ConvexHull{{{Real(0.5), 0, 0},
                                 {Real(-0.5), 0, 0},
                                 {0, Real(0.5), 0},
                                 {0, Real(-0.5), 0},
                                 {0, 0, Real(0.5)},
                                 {0, 0, Real(-0.5)}}})};
}

TEST(ShapePairs, EitherOrderGivesTheSameContactSeenFromTheOtherSide) {
  const std::vector<CookedShape> shapes = convex_shapes();
  const Transform ta = at({0, 0, 0}, about({1, 2, 3}, 20));
  // Every shape holds a ball of radius 0.28 about its centre: 0.46 m apart, all overlap.
  const Transform tb = at({Real(0.1), Real(0.44), Real(0.05)}, about({3, -1, 2}, 35));
  for (const CookedShape& a : shapes) {
    for (const CookedShape& b : shapes) {
      std::vector<Manifold> ab, ba;
      collide_shapes(a, ta, b, tb, 0, ab);
      collide_shapes(b, tb, a, ta, 0, ba);
      SCOPED_TRACE(std::to_string(a.index()) + " against " + std::to_string(b.index()));
      ASSERT_EQ(ab.size(), 1u);
      ASSERT_EQ(ba.size(), 1u);
      EXPECT_GT(dot(ab[0].normal, tb.position - ta.position), 0);  // from a to b
      testing::expect_vec_near(ab[0].normal, -ba[0].normal, Real(1e-3));
      // The deepest points agree: the same overlap, measured from either side.
      Real deepest_ab = 0, deepest_ba = 0;
      for (int k = 0; k < ab[0].count; ++k)
        deepest_ab = std::max(deepest_ab, ab[0].points[std::size_t(k)].depth);
      for (int k = 0; k < ba[0].count; ++k)
        deepest_ba = std::max(deepest_ba, ba[0].points[std::size_t(k)].depth);
      EXPECT_NEAR(deepest_ab, deepest_ba, Real(1e-3));
    }
  }
}

TEST(ShapePairs, FlippedManifoldMovesPointsToTheOtherSurface) {
  Manifold m;
  m.normal = {0, 1, 0};
  m.add({{1, 2, 3},
         Real(0.1),
         {std::uint8_t(FeatureType::face), 4, std::uint8_t(FeatureType::vertex), 7}});
  flip_manifold(m);
  testing::expect_vec_near(m.normal, {0, -1, 0});
  testing::expect_vec_near(m.points[0].position, {1, Real(2.1), 3});
  EXPECT_EQ(m.points[0].id.index_a, 7u);
  EXPECT_EQ(m.points[0].id.type_b, std::uint8_t(FeatureType::face));
}

TEST(ShapePairs, StaticOnlyShapesNeverMeetEachOther) {
  std::vector<Manifold> out;
  collide_shapes(Plane{}, {}, Plane{{0, -1, 0}, 1}, {}, 1, out);
  EXPECT_TRUE(out.empty());
}

TEST(ContactCache, PairsStayWhileTouchingMatchByIdAndLeaveWhenApart) {
  ContactManager contacts;
  TaskPool pool;
  const auto all = [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; };
  contacts.add_shape(Box{{5, Real(0.5), 5}}, 0, at({0, Real(-0.5), 0}));
  const std::uint32_t box = contacts.add_shape(Box{}, 1, at({0, Real(0.49), 0}));
  contacts.update(0, all, pool);
  ASSERT_EQ(contacts.manifolds().size(), 1u);
  EXPECT_EQ(contacts.counts().points, 4u);
  EXPECT_EQ(contacts.counts().matched, 0u);                        // a new pair starts cold
  EXPECT_NEAR(contacts.counts().deepest, Real(0.01), Real(1e-5));  // 1 cm into the ground
  contacts.manifolds()[0].points[0].normal_impulse = 7;
  contacts.move_shape(box, at({Real(0.001), Real(0.49), 0}), {});
  contacts.update(0, all, pool);
  EXPECT_EQ(contacts.counts().matched, 4u);
  Real carried = 0;
  for (const ContactState& c : contacts.manifolds()[0].points)
    carried += c.normal_impulse;
  EXPECT_EQ(carried, 7);  // the impulse came along with its feature id
  // Lifted clear of the margin: no manifold, but the pair stays while the fat boxes overlap.
  contacts.move_shape(box, at({0, Real(0.55), 0}), {});
  contacts.update(0, all, pool);
  EXPECT_TRUE(contacts.manifolds().empty());
  EXPECT_EQ(contacts.counts().deepest, 0);
  EXPECT_EQ(contacts.counts().pairs, 1u);
  // Far away: the pair leaves the cache, and coming back starts cold.
  contacts.move_shape(box, at({0, 5, 0}), {});
  contacts.update(0, all, pool);
  EXPECT_EQ(contacts.counts().pairs, 0u);
  contacts.move_shape(box, at({0, Real(0.49), 0}), {});
  contacts.update(0, all, pool);
  EXPECT_EQ(contacts.counts().points, 4u);
  EXPECT_EQ(contacts.counts().matched, 0u);
}

// move_shape's two halves: a move within the fat box places the shape (its pose, for the
// narrowphase) and leaves the broadphase alone; one out of it is flagged, and move_placed then
// moves it in the broadphase, after which the pairs are found as move_shape would find them.
TEST(ContactCache, APlacedShapeMovesInTheBroadphaseOnlyOutOfItsFatBox) {
  ContactManager contacts;
  TaskPool pool;
  const auto all = [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; };
  contacts.add_shape(Box{{5, Real(0.5), 5}}, 0, at({0, Real(-0.5), 0}));
  const std::uint32_t box = contacts.add_shape(Box{}, 1, at({0, 3, 0}));
  contacts.update(0, all, pool);
  ASSERT_EQ(contacts.counts().pairs, 0u);
  const Transform nudged = at({0, Real(3.01), 0});
  EXPECT_FALSE(contacts.place_shape(box, nudged, {}));
  EXPECT_EQ(contacts.pose(box).position.y, nudged.position.y);
  ASSERT_TRUE(contacts.place_shape(box, at({0, Real(0.49), 0}), {}));
  contacts.update(0, all, pool);
  EXPECT_EQ(contacts.counts().pairs, 0u);  // placed, not yet moved in the broadphase
  contacts.move_placed(box);
  contacts.update(0, all, pool);
  EXPECT_EQ(contacts.counts().pairs, 1u);
  EXPECT_EQ(contacts.counts().points, 4u);
  contacts.move_placed(box);  // moved already: nothing more to do
  contacts.update(0, all, pool);
  EXPECT_EQ(contacts.counts().pairs, 1u);
}

// Two boxes corner to corner, one moving 18 cm towards the other this step: its speculative margin
// is the world's 2 cm and that sweep, 20 cm. Their world boxes are 21.7 cm apart on y, so the boxes
// themselves are farther apart than the margin; the separating axes alone measure only 18.5 cm
// (the gap lies along no face normal or edge cross product) and would give a speculative point:
// the manager lists none. Five centimetres closer the pair is within the margin and gets its point.
TEST(ContactCache, ShapesFartherApartThanTheMarginGetNoSpeculativeContact) {
  const Box box{};
  const Real margin = Real(0.02), sweep = Real(0.18);
  const Transform a{{},
                    normalize(Quat{Real(-0.6411), Real(-0.0975), Real(-0.6029), Real(-0.4648)})};
  const Quat turn_b = normalize(Quat{Real(0.6667), Real(0.6548), Real(-0.2454), Real(0.2581)});
  const Vec3 apart{Real(0.6474), Real(-1.8026), Real(0.0461)};
  const Vec3 towards_a = -normalize(apart);
  const auto listed = [&](Real closer) {
    const Transform b{apart + towards_a * closer, turn_b};
    ContactManager contacts;
    TaskPool pool;
    contacts.add_shape(box, 1, a);
    const std::uint32_t moving = contacts.add_shape(box, 2, at({0, -10, 0}));
    contacts.move_shape(moving, b, towards_a * sweep);  // its fat box stretched towards a
    contacts.update(
        margin, [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; }, pool);
    EXPECT_EQ(contacts.counts().pairs, 1u);
    Manifold axes_alone;
    EXPECT_TRUE(collide_box_box(box, a, box, b, margin + sweep, axes_alone));
    const AABB box_a = shape_bounds(CookedShape(box), a), box_b = shape_bounds(CookedShape(box), b);
    return std::pair{contacts.manifolds().size(), box_a.lower.y - box_b.upper.y};
  };
  const auto [far_manifolds, far_gap] = listed(Real(0.02));
  EXPECT_GT(far_gap, Real(0.21));
  EXPECT_EQ(far_manifolds, 0u);
  const auto [near_manifolds, near_gap] = listed(Real(0.05));
  EXPECT_LT(near_gap, margin + sweep);
  EXPECT_EQ(near_manifolds, 1u);
}

TEST(ContactCache, PartsOfOneBodyNeverPair) {
  ContactManager contacts;
  TaskPool pool;
  contacts.add_shape(Box{}, 3, at({}));
  contacts.add_shape(Sphere{}, 3, at({Real(0.2), 0, 0}));
  contacts.update(
      0, [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; }, pool);
  EXPECT_EQ(contacts.counts().pairs, 0u);
}

}  // namespace
}  // namespace impulse
