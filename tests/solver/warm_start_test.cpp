// Warm starting on a resting stack of 10 bodies whose contacts are custom rows (1D, as in seed
// 000's examples, so no collision code is involved): the solver, warm-started from last step's
// impulses, needs far fewer iterations to reach a relative residual of 1e-3.

#include <impulse/error.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>

#include "support/row_stack.h"

namespace impulse {
namespace {

constexpr int k_stack_height = 10;

struct StackRun {
  double mean_iterations = 0;  // over the measured steps
  Real top_height = 0;
};

StackRun run_stack(SolverType type, bool warm_start) {
  WorldSettings settings;
  settings.solver.type = type;
  settings.solver.warm_start = warm_start;
  settings.solver.iterations = 1000;
  settings.solver.tolerance = Real(1e-3);
  settings.sleeping = false;  // a sleeping stack would need no solve at all
  World world(settings);
  const std::vector<BodyId> boxes = testing::add_row_stack(world, k_stack_height);
  std::vector<int> iterations;
  for (int step = 0; step < 120; ++step) {
    world.step(Real(1.0 / 60));
    if (step >= 60) iterations.push_back(world.last_step_stats().solve.iterations);
  }
  return {std::accumulate(iterations.begin(), iterations.end(), 0.0) / double(iterations.size()),
          world.position(boxes.back()).y};
}

// (The block solver is left out: the stack's rows form one custom constraint, one block, which it
// solves exactly in one visit whether warm or cold.)
TEST(WarmStart, RestingStackNeedsAtLeastFiveTimesFewerIterations) {
  for (SolverType type : {SolverType::pgs, SolverType::global_sparse, SolverType::jacobi}) {
    const StackRun cold = run_stack(type, false);
    const StackRun warm = run_stack(type, true);
    std::printf("%s: cold %.1f, warm %.1f iterations\n", solver_type_name(type),
                cold.mean_iterations, warm.mean_iterations);
    EXPECT_GE(cold.mean_iterations, 5 * warm.mean_iterations)
        << solver_type_name(type) << ": cold " << cold.mean_iterations << ", warm "
        << warm.mean_iterations;
    // Both hold the stack up: the top box stays at its resting height.
    EXPECT_NEAR(cold.top_height, Real(k_stack_height) - Real(0.5), 0.01);
    EXPECT_NEAR(warm.top_height, Real(k_stack_height) - Real(0.5), 0.01);
  }
}

TEST(CustomConstraint, ReactionOfARestingBoxIsItsWeightTimesDt) {
  World world;
  BodySettings box;
  box.mass = 3;
  box.position = {0, Real(0.5), 0};
  const BodyId id = world.create_body(box);
  const ConstraintId c = world.add_custom_constraint([id](const World&, Real, RowWriter& rows) {
    ConstraintRow row;
    row.body_a = id;
    row.linear_a = Vec3::unit_y();
    row.lo = 0;
    rows.add(row);
  });
  for (int i = 0; i < 10; ++i)
    world.step(Real(1.0 / 60));
  ASSERT_EQ(world.custom_constraint_impulses(c).size(), 1u);
  EXPECT_NEAR(world.custom_constraint_impulses(c)[0], 3 * 9.81 / 60, 1e-5);
  EXPECT_NEAR(world.position(id).y, 0.5, 1e-6);
  world.remove_custom_constraint(c);
  EXPECT_THROW(world.custom_constraint_impulses(c), StaleHandle);
  world.step(Real(1.0 / 60));
  EXPECT_LT(world.position(id).y, 0.5);  // nothing holds it any more
}

// Custom rows come after contact rows in the store; their impulses must be read from there (they
// were once read from row 0, the contacts' rows).
TEST(CustomConstraint, ReactionIsItsOwnWhileContactsAreSolvedToo) {
  World world;
  BodySettings ground;
  ground.type = BodyType::static_body;
  ground.shapes = {ShapeSettings{Box{{10, Real(0.5), 10}}, {}}};
  ground.position = {0, Real(-0.5), 0};
  world.create_body(ground);
  BodySettings resting;  // 10 kg on the ground: its contacts take 10 g dt
  resting.mass = 10;
  resting.position = {3, Real(0.5), 0};
  world.create_body(resting);
  BodySettings held;  // 3 kg held up in the air by the custom row
  held.mass = 3;
  held.position = {0, 5, 0};
  const BodyId id = world.create_body(held);
  const ConstraintId c = world.add_custom_constraint([id](const World&, Real, RowWriter& rows) {
    ConstraintRow row;
    row.body_a = id;
    row.linear_a = Vec3::unit_y();
    row.lo = 0;
    rows.add(row);
  });
  for (int i = 0; i < 30; ++i)
    world.step(Real(1.0 / 60));
  ASSERT_GT(world.last_step_stats().contact_points, 0u);
  EXPECT_NEAR(world.custom_constraint_impulses(c)[0], 3 * 9.81 / 60, 1e-4);
}

TEST(CustomConstraint, BadRowThrowsBeforeTheWorldChanges) {
  World world;
  const BodyId id = world.create_body(BodySettings{});
  world.add_custom_constraint([id](const World&, Real, RowWriter& rows) {
    ConstraintRow row;
    row.body_a = id;
    row.linear_a = {std::numeric_limits<Real>::quiet_NaN(), 0, 0};
    rows.add(row);
  });
  const std::uint64_t before = world.state_hash();
  EXPECT_THROW(world.step(Real(1.0 / 60)), InvalidArgument);
  EXPECT_EQ(world.state_hash(), before);
  EXPECT_EQ(world.time(), 0);
}

}  // namespace
}  // namespace impulse
