// The step's guards (diagnostics.h): each test injects one fault and checks its report, that the
// faulty body is frozen or the faulty row skipped, and that the other bodies simulate on as if
// nothing had happened (against the closed form of free fall or rest).

#include <impulse/error.h>
#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/bodies.h"
#include "support/optimised.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_dt = Real(1.0 / 60);
constexpr double k_g = 9.81;

WorldSettings awake() {
  WorldSettings s;
  s.sleeping = false;
  return s;
}

BodySettings named(BodySettings s, const std::string& name) {
  s.name = name;
  return s;
}

// Semi-implicit Euler from rest: y_n = y_0 - g dt^2 n (n + 1) / 2.
double free_fall_drop(int steps) {
  return k_g * double(k_dt) * double(k_dt) * steps * (steps + 1) / 2;
}

std::size_t count_of(const World& world, DiagnosticKind kind) {
  return std::size_t(std::count_if(world.diagnostics().begin(), world.diagnostics().end(),
                                   [&](const Diagnostic& d) { return d.kind == kind; }));
}

// A weightless world that never sleeps, with a speed limit, running every step on `threads`.
World weightless_on_threads(Real max_linear_speed, int threads) {
  WorldSettings settings = awake();
  settings.gravity = Vec3::zero();
  settings.max_linear_speed = max_linear_speed;
  World world(settings);
  world.set_threads(threads);
  world.set_thread_use(ThreadUse::always);
  return world;
}

