// Contact reuse (ContactReuse): a pair whose shapes barely moved against each other since its
// narrowphase last ran gets that run's points moved with the shapes, which are the points the
// narrowphase would find; past the limits the narrowphase runs again.

#include <impulse/world.h>

#include <gtest/gtest.h>

#include "collision/contact_manager.h"
#include "support/bodies.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;

const auto collide_all = [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; };

// A unit box on a wide one, turned about the vertical, in two managers: one that reuses contacts
// and one that always runs the narrowphase (the reference).
struct TwoManagers {
  ContactManager reusing, fresh;
  TaskPool pool;
  std::uint32_t box = 0;

  explicit TwoManagers(const Transform& pose) {
    fresh.set_reuse({0, 0});
    for (ContactManager* m : {&reusing, &fresh}) {
      m->add_shape(Box{{5, Real(0.5), 5}}, 0, at({0, Real(-0.5), 0}));
      box = m->add_shape(Box{}, 1, pose);
      m->update(0, collide_all, pool);
    }
  }
  void move(const Transform& pose, const StepMotion& motion = {}) {
    for (ContactManager* m : {&reusing, &fresh}) {
      m->move_shape(box, pose, motion);
      m->update(0, collide_all, pool);
    }
  }
};

const ContactState* with_id(const ContactManifold& m, const FeatureId& id) {
  for (int k = 0; k < m.count; ++k) {
    if (m.points[std::size_t(k)].point.id == id) return &m.points[std::size_t(k)];
  }
  return nullptr;
}

// Three boxes resting apart on the ground, each pair's points carrying impulses 1, 2 and 3. At
// rest every pair keeps its place in the list (updated where it lies); when the middle pair
// leaves, the last one's manifold moves up a place: either way each pair keeps its points and
// impulses, and a kept pair (a sleeping one's) its manifold as it was.
TEST(ContactReuse, PairsKeepTheirPointsAndImpulsesWhetherTheirPlacesHoldOrShift) {
  ContactManager contacts;
  TaskPool pool;
  contacts.add_shape(Box{{5, Real(0.5), 5}}, 0, at({0, Real(-0.5), 0}));
  std::array<std::uint32_t, 3> boxes{};
  for (std::uint32_t k = 0; k < 3; ++k)
    boxes[k] = contacts.add_shape(Box{}, k + 1, at({Real(3) * Real(k) - 3, Real(0.49), 0}));
  contacts.update(0, collide_all, pool);
  ASSERT_EQ(contacts.manifolds().size(), 3u);
  for (ContactManifold& m : contacts.manifolds()) {
    for (int k = 0; k < m.count; ++k)
      m.points[std::size_t(k)].normal_impulse = Real(m.body_b);
  }
  const auto expect_impulses = [&](std::vector<std::uint32_t> bodies, const char* when) {
    ASSERT_EQ(contacts.manifolds().size(), bodies.size()) << when;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const ContactManifold& m = contacts.manifolds()[i];
      EXPECT_EQ(m.body_b, bodies[i]) << when;
      ASSERT_EQ(m.count, 4) << when;
      for (int k = 0; k < m.count; ++k) {
        EXPECT_EQ(m.points[std::size_t(k)].normal_impulse, Real(bodies[i])) << when;
        EXPECT_TRUE(m.points[std::size_t(k)].warm) << when;
        EXPECT_NEAR(m.points[std::size_t(k)].point.depth, Real(0.01), Real(1e-6)) << when;
      }
    }
  };
  contacts.update(0, collide_all, pool);
  EXPECT_EQ(contacts.counts().reused, 3u);
  expect_impulses({1, 2, 3}, "at rest");
  // The first pair kept as it was (asleep): its manifold untouched, a depth set by hand shows it.
  contacts.manifolds()[0].points[0].point.depth = Real(0.25);
  contacts.update(
      0,
      [](std::uint32_t, std::uint32_t b) {
        return b == 1 ? PairUpdate::keep : PairUpdate::collide;
      },
      pool);
  EXPECT_EQ(contacts.manifolds()[0].points[0].point.depth, Real(0.25));
  contacts.manifolds()[0].points[0].point.depth = Real(0.01);
  contacts.move_shape(boxes[1], at({0, Real(20), 0}), {});
  contacts.update(0, collide_all, pool);
  expect_impulses({1, 3}, "the middle pair gone");
  contacts.update(0, collide_all, pool);
  EXPECT_EQ(contacts.counts().reused, 2u);
  expect_impulses({1, 3}, "at rest again");
}

