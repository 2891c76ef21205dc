// The narrowphase dispatch: every pair of shape types in either order reports from a to b, and
// the contact manager's cache keeps pairs while their fat boxes overlap and drops them after.

#include <gtest/gtest.h>

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

// A normal turns with the shape whose face it is (the contact rows reckon a point sliding over a
// turning face by it): a box's top face under every convex shape, tipped onto a corner or an end,
// in either order; nobody's where it joins two edges or a ball to a box's edge.
TEST(ShapePairs, ANormalNamesTheShapeWhoseFaceItIs) {
  const CookedShape ground = Box{{2, Real(0.5), 2}};
  const Transform tg = at({0, 0, 0}, Quat::identity());
  // Each a centimetre or two into the ground (the lowest points, tipped, reach 0.5, 0.51, 0.69,
  // 0.49).
  const std::vector<Real> heights{Real(0.48), Real(0.5), Real(0.68), Real(0.47)};
  const std::vector<CookedShape> shapes = convex_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    SCOPED_TRACE("shape " + std::to_string(shapes[i].index()));
    const Transform ts = at({Real(0.3), Real(0.5) + heights[i], Real(-0.2)}, about({1, 0, 2}, 12));
    std::vector<Manifold> on_ground, under;
    collide_shapes(ground, tg, shapes[i], ts, 0, on_ground);
    collide_shapes(shapes[i], ts, ground, tg, 0, under);
    ASSERT_EQ(on_ground.size(), 1u);
    ASSERT_EQ(under.size(), 1u);
    EXPECT_EQ(on_ground[0].normal_face, NormalFace::a);
    EXPECT_EQ(under[0].normal_face, NormalFace::b);
  }
  const CookedShape cube = Box{{Real(0.5), Real(0.5), Real(0.5)}};
  std::vector<Manifold> edges;
  collide_shapes(cube, at({0, 0, 0}, about({0, 0, 1}, 45)), cube,
                 at({0, Real(1.4), 0}, about({1, 0, 0}, 45)), 0, edges);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].normal_face, NormalFace::none);
  std::vector<Manifold> ball_on_edge;
  collide_shapes(Sphere{Real(0.5)}, at({Real(2.2), Real(0.7), 0}, Quat::identity()), ground, tg, 0,
                 ball_on_edge);
  ASSERT_EQ(ball_on_edge.size(), 1u);
  EXPECT_EQ(ball_on_edge[0].normal_face, NormalFace::none);
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

// The manifolds a manager lists for shapes a, at rest, and b, moved to its pose and moving by
// `motion` this step (its fat box stretched that way, its speculative margin the world's `margin`
// and the motion's sweep).
std::span<const ContactManifold> listed_after_move(ContactManager& contacts, const CookedShape& a,
                                                   const Transform& pose_a, const CookedShape& b,
                                                   const Transform& pose_b,
                                                   const StepMotion& motion, Real margin) {
  TaskPool pool;
  contacts.add_shape(a, 1, pose_a);
  const std::uint32_t moving = contacts.add_shape(b, 2, at({0, -10, 0}));
  contacts.move_shape(moving, pose_b, motion);
  contacts.update(
      margin, [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; }, pool);
  EXPECT_EQ(contacts.counts().pairs, 1u);
  return contacts.manifolds();
}

// Two boxes corner to corner, one moving 18 cm towards the other: its speculative margin is the
// world's 2 cm and that sweep, 20 cm. Their world boxes are 21.7 cm apart on y, so the boxes are
// farther apart than the margin, but the separating axes measure 18.5 cm (the gap lies along no
// face normal or edge cross product), and the pair keeps that speculative point.
TEST(ContactCache, FlatPairsKeepTheirSeparatingAxesSpeculativePoint) {
  const Real margin = Real(0.02), sweep = Real(0.18);
  const Transform a{{},
                    normalize(Quat{Real(-0.6411), Real(-0.0975), Real(-0.6029), Real(-0.4648)})};
  const Vec3 apart{Real(0.6474), Real(-1.8026), Real(0.0461)};
  const Vec3 centre_b = apart - normalize(apart) * Real(0.02);
  const Transform b{centre_b,
                    normalize(Quat{Real(0.6667), Real(0.6548), Real(-0.2454), Real(0.2581)})};
  EXPECT_GT(shape_bounds(Box{}, a).lower.y - shape_bounds(Box{}, b).upper.y, Real(0.21));
  ContactManager contacts;
  const auto listed = listed_after_move(contacts, Box{}, a, Box{}, b,
                                        {-normalize(centre_b) * sweep, centre_b, 0}, margin);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_NEAR(listed[0].points[0].point.depth, Real(-0.185), Real(0.001));
}

// A capsule moving 18 cm a step towards a box beside it: a speculative point while the gap is
// within its margin (the world's 2 cm and its sweep), none once farther. The world boxes are apart
// by the gap, so the two farther gaps take the early-out by world boxes and the two nearer ones
// must not: it counts the sweep in the margin.
TEST(ContactCache, ARoundedPairGetsASpeculativePointOnlyWithinItsMargin) {
  const Real margin = Real(0.02), sweep = Real(0.18), radius = Real(0.2);
  const Vec3 towards_box{-1, 0, 0};
  for (const Real gap : {Real(0.15), Real(0.19), Real(0.21), Real(0.3)}) {
    ContactManager contacts;
    const Transform capsule = at({Real(0.5) + radius + gap, 0, 0});
    const auto listed =
        listed_after_move(contacts, Box{}, at({}), Capsule{radius, Real(0.3)}, capsule,
                          {towards_box * sweep, capsule.position, 0}, margin);
    if (gap < margin + sweep) {
      ASSERT_EQ(listed.size(), 1u) << gap;
      EXPECT_NEAR(listed[0].points[0].point.depth, -gap, Real(1e-5));
    } else {
      EXPECT_TRUE(listed.empty()) << gap;
    }
  }
}

// A unit box 30 cm over the floor, turning about its centre: its corners, sqrt(3) / 2 m out, move
// by at most that times the turn (in radians), which its margin holds. Turning 0.5 rad it may
// reach 43 cm: the pair gets its speculative points; turning 0.3 rad it reaches 26 cm, and with
// the world's 2 cm it stays short of the floor: none. Its fat box, 10 cm past its own, widens by
// the turn too, or the broadphase would never have paired them.
TEST(ContactCache, ATurningShapesMarginHoldsWhereItsTurnMayTakeIt) {
  const Real margin = Real(0.02), gap = Real(0.3);
  const Transform floor = at({0, Real(-0.5), 0});
  const Transform box = at({0, Real(0.5) + gap, 0});
  for (const Real turn : {Real(0.3), Real(0.5)}) {
    ContactManager contacts;
    const auto listed = listed_after_move(contacts, Box{{5, Real(0.5), 5}}, floor, Box{}, box,
                                          {{}, box.position, turn}, margin);
    if (turn * std::sqrt(Real(3)) / 2 + margin > gap) {
      ASSERT_EQ(listed.size(), 1u) << turn;
      EXPECT_NEAR(listed[0].points[0].point.depth, -gap, Real(1e-5));
    } else {
      EXPECT_TRUE(listed.empty()) << turn;
    }
  }
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