// (g++ 12 warns falsely of overlapping copies in "text" + std::to_string(i) at -O2.)
std::string numbered(std::string prefix, int i) {
  prefix += std::to_string(i);
  return prefix;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A force that overflows to infinity (two finite forces of 3e38 N add up to inf) gives the bottom
// box of a stack a non-finite velocity. It is frozen where the step found it, the box on top of it
// rests on it as on a static body, and a ball elsewhere falls exactly as it would alone.
TEST(Guards, AnOverflowingForceFreezesTheBodyAndTheOthersSimulateOn) {
  World world(awake());
  world.create_body(ground_box());
  const Vec3 half{Real(0.5), Real(0.5), Real(0.5)};
  const BodyId bottom = world.create_body(named(body_of(Box{half}, {0, Real(0.5), 0}), "bottom"));
  const BodyId top = world.create_body(named(body_of(Box{half}, {0, Real(1.5), 0}), "top"));
  const BodyId ball = world.create_body(body_of(Sphere{Real(0.5)}, {10, 50, 0}));
  for (int i = 0; i < 30; ++i)
    world.step(k_dt);
  const Vec3 frozen_at = world.position(bottom);
  const Real ball_y0 = world.position(ball).y;
  const Real ball_v0 = world.linear_velocity(ball).y;

  world.apply_force(bottom, {Real(3e38), 0, 0});
  world.apply_force(bottom, {Real(3e38), 0, 0});
  world.step(k_dt);

  ASSERT_EQ(world.diagnostics().size(), 1u);
  const Diagnostic& d = world.diagnostics()[0];
  EXPECT_EQ(d.kind, DiagnosticKind::non_finite_body);
  EXPECT_EQ(d.stage, StepStage::velocities);
  EXPECT_EQ(d.body, bottom);
  EXPECT_TRUE(contains(d.message, "body 'bottom'")) << d.message;
  EXPECT_TRUE(contains(d.message, "velocities")) << d.message;
  EXPECT_TRUE(world.is_frozen(bottom));
  EXPECT_FALSE(world.is_asleep(bottom));
  EXPECT_EQ(world.position(bottom), frozen_at);
  EXPECT_EQ(world.linear_velocity(bottom), Vec3::zero());

  const int steps = 120;
  for (int i = 0; i < steps; ++i) {
    world.step(k_dt);
    ASSERT_TRUE(world.diagnostics().empty()) << world.diagnostics()[0].message;
  }
  EXPECT_EQ(world.position(bottom), frozen_at);
  EXPECT_NEAR(world.position(top).y, frozen_at.y + 1, 0.01);
  EXPECT_NEAR(world.position(top).x, 0, 1e-3);
  const int n = steps + 1;
  const double expected = ball_y0 + ball_v0 * n * double(k_dt) - free_fall_drop(n);
  EXPECT_NEAR(world.position(ball).y, expected, 1e-3);

  // Unfrozen, it rests on the ground again, the forces applied to it while frozen forgotten.
  world.apply_force(bottom, {Real(3e38), 0, 0});
  world.unfreeze(bottom);
  for (int i = 0; i < 60; ++i)
    world.step(k_dt);
  EXPECT_FALSE(world.is_frozen(bottom));
  EXPECT_NEAR(world.position(bottom).y, Real(0.5), 0.01);
  EXPECT_NEAR(world.position(bottom).x, frozen_at.x, 0.01);
}

// With the speed limits raised out of the way, a body flung at 3e38 m/s from 3e38 m moves past the
// float range in a step of 1 s: caught after the positions move, it goes back to where the step
// found it.
TEST(Guards, ABodyMovedPastTheFloatRangeIsFrozenAtItsPoseFromTheStartOfTheStep) {
  WorldSettings settings = awake();
  settings.max_linear_speed = Real(3.3e38);
  World world(settings);
  const Vec3 start{Real(3e38), 0, 0};
  BodySettings far = named(body_of(Sphere{1}, start), "far");
  far.gravity_scale = 0;
  far.linear_velocity = {Real(3e38), 0, 0};
  const BodyId id = world.create_body(far);
  const BodyId ball = world.create_body(body_of(Sphere{1}, {0, 0, 0}));

  world.step(1);

  ASSERT_EQ(count_of(world, DiagnosticKind::non_finite_body), 1u);
  EXPECT_EQ(world.diagnostics()[0].stage, StepStage::positions);
  EXPECT_TRUE(world.is_frozen(id));
  EXPECT_EQ(world.position(id), start);
  EXPECT_NEAR(world.position(ball).y, -k_g, 1e-5);
}

// A velocity beyond the limits is slowed to them, and said so once per step it happens.
TEST(Guards, AHugeVelocityIsClampedAndReported) {
  WorldSettings settings = awake();
  settings.gravity = Vec3::zero();
  World world(settings);
  const BodyId id = world.create_body(named(body_of(Sphere{1}, {}), "bullet"));
  world.set_linear_velocity(id, {Real(1e30), 0, 0});
  world.step(k_dt);
  ASSERT_EQ(count_of(world, DiagnosticKind::velocity_clamped), 1u);
  const Diagnostic& d = world.diagnostics()[0];
  EXPECT_EQ(d.body, id);
  EXPECT_EQ(d.stage, StepStage::velocities);
  EXPECT_TRUE(contains(d.message, "body 'bullet'")) << d.message;
  EXPECT_FLOAT_EQ(world.linear_velocity(id).x, settings.max_linear_speed);
  world.step(k_dt);
  EXPECT_TRUE(world.diagnostics().empty());
}

// Among 300 balls in weightless space, enough for the velocity stage to guard them a chunk at a
// time on the pool, one is flung past the speed limit and one is given an overflowing force: on two
// threads the reports come in the same order with the same words as on one, the two bodies are
// slowed and frozen, and every ball ends with the same bits.
TEST(Guards, TheVelocityStagesChunkedGuardsReportAndFreezeAsOnOneThread) {
  const auto run = [](int threads) {
    World world = weightless_on_threads(50, threads);
    std::vector<BodyId> balls;
    for (int i = 0; i < 300; ++i) {
      const Vec3 at{Real(3 * (i % 20)), Real(10 + 3 * (i / 20)), 0};
      balls.push_back(world.create_body(named(body_of(Sphere{1}, at), numbered("ball ", i))));
    }
    world.step(k_dt);
    world.set_linear_velocity(balls[40], {Real(1e6), 0, 0});
    world.apply_force(balls[260], {Real(3e38), 0, 0});
    world.apply_force(balls[260], {Real(3e38), 0, 0});
    world.step(k_dt);
    std::vector<std::pair<DiagnosticKind, std::string>> reports;
    for (const Diagnostic& d : world.diagnostics()) {
      EXPECT_EQ(d.stage, StepStage::velocities) << d.message;
      reports.emplace_back(d.kind, d.message);
    }
    EXPECT_FLOAT_EQ(world.linear_velocity(balls[40]).x, world.settings().max_linear_speed);
    EXPECT_TRUE(world.is_frozen(balls[260]));
    return std::pair{reports, world.state_hash()};
  };
  const auto [one_reports, one_hash] = run(1);
  const auto [two_reports, two_hash] = run(2);
  ASSERT_EQ(one_reports.size(), 2u);
  EXPECT_EQ(one_reports[0].first, DiagnosticKind::velocity_clamped);
  EXPECT_TRUE(contains(one_reports[0].second, "ball 40")) << one_reports[0].second;
  EXPECT_EQ(one_reports[1].first, DiagnosticKind::non_finite_body);
  EXPECT_TRUE(contains(one_reports[1].second, "ball 260")) << one_reports[1].second;
  EXPECT_EQ(two_reports, one_reports);
  EXPECT_EQ(two_hash, one_hash);
}

// 150 weightless frictionless boxes on the ground, one of them 10 cm into it and sliding at the
// speed limit: on two threads the velocity stages take 150 bodies on the calling thread, in one
// chunk, and the move before the relax solve, after a solve shared by the threads, takes them in
// chunks. The push-out takes the sliding box past the limit there. Step by step, the two-thread
// world reports what the one-thread world does (the same bits): a clamp left in the move's later
// chunk was reported again by the next velocity stage.
TEST(Guards, AClampFoundInALaterChunkIsReportedOnce) {
  using Report = std::tuple<DiagnosticKind, StepStage, BodyId>;
  const auto run = [](int threads) {
    World world = weightless_on_threads(2, threads);
    BodySettings ground = ground_box();
    ground.friction = 0;
    world.create_body(ground);
    BodyId sliding;
    for (int i = 0; i < 150; ++i) {
      const bool deep = i == 140;
      BodySettings box =
          body_of(Box{}, {Real(2 * (i % 15)), deep ? Real(0.4) : Real(0.5), Real(2 * (i / 15))});
      box.friction = 0;
      const BodyId id = world.create_body(box);
      if (deep) sliding = id;
    }
    world.set_linear_velocity(sliding, {2, 0, 0});
    std::vector<std::vector<Report>> steps;
    for (int step = 0; step < 4; ++step) {
      world.step(k_dt);
      if (step == 0) {
        EXPECT_EQ(world.last_step_stats().solve.threads, threads);  // the move ran in chunks
      }
      steps.emplace_back();
      for (const Diagnostic& d : world.diagnostics())
        steps.back().emplace_back(d.kind, d.stage, d.body);
    }
    return std::pair{steps, sliding};
  };
  const auto [one, sliding] = run(1);
  const Report clamp{DiagnosticKind::velocity_clamped, StepStage::solve, sliding};
  ASSERT_FALSE(one[0].empty());
  EXPECT_EQ(one[0][0], clamp);
  EXPECT_EQ(run(2).first, one);
}

// A frictionless box 10 cm into the ground slides at the world's speed limit: the solve's push-out
// takes it past the limit, and the clamp slows the whole velocity. The relax solve, which takes
// the push-out away, then starts again from the free velocities (the solve's are no longer its
// impulses' response), so the box slides on at its 2 m/s rather than at the clamped share of it.
TEST(Guards, AClampBetweenTheSolveAndTheRelaxSolveKeepsTheSlidingSpeed) {
  WorldSettings settings = awake();
  settings.max_linear_speed = 2;
  World world(settings);
  BodySettings ground = ground_box();
  ground.friction = 0;
  world.create_body(ground);
  BodySettings box = body_of(Box{}, {0, Real(0.4), 0});
  box.friction = 0;
  const BodyId id = world.create_body(box);
  world.set_linear_velocity(id, {2, 0, 0});
  world.step(k_dt);
  EXPECT_EQ(count_of(world, DiagnosticKind::velocity_clamped), 1u);
  EXPECT_FLOAT_EQ(world.linear_velocity(id).x, 2);
  EXPECT_NEAR(world.linear_velocity(id).y, 0, 1e-3);  // the push-out moved it, left no speed
}

// In a world of many bodies the per-body passes run in chunks on the pool: the clamps and faults
// of bodies in different chunks are reported in creation order and the state is the same, on one
// thread or three.
TEST(Guards, ManyBodiesReportTheirClampsAndFaultsInOrderOnAnyThreadCount) {
  const auto run = [](int threads) {
    WorldSettings settings = awake();
    World world(settings);
    world.set_threads(threads);
    world.set_thread_use(ThreadUse::always);
    std::vector<BodyId> balls;
    for (int i = 0; i < 600; ++i)
      balls.push_back(world.create_body(body_of(Sphere{Real(0.4)}, {Real(i), 10, 0})));
    world.step(k_dt);
    for (const int i : {7, 311, 599})
      world.set_linear_velocity(balls[std::size_t(i)], {Real(1e30), 0, 0});
    world.apply_force(balls[450], {Real(3e38), 0, 0});
    world.apply_force(balls[450], {Real(3e38), 0, 0});
    world.step(k_dt);
    std::vector<std::pair<DiagnosticKind, BodyId>> reports;
    for (const Diagnostic& d : world.diagnostics())
      reports.emplace_back(d.kind, d.body);
    EXPECT_TRUE(world.is_frozen(balls[450]));
    return std::pair{reports, world.state_hash()};
  };
  const auto [reports, hash] = run(1);
  ASSERT_EQ(reports.size(), 4u);
  EXPECT_EQ(reports[0].first, DiagnosticKind::velocity_clamped);
  EXPECT_EQ(reports[2].first, DiagnosticKind::velocity_clamped);
  EXPECT_EQ(reports[0].second.index + 304, reports[1].second.index);  // balls 7 then 311
  EXPECT_EQ(reports[3].first, DiagnosticKind::non_finite_body);
  const auto [threaded_reports, threaded_hash] = run(3);
  EXPECT_EQ(threaded_reports, reports);
  EXPECT_EQ(threaded_hash, hash);
}

// A custom constraint with a row of zero Jacobian next to a good one: the zero row is skipped and
// named; the good row still holds the body (no vertical velocity) and a second body falls freely.
TEST(Guards, ADegenerateRowIsSkippedAndReportedWithItsConstraint) {
  World world(awake());
  const BodyId held = world.create_body(body_of(Sphere{Real(0.5)}, {0, 10, 0}));
  const BodyId faller = world.create_body(body_of(Sphere{Real(0.5)}, {5, 10, 0}));
  const ConstraintId constraint =
      world.add_custom_constraint([held](const World&, Real, RowWriter& rows) {
        ConstraintRow zero;
        zero.body_a = held;
        rows.add(zero);
        ConstraintRow hold;
        hold.body_a = held;
        hold.linear_a = Vec3::unit_y();
        rows.add(hold);
      });
  const int steps = 30;
  for (int i = 0; i < steps; ++i) {
    world.step(k_dt);
    ASSERT_EQ(world.diagnostics().size(), 1u);
  }
  const Diagnostic& d = world.diagnostics()[0];
  EXPECT_EQ(d.kind, DiagnosticKind::degenerate_row);
  EXPECT_EQ(d.stage, StepStage::solve);
  ASSERT_TRUE(d.constraint.has_value());
  EXPECT_EQ(*d.constraint, constraint);
  EXPECT_EQ(d.body, held);
  EXPECT_TRUE(d.other_body.is_null());
  EXPECT_TRUE(contains(d.message, "custom constraint")) << d.message;
  EXPECT_NEAR(world.linear_velocity(held).y, 0, 1e-5);
  EXPECT_NEAR(world.position(held).y, 10, 1e-4);
  EXPECT_NEAR(world.position(faller).y, 10 - free_fall_drop(steps), 1e-4);
  EXPECT_EQ(world.custom_constraint_impulses(constraint)[0], 0);
}

// A custom row on a body that has fallen asleep is inert with it, not degenerate: no report.
TEST(Guards, ACustomRowOnASleepingBodyIsNoFault) {
  World world;
  world.create_body(ground_box());
  const BodyId box =
      world.create_body(body_of(Box{{Real(0.5), Real(0.5), Real(0.5)}}, {0, Real(0.5), 0}));
  world.add_custom_constraint([box](const World&, Real, RowWriter& rows) {
    ConstraintRow row;
    row.body_a = box;
    row.linear_a = Vec3::unit_x();
    rows.add(row);
  });
  for (int i = 0; i < 120; ++i)
    world.step(k_dt);
  ASSERT_TRUE(world.is_asleep(box));
  for (int i = 0; i < 10; ++i) {
    world.step(k_dt);
    EXPECT_TRUE(world.diagnostics().empty()) << world.diagnostics()[0].message;
  }
}

// A solver that refuses the step's rows (beyond its size limit) applies nothing; the world then
// solves them with pgs and reports it, so a grid of boxes resting on the ground stays there
// (before, every box fell through the ground from the first step).
TEST(Guards, RowsASolverRefusesAreSolvedByPgsAndReported) {
  for (const auto& [type, side] :
       {std::pair{SolverType::pivoting, 10}, {SolverType::global_dense, 19}}) {
    WorldSettings settings = awake();
    settings.solver.type = type;
    World world(settings);
    world.create_body(ground_box());
    std::vector<BodyId> boxes;
    for (int i = 0; i < side * side; ++i) {
      const Vec3 at{Real(1.5) * Real(i % side), Real(0.5), Real(1.5) * Real(i / side)};
      boxes.push_back(world.create_body(body_of(Box{}, at)));
    }
    for (int step = 0; step < 60; ++step)
      world.step(k_dt);
    for (const BodyId id : boxes)
      ASSERT_NEAR(world.position(id).y, 0.5, 0.01) << solver_type_name(type);
    ASSERT_EQ(count_of(world, DiagnosticKind::solve_refused), 1u) << solver_type_name(type);
    const std::string& message = world.diagnostics().front().message;
    EXPECT_TRUE(contains(message, solver_type_name(type))) << message;
    EXPECT_TRUE(contains(message, "exceed")) << message;
    EXPECT_TRUE(contains(message, "pgs solved them")) << message;
    EXPECT_EQ(world.last_step_stats().solve.status, SolveStatus::ok) << solver_type_name(type);
  }
}

// A random chain of five bodies on prismatic, cone-twist, ball and fixed joints swinging onto the
// ground (scripts/sweep.py's chains, seed 1204): its last link, a 1.7 kg ball on a prismatic joint
// to a body welded to a 25 kg capsule, is pressed into the capsule against its joint, and the
// pivoting solver's exact impulses come to push against each other (contradicting_rows.h; from
// step 111, and 182 before a passed limit's push-out was relaxed as a contact's), its friction
// loop failing to settle at other steps. Before either was seen, that loop's last round's
// impulses, applied, threw the chain to 5e5 J in one step. Refused, the world solves those steps
// with pgs and reports it, and the chain, passive with inelastic stops, only loses energy.
TEST(Guards, APivotingSolveOfJammedRowsIsSolvedByPgs) {
  SKIP_UNLESS_OPTIMISED();  // the path to that step is the optimised build's bits
  World world = build_world(
      load_scene(std::string(IMPULSE_TEST_DATA_DIR) + "/chain_pivoting_friction_gives_up.json"));
  ASSERT_EQ(world.settings().solver.type, SolverType::pivoting);
  const double start = world.kinetic_energy() + world.potential_energy();
  double most = start;
  std::vector<std::string> refusals;
  for (int i = 0; i < 600; ++i) {
    world.step(k_dt);
    most = std::max(most, world.kinetic_energy() + world.potential_energy());
    for (const Diagnostic& d : world.diagnostics()) {
      if (d.kind == DiagnosticKind::solve_refused) refusals.push_back(d.message);
    }
  }
  EXPECT_LE(most, start * (1 + 1e-3));
  ASSERT_FALSE(refusals.empty());
  EXPECT_TRUE(std::any_of(refusals.begin(), refusals.end(), [](const std::string& message) {
    return contains(message, "push against each other");
  }));
  for (const std::string& message : refusals)
    EXPECT_TRUE(contains(message, "pgs solved them")) << message;
}

// Removing the middle of a hanging chain of three removes the two joints that held it, each
// reported with its name; the top link still hangs, the bottom one falls freely.
TEST(Guards, RemovingABodyUnderJointsReportsEachJointAndTheRestSimulatesOn) {
  World world(awake());
  const Vec3 half{Real(0.1), Real(0.4), Real(0.1)};
  BodyId links[3];
  for (int i = 0; i < 3; ++i)
    links[i] =
        world.create_body(named(body_of(Box{half}, {0, Real(-0.5 - i), 0}), numbered("link", i)));
  JointSettings nail;
  nail.type = JointType::nail;
  nail.name = "top";
  nail.body_a = links[0];
  nail.anchor = {0, 0, 0};
  world.create_joint(nail);
  JointId between[2];
  for (int i = 0; i < 2; ++i) {
    JointSettings ball;
    ball.type = JointType::ball;
    ball.name = numbered("j", i);
    ball.body_a = links[i];
    ball.body_b = links[i + 1];
    ball.anchor = {0, Real(-1 - i), 0};
    between[i] = world.create_joint(ball);
  }
  for (int i = 0; i < 30; ++i)
    world.step(k_dt);

  world.remove_body(links[1]);
  ASSERT_EQ(count_of(world, DiagnosticKind::joint_removed), 2u);
  for (int i = 0; i < 2; ++i) {
    const Diagnostic& d = world.diagnostics()[std::size_t(i)];
    EXPECT_EQ(d.stage, StepStage::api);
    EXPECT_TRUE(d.joint == between[0] || d.joint == between[1]);
    EXPECT_TRUE(contains(d.message, "body 'link1'")) << d.message;
    EXPECT_FALSE(world.is_valid(between[i]));
  }
  const Real bottom_y0 = world.position(links[2]).y;
  const Real bottom_v0 = world.linear_velocity(links[2]).y;
  const int steps = 30;
  for (int i = 0; i < steps; ++i)
    world.step(k_dt);
  EXPECT_TRUE(world.diagnostics().empty());
  EXPECT_NEAR(world.position(links[0]).y, Real(-0.5), 0.01);
  const double expected = bottom_y0 + bottom_v0 * steps * double(k_dt) - free_fall_drop(steps);
  EXPECT_NEAR(world.position(links[2]).y, expected, 1e-3);
}

}  // namespace
}  // namespace impulse