TEST(ContactReuse, SmallRelativeMotionGivesThePointsTheNarrowphaseFinds) {
  const Quat turn = about({0, 1, 0}, 10);
  TwoManagers pair(at({0, Real(0.49), 0}, turn));
  ASSERT_EQ(pair.reusing.manifolds().size(), 1u);
  pair.reusing.manifolds()[0].points[0].normal_impulse = 7;
  const FeatureId carried = pair.reusing.manifolds()[0].points[0].point.id;
  // 0.3 mm down and 0.2 degrees of tilt: within the limits (0.5 mm, 0.5 degrees).
  pair.move(at({Real(1e-4), Real(0.4897), 0}, about({1, 0, 0}, Real(0.2)) * turn));
  EXPECT_EQ(pair.reusing.counts().reused, 1u);
  EXPECT_EQ(pair.fresh.counts().reused, 0u);
  ASSERT_EQ(pair.reusing.manifolds().size(), 1u);
  ASSERT_EQ(pair.fresh.manifolds().size(), 1u);
  const ContactManifold& reused = pair.reusing.manifolds()[0];
  const ContactManifold& found = pair.fresh.manifolds()[0];
  testing::expect_vec_near(reused.normal, found.normal, Real(1e-6));
  ASSERT_EQ(reused.count, 4);
  ASSERT_EQ(found.count, 4);
  for (int k = 0; k < found.count; ++k) {
    const ContactPoint& want = found.points[std::size_t(k)].point;
    const ContactState* got = with_id(reused, want.id);
    ASSERT_NE(got, nullptr) << "point " << k;
    // The box's corners on the ground's face: rebuilt exactly, to rounding.
    testing::expect_vec_near(got->point.position, want.position, Real(2e-6));
    EXPECT_NEAR(got->point.depth, want.depth, Real(2e-6)) << "point " << k;
    EXPECT_TRUE(got->warm);
  }
  // Deeper than before by the 0.3 mm the box sank, give or take the tilt's lift of a corner.
  EXPECT_GT(reused.points[0].point.depth, Real(0.0101));
  EXPECT_EQ(with_id(reused, carried)->normal_impulse, 7);  // the impulse came along
}

TEST(ContactReuse, MovingPastTheLimitsSinceTheLastNarrowphaseRunsItAgain) {
  TwoManagers pair(at({0, Real(0.49), 0}));
  ContactManager& contacts = pair.reusing;
  // Three moves of 0.2 mm: the first two stay within 0.5 mm of where the narrowphase ran.
  for (int k = 1; k <= 3; ++k) {
    pair.move(at({Real(2e-4) * Real(k), Real(0.49), 0}));
    EXPECT_EQ(contacts.counts().reused, k < 3 ? 1u : 0u) << "move " << k;
  }
  // The narrowphase ran at 0.6 mm: 0.2 mm more is within reach of that run.
  pair.move(at({Real(8e-4), Real(0.49), 0}));
  EXPECT_EQ(contacts.counts().reused, 1u);
  // A turn of 0.6 degrees about the normal, in place.
  pair.move(at({Real(8e-4), Real(0.49), 0}, about({0, 1, 0}, Real(0.6))));
  EXPECT_EQ(contacts.counts().reused, 0u);
  pair.move(at({Real(8e-4), Real(0.49), 0}, about({0, 1, 0}, Real(0.6))));
  EXPECT_EQ(contacts.counts().reused, 1u);  // not moved since
  // Not moved, but about to move 1 mm: the wider speculative margin needs the narrowphase.
  pair.move(at({Real(8e-4), Real(0.49), 0}, about({0, 1, 0}, Real(0.6))),
            {{0, Real(-1e-3), 0}, {}, 0});
  EXPECT_EQ(contacts.counts().reused, 0u);
  // Both managers agree after every move (the last ran the narrowphase in both).
  testing::expect_vec_near(contacts.manifolds()[0].points[0].point.position,
                           pair.fresh.manifolds()[0].points[0].point.position, Real(1e-6));
}

