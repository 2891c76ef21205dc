// Jammed points (constraints/contact_rows.h): a push-out with no solution grew its rows' impulses
// from step to step along the direction they share, which no solve takes back; a point whose
// push-out stalls for k_stalled_steps while its impulse grows is made soft, and its impulse
// settles.

#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>

#include "support/bodies.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_dt = Real(1) / 60;

// A 10 kg unit box resting on the ground between two static walls 0.9 m apart: 5 cm into each.
struct WalledBox {
  World world;
  BodyId box, right_wall;

  explicit WalledBox(SolverType type) : world(settings(type)) {
    world.create_body(ground_box());
    const Vec3 wall{Real(0.5), 2, 2};
    world.create_body(body_of(Box{wall}, {Real(-0.95), 2, 0}, BodyType::static_body));
    right_wall = world.create_body(body_of(Box{wall}, {Real(0.95), 2, 0}, BodyType::static_body));
    BodySettings s = body_of(Box{{Real(0.5), Real(0.5), Real(0.5)}}, {0, Real(0.5), 0});
    s.mass = 10;
    box = world.create_body(s);
  }

  static WorldSettings settings(SolverType type) {
    WorldSettings s;
    s.sleeping = false;
    s.solver.type = type;
    return s;
  }

  Real largest_wall_impulse() const {
    Real largest = 0;
    for (const DebugContact& c : world.debug_contacts()) {
      if (std::abs(c.normal.x) > Real(0.9)) largest = std::max(largest, c.normal_impulse);
    }
    return largest;
  }
};

// Each wall pushes the box out at Baumgarte's speed (0.2 * 4.5 cm / dt = 0.54 m/s), which it
// cannot take. With rigid rows the walls' points held 1.7e4 N s after 10 s and 1.55e5 after
// 50 s; soft once jammed, their impulses stay within a few hundred N s (351 at most, measured)
// and settle near 40 (the push-out's bias over the softness).
TEST(JammedContacts, ABoxWiderThanTheGapBetweenTwoWallsHoldsBoundedImpulses) {
  WalledBox s(SolverType::pgs);
  Real largest = 0;
  for (int step = 0; step < 600; ++step) {
    s.world.step(k_dt);
    largest = std::max(largest, s.largest_wall_impulse());
  }
  EXPECT_LT(largest, 500);
  EXPECT_LT(s.largest_wall_impulse(), 100);
  // Where the rows' order leaves it (one wall's push-out takes, the other's cannot: 9.5 cm in),
  // within the 10 cm the walls overlap it by.
  EXPECT_LT(std::abs(s.world.position(s.box).x), Real(0.05));
  EXPECT_LT(s.world.kinetic_energy(), 1e-3);
}

// Removing a wall released what the jam had stored: the global solvers, which apply the whole warm
// start and iterate on the assembled system, threw the box at 12 to 15 m/s and it still held 260
// to 530 J two seconds later. Now the remaining wall pushes it out of its 5 cm and it stops.
TEST(JammedContacts, ReleasedTheBoxIsNotThrown) {
  for (const SolverType type :
       {SolverType::pgs, SolverType::global_sparse, SolverType::global_dense, SolverType::block}) {
    WalledBox s(type);
    for (int step = 0; step < 600; ++step)
      s.world.step(k_dt);
    s.world.remove_body(s.right_wall);
    Real fastest = 0;
    for (int step = 0; step < 120; ++step) {
      s.world.step(k_dt);
      fastest = std::max(fastest, length(s.world.linear_velocity(s.box)));
    }
    EXPECT_LT(fastest, 2) << solver_type_name(type);
    EXPECT_LT(s.world.kinetic_energy(), 1e-2) << solver_type_name(type);
    EXPECT_GT(s.world.position(s.box).x, Real(0.04)) << solver_type_name(type);  // out of the wall
  }
}

}  // namespace
}  // namespace impulse
