// Boxes found apart (ContactManager's Pair::gap): while the motion since cannot have closed their
// gap along a face axis to the margin, their narrowphase is skipped; it must then be exactly what
// the narrowphase would have found, nothing.

#include <gtest/gtest.h>

#include <random>

#include "collision/box_box.h"
#include "collision/contact_manager.h"
#include "support/geometry.h"

namespace impulse {
namespace {

using testing::about;
using testing::at;

constexpr Real k_margin = Real(0.02);

const auto collide_all = [](std::uint32_t, std::uint32_t) { return PairUpdate::collide; };

// Two unit boxes in a manager that never reuses contacts: each step either runs the narrowphase or
// skips it as apart, and either way must report what collide_box_box finds at the poses.
struct BoxPair {
  ContactManager contacts;
  TaskPool pool;
  std::uint32_t b = 0;
  int steps = 0, apart_steps = 0, skipped = 0, mismatches = 0;

  BoxPair(const Transform& pose_a, const Transform& pose_b) : a_pose(pose_a) {
    contacts.set_reuse({0, 0});
    contacts.add_shape(Box{}, 0, pose_a);
    b = contacts.add_shape(Box{}, 1, pose_b);
    check(pose_b);
  }
  // Moves b to `pose`; returns whether the boxes touch (within the margin).
  bool move(const Transform& pose) {
    contacts.move_shape(b, pose, {});
    return check(pose);
  }

 private:
  bool check(const Transform& pose_b) {
    contacts.update(k_margin, collide_all, pool);
    Manifold expected;
    const bool touching = collide_box_box(Box{}, a_pose, Box{}, pose_b, k_margin, expected);
    const bool reported = !contacts.manifolds().empty();
    ++steps;
    apart_steps += touching ? 0 : 1;
    skipped += int(contacts.counts().apart);
    if (reported != touching) ++mismatches;
    return touching;
  }
  Transform a_pose;
};

// A box turning in place beside another: the turn alone swings its corner into the other's face
// (1.2 m between the centres: 0.2 m apart square on, 0.007 m apart at 45 degrees). The gap it
// spends is the turn's chord times the corner's reach, so the skips stop in time.
TEST(ApartPairs, ATurnInPlaceEndsTheSkipsBeforeACornerReachesTheOtherBox) {
  BoxPair pair(at({0, 0, 0}), at({Real(1.2), 0, 0}));
  for (int degrees = 1; degrees <= 45; ++degrees)
    pair.move(at({Real(1.2), 0, 0}, about({0, 0, 1}, Real(degrees))));
  EXPECT_EQ(pair.mismatches, 0);
  EXPECT_GT(pair.skipped, 0);
  // At 45 degrees the corner is 0.2 - (sqrt(1/2) - 1/2) = 0.007 m from the face: within the margin.
  EXPECT_TRUE(pair.move(at({Real(1.2), 0, 0}, about({0, 0, 1}, 45))));
}

// Boxes at random turns closing in from 1.5 to 2.5 m by random small moves and turns, as a pile's
// neighbours do: every step reports what the narrowphase finds, and most steps apart skip it.
TEST(ApartPairs, RandomlyClosingBoxesReportWhatTheNarrowphaseFindsAtEveryStep) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<Real> unit(-1, 1), uniform(0, 1);
  const auto direction = [&] {
    for (;;) {
      const Vec3 v{unit(rng), unit(rng), unit(rng)};
      if (length_squared(v) > Real(0.01) && length_squared(v) <= 1) return normalize(v);
    }
  };
  const auto turn = [&](Real max_radians) {
    return Quat::from_axis_angle(direction(), max_radians * uniform(rng));
  };
  int mismatches = 0, apart_steps = 0, skipped = 0, touched = 0;
  for (int walk = 0; walk < 200; ++walk) {
    Transform pose_b = at(direction() * (Real(1.5) + uniform(rng)), turn(k_pi));
    BoxPair pair(at({0, 0, 0}, turn(k_pi)), pose_b);
    for (int step = 0; step < 150; ++step) {
      // Up to 3 cm a step towards a's centre, 1 cm across, and up to 3 degrees of turn.
      const Vec3 inward = -normalize(pose_b.position) * (Real(0.03) * uniform(rng));
      pose_b.position += inward + direction() * (Real(0.01) * uniform(rng));
      pose_b.orientation = normalize(turn(Real(0.05)) * pose_b.orientation);
      if (pair.move(pose_b)) {
        ++touched;
        break;
      }
    }
    mismatches += pair.mismatches;
    apart_steps += pair.apart_steps;
    skipped += pair.skipped;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(touched, 150);              // most walks end touching: the skips ended in time
  EXPECT_GT(skipped, apart_steps / 4);  // about a third at these speeds
}

}  // namespace
}  // namespace impulse
