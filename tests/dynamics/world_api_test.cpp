// The world's API: handles, names, lifetime and input checks that leave the world unchanged.

#include <impulse/error.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include "support/bodies.h"

namespace impulse {
namespace {

BodySettings named_box(const std::string& name, const Vec3& position = {}) {
  BodySettings body;
  body.name = name;
  body.position = position;
  return body;
}

TEST(WorldApi, StaleHandleIsCaughtAfterRemovalEvenWhenTheSlotIsReused) {
  World world;
  const BodyId a = world.create_body(named_box("a"));
  world.remove_body(a);
  EXPECT_FALSE(world.is_valid(a));
  const BodyId b = world.create_body(named_box("b"));
  EXPECT_EQ(b.index, a.index);            // the slot is reused...
  EXPECT_NE(b.generation, a.generation);  // ...with a new generation
  EXPECT_THROW(world.position(a), StaleHandle);
  EXPECT_THROW(world.remove_body(a), StaleHandle);
  EXPECT_THROW(world.apply_force(a, {1, 0, 0}), StaleHandle);
  EXPECT_TRUE(world.is_valid(b));
  EXPECT_THROW(world.position(BodyId{}), StaleHandle);
}

TEST(WorldApi, BodiesByNameAndInCreationOrder) {
  World world;
  const BodyId a = world.create_body(named_box("a"));
  const BodyId b = world.create_body(named_box("b", {1, 0, 0}));
  const BodyId c = world.create_body(named_box("c", {2, 0, 0}));
  world.remove_body(b);
  const BodyId d = world.create_body(named_box("d"));
  EXPECT_EQ(world.find_body("c"), c);
  EXPECT_FALSE(world.find_body("b").has_value());
  EXPECT_EQ(world.bodies(), (std::vector<BodyId>{a, c, d}));
  EXPECT_EQ(world.body_count(), 3u);
  EXPECT_EQ(world.name(d), "d");
}

TEST(WorldApi, UserDataIsKeptPerBody) {
  World world;
  BodySettings body;
  body.user_data = 42;
  const BodyId id = world.create_body(body);
  EXPECT_EQ(world.user_data(id), 42u);
  world.set_user_data(id, 7);
  EXPECT_EQ(world.user_data(id), 7u);
}

TEST(WorldApi, BadBodySettingsThrowAndLeaveTheWorldUnchanged) {
  World world;
  world.create_body(named_box("a"));
  const std::uint64_t hash = world.state_hash();

  auto expect_refused = [&](BodySettings body, const std::string& fragment) {
    try {
      world.create_body(body);
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_EQ(world.body_count(), 1u);
    EXPECT_EQ(world.state_hash(), hash);
  };
  BodySettings body;
  body.shapes = {ShapeSettings{Sphere{-1}, {}}};
  expect_refused(body, "/shapes/0/radius");
  body = {};
  body.mass = 0;
  expect_refused(body, "/mass");
  body = {};
  body.density = -1;
  expect_refused(body, "/density");
  body = {};
  body.orientation = {0, 0, 0, 0};
  expect_refused(body, "/orientation");
  body = {};
  body.position = {0, std::numeric_limits<Real>::quiet_NaN(), 0};
  expect_refused(body, "/position");
  body = {};
  body.shapes = {ShapeSettings{Plane{}, {}}};
  expect_refused(body, "only belong to a static body");
  body = {};
  body.shapes = {ShapeSettings{ConvexHull{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}}, {}}};
  expect_refused(body, "");  // coplanar points span no volume
  expect_refused(named_box("a"), "exists already");
}

TEST(WorldApi, BadStepAndSettingsAreRefused) {
  World world;
  EXPECT_THROW(world.step(0), InvalidArgument);
  EXPECT_THROW(world.step(std::numeric_limits<Real>::infinity()), InvalidArgument);
  WorldSettings settings;
  settings.solver.iterations = 0;
  EXPECT_THROW(world.set_settings(settings), InvalidArgument);
  EXPECT_EQ(world.settings().solver.iterations, 10);
  EXPECT_THROW(World{settings}, InvalidArgument);
}

TEST(WorldApi, BadJointsAreRefusedAndLeaveTheWorldUnchanged) {
  World world;
  JointSettings joint;
  joint.body_a = world.create_body(named_box("a"));
  joint.body_b = joint.body_a;
  EXPECT_THROW(world.create_joint(joint), InvalidArgument);  // a body and itself
  joint.body_b = world.create_body(named_box("b", {0, 2, 0}));
  joint.type = JointType::hinge;
  joint.axis = {0, 2, 0};
  EXPECT_THROW(world.create_joint(joint), InvalidArgument);  // not a unit axis
  joint.axis = {0, 1, 0};
  joint.limits = Range{1, -1};
  EXPECT_THROW(world.create_joint(joint), InvalidArgument);
  joint.limits.reset();
  const BodyId removed = world.create_body(named_box("c", {0, 4, 0}));
  world.remove_body(removed);
  joint.body_b = removed;
  EXPECT_THROW(world.create_joint(joint), StaleHandle);
  EXPECT_TRUE(world.joints().empty());
}

TEST(WorldApi, StateHashIsBitExactAndSensitive) {
  auto run = [](Real nudge) {
    World world;
    BodySettings body = named_box("a", {0, 10, 0});
    body.angular_velocity = {1, 2, nudge};
    world.create_body(body);
    for (int i = 0; i < 100; ++i)
      world.step(Real(1.0 / 60));
    return world.state_hash();
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(std::nextafter(Real(3), Real(4))));
}

// Three unit boxes dropped in a column on a ground box, stepped n times at 60 Hz.
void step_a_column(World& world, int steps) {
  world.create_body(testing::ground_box(5));
  for (int i = 0; i < 3; ++i)
    world.create_body(testing::body_of(Box{}, {0, Real(0.6) + Real(1.1) * Real(i), 0}));
  for (int i = 0; i < steps; ++i)
    world.step(Real(1.0 / 60));
}

// The solve's final figures cost a pass over the rows: measured only when asked for, and measuring
// changes no result.
TEST(WorldApi, SolveFiguresAreMeasuredOnlyWhenAskedAndChangeNothing) {
  const auto run = [](bool measure) {
    WorldSettings settings;
    settings.solver.measure_residuals = measure;
    settings.sleeping = false;  // a sleeping stack has no solve
    World world(settings);
    step_a_column(world, 60);
    return std::pair{world.state_hash(), world.last_step_stats().solve};
  };
  const auto [plain_hash, plain] = run(false);
  const auto [measured_hash, measured] = run(true);
  EXPECT_EQ(plain_hash, measured_hash);
  EXPECT_EQ(plain.iterations, measured.iterations);
  EXPECT_TRUE(plain.residuals.empty());
  EXPECT_EQ(plain.final_residual, 0);
  EXPECT_EQ(plain.max_abs_lambda, 0);
  ASSERT_EQ(measured.residuals.size(), 1u);  // the last iteration's only
  EXPECT_GT(measured.final_residual, 0);
  EXPECT_LT(measured.final_residual, Real(0.1));
  EXPECT_GT(measured.max_abs_lambda, Real(0.5) * Real(9.81) / 60);  // the top box's weight, a step
}

// A step's stage times: the solve is its four parts, the relax part is there only with a relax
// solve, and StageTimes lists each stage once, in the step's order.
TEST(WorldApi, TheSolveStageIsTheSumOfItsPartsAndTheRelaxPartIsThereOnlyWithRelaxIterations) {
  const auto last_stats = [](int relax_iterations) {
    WorldSettings settings;
    settings.sleeping = false;
    settings.solver.relax_iterations = relax_iterations;
    World world(settings);
    step_a_column(world, 30);
    return world.last_step_stats();
  };
  for (const int relax : {0, 2}) {
    const StepStats stats = last_stats(relax);
    SCOPED_TRACE(relax);
    EXPECT_GT(stats.rows_ms, 0);
    EXPECT_GT(stats.solver_ms, 0);
    EXPECT_GE(stats.store_ms, 0);
    EXPECT_NEAR(stats.solve_ms, stats.rows_ms + stats.solver_ms + stats.relax_ms + stats.store_ms,
                1e-9);
    if (relax == 0) {
      EXPECT_EQ(stats.relax_ms, 0);
    } else {
      EXPECT_GT(stats.relax_ms, 0);
    }
    const StageTimes stages = StageTimes::of(stats);
    double sum = 0;
    for (const double ms : stages.ms)
      sum += ms;
    EXPECT_NEAR(sum,
                stats.broadphase_ms + stats.narrowphase_ms + stats.integrate_velocities_ms +
                    stats.solve_ms + stats.integrate_positions_ms,
                1e-9);
    EXPECT_LE(sum, stats.total_ms);
    EXPECT_EQ(StageTimes::names[5], std::string("relax"));
    EXPECT_EQ(stages.ms[5], stats.relax_ms);
  }
}

TEST(WorldApi, StageTimesAddUpAndDivideStageByStage) {
  StageTimes a{{1, 2, 3, 4, 5, 6, 7, 8}};
  a += StageTimes{{1, 1, 1, 1, 1, 1, 1, 1}};
  const StageTimes mean = a / 2;
  const std::array<const char*, StageTimes::k_count> names{
      "broadphase", "narrowphase", "integrate_velocities", "rows", "solver",
      "relax",      "store",       "integrate_positions"};
  for (std::size_t k = 0; k < StageTimes::k_count; ++k) {
    EXPECT_EQ(StageTimes::names[k], std::string(names[k]));
    EXPECT_EQ(mean.ms[k], (double(k) + 2) / 2);
  }
}

// Reading a body's transform and setting it back is a no-op to the bit, whatever rounding the
// integrated orientation carries (normalising a unit quaternion again may move its last bits).
TEST(WorldApi, SettingABodysOwnTransformBackChangesNothing) {
  World world;
  BodySettings body = named_box("a", {0, 10, 0});
  body.angular_velocity = {Real(1.3), Real(-2.1), Real(0.7)};
  const BodyId id = world.create_body(body);
  for (int i = 0; i < 200; ++i) {
    world.step(Real(1.0 / 60));
    const std::uint64_t before = world.state_hash();
    world.set_transform(id, world.transform(id));
    ASSERT_EQ(world.state_hash(), before) << "after step " << i + 1;
  }
}

}  // namespace
}  // namespace impulse