TEST(ContactReuse, APairSkippedForAStepRunsTheNarrowphaseWhenItComesBack) {
  ContactManager contacts;
  TaskPool pool;
  contacts.add_shape(Box{{5, Real(0.5), 5}}, 0, at({0, Real(-0.5), 0}));
  const std::uint32_t box = contacts.add_shape(Box{}, 1, at({0, Real(0.49), 0}));
  contacts.update(0, collide_all, pool);
  contacts.update(
      0, [](std::uint32_t, std::uint32_t) { return PairUpdate::ignore; }, pool);
  EXPECT_TRUE(contacts.manifolds().empty());
  contacts.move_shape(box, at({0, Real(0.49), 0}), {});
  contacts.update(0, collide_all, pool);
  EXPECT_EQ(contacts.counts().reused, 0u);  // last step's (none) is not what the shapes have
  EXPECT_EQ(contacts.counts().points, 4u);
}

// A ball rolled a little (0.05 degrees, 0.44 mm: within the reuse limits) in two managers, one that
// reuses contacts and one that always runs the narrowphase: the reused point is the narrowphase's.
void expect_rolled_ball_touches_below_its_centre(bool ball_first) {
  ContactManager reusing, fresh;
  TaskPool pool;
  fresh.set_reuse({0, 0});
  std::uint32_t ball = 0;
  const Sphere sphere{Real(0.5)};
  for (ContactManager* m : {&reusing, &fresh}) {
    if (ball_first) ball = m->add_shape(sphere, 1, at({0, Real(0.499), 0}));
    m->add_shape(Box{{5, Real(0.5), 5}}, 0, at({0, Real(-0.5), 0}));
    if (!ball_first) ball = m->add_shape(sphere, 1, at({0, Real(0.499), 0}));
    m->update(0, collide_all, pool);
  }
  // Rolled 0.05 degrees about x without slipping: the centre moves r theta = 0.44 mm along z,
  // within the limits.
  const Real degrees = Real(0.05);
  const Real travel = sphere.radius * degrees * k_pi / 180;
  for (ContactManager* m : {&reusing, &fresh}) {
    m->move_shape(ball, at({0, Real(0.499), travel}, about({1, 0, 0}, degrees)), {});
    m->update(0, collide_all, pool);
  }
  ASSERT_EQ(reusing.counts().reused, 1u);
  ASSERT_EQ(reusing.manifolds().size(), 1u);
  ASSERT_EQ(fresh.manifolds().size(), 1u);
  const ContactPoint& got = reusing.manifolds()[0].points[0].point;
  const ContactPoint& want = fresh.manifolds()[0].points[0].point;
  testing::expect_vec_near(got.position, want.position, Real(1e-6));
  EXPECT_NEAR(got.depth, want.depth, Real(1e-6));
  EXPECT_NEAR(got.position.z, travel, Real(1e-6));  // under the centre, not behind it
}

// A rounded shape's contact point is no point of its body: rolled a little, the ball touches the
// ground at its new lowest point, not where the old one went. The reused point is rebuilt from the
// ball's centre, so it is the point the narrowphase finds.
TEST(ContactReuse, ARolledBallsPointIsItsLowestPointNotTheOneThatRolledAway) {
  for (const bool ball_first : {false, true}) {  // the ball as the pair's shape b, then a
    SCOPED_TRACE(ball_first);
    expect_rolled_ball_touches_below_its_centre(ball_first);
  }
}

// Rolling on a level floor takes no work: a ball and a capsule rolling slowly (their contacts
// reused step after step) keep their kinetic energy. With the rolled-away point reused, the
// ground's push behind the centre drove them up to the speed at which reuse stops, 0.5 mm a step:
// 9 times the energy in 4 s.
TEST(ContactReuse, SlowlyRollingBallsAndCapsulesKeepTheirEnergy) {
  // body_first: the rolling shape is the pair's shape a, else b.
  const auto rolled = [](const ShapeGeometry& shape, Real radius, bool reuse, bool body_first) {
    WorldSettings settings;
    settings.sleeping = false;
    settings.reuse_contacts = reuse;
    World world(settings);
    BodySettings body = testing::body_of(shape, {0, radius, 0});
    body.orientation = about({0, 0, 1}, 90);  // a capsule lies along x
    body.linear_velocity = {0, 0, Real(0.01)};
    body.angular_velocity = {Real(0.01) / radius, 0, 0};  // rolling, no slip
    BodyId id;
    if (body_first) id = world.create_body(body);
    // Thin: as the pair's shape b, the ground's centre must stay within the reuse limits in the
    // rolling body's frame (its motion there is its distance below the contact times the turn).
    world.create_body(testing::ground_box(50, Real(0.05)));
    if (!body_first) id = world.create_body(body);
    const Real start = world.kinetic_energy();
    std::size_t reused = 0;
    for (int step = 0; step < 240; ++step) {
      world.step(Real(1) / 60);
      reused += world.last_step_stats().reused_pairs;
    }
    EXPECT_EQ(reused > 0, reuse);
    EXPECT_NEAR(world.linear_velocity(id).z, Real(0.01), Real(1e-4));
    return world.kinetic_energy() / start;
  };
  for (const bool reuse : {true, false}) {
    for (const bool body_first : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "reuse " << reuse << ", body first " << body_first);
      EXPECT_NEAR(rolled(Sphere{Real(0.1)}, Real(0.1), reuse, body_first), 1, 1e-3);
      EXPECT_NEAR(rolled(Capsule{Real(0.1), Real(0.3)}, Real(0.1), reuse, body_first), 1, 1e-3);
    }
  }
}

// Two rounded shapes touch along the line joining their cores, which turns as either rolls: no
// shape's frame keeps their normal, so their pair runs its narrowphase every step.
TEST(ContactReuse, TwoRoundedShapesNeverReuseTheirContacts) {
  ContactManager contacts;
  TaskPool pool;
  contacts.add_shape(Sphere{Real(0.5)}, 0, at({0, 0, 0}));
  const std::uint32_t capsule = contacts.add_shape(Capsule{Real(0.2), Real(0.5)}, 1,
                                                   at({0, Real(0.699), 0}, about({0, 0, 1}, 90)));
  contacts.update(0, collide_all, pool);
  ASSERT_EQ(contacts.manifolds().size(), 1u);
  contacts.move_shape(capsule, at({0, Real(0.699), 0}, about({0, 0, 1}, 90)), {});  // unmoved
  contacts.update(0, collide_all, pool);
  EXPECT_EQ(contacts.manifolds().size(), 1u);
  EXPECT_EQ(contacts.counts().reused, 0u);
}

// A column of boxes settles to the same heights whether resting pairs reuse their contacts or
// not, and once at rest every pair reuses them.
TEST(ContactReuse, AStackRestsWhereTheNarrowphaseAloneLeavesIt) {
  const auto settle = [](bool reuse, std::size_t& reused_pairs) {
    WorldSettings settings;
    settings.sleeping = false;
    settings.reuse_contacts = reuse;
    World world(settings);
    world.create_body(testing::ground_box());
    BodyId top;
    for (int i = 0; i < 6; ++i)
      top = world.create_body(testing::body_of(Box{}, {0, Real(0.5) + Real(i), 0}));
    for (int step = 0; step < 300; ++step)
      world.step(Real(1) / 60);
    reused_pairs = world.last_step_stats().reused_pairs;
    return world.position(top);
  };
  std::size_t reused = 0, never = 0;
  const Vec3 with_reuse = settle(true, reused);
  const Vec3 without = settle(false, never);
  EXPECT_EQ(reused, 6u);
  EXPECT_EQ(never, 0u);
  testing::expect_vec_near(with_reuse, without, Real(1e-4));
  EXPECT_NEAR(with_reuse.y, Real(5.5), Real(0.03));
}

}  // namespace
}  // namespace impulse
