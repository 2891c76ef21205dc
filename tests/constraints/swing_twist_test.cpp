// The swing-twist coordinates' rates against finite differences of the coordinates themselves.

#include <gtest/gtest.h>

#include <random>

#include "constraints/joints/joint_parts.h"

namespace impulse {
namespace {

// q turned for time t at the angular velocity w given in q's outer (a's) frame.
Quat turned(const Quat& q, const Vec3& w, Real t) {
  const Real angle = length(w) * t;
  return Quat::from_axis_angle(normalize(w), angle) * q;
}

// At relative rotations over the whole range but near a swing of half a turn, each coordinate's
// central difference along a random relative angular velocity is its rate's dot product with it.
TEST(SwingTwistRates, AreTheCoordinatesDerivatives) {
  std::mt19937 random(7);
  std::uniform_real_distribution<Real> unit(-1, 1);
  int checked = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Quat q = normalize(Quat(unit(random), unit(random), unit(random), unit(random)));
    const Vec3 w{unit(random), unit(random), unit(random)};
    const std::optional<SwingTwistRates> rates = swing_twist_rates(q);
    const SwingTwist at = swing_twist(q);
    if (!rates) {
      EXPECT_GT(length(at.swing), Real(2.9)) << trial;  // only near half a turn of swing
      continue;
    }
    // Away from the twist's wrap at +-pi, where its difference would jump.
    if (std::abs(at.twist) > Real(3)) continue;
    const Real h = Real(1e-3);
    const SwingTwist ahead = swing_twist(turned(q, w, h)), behind = swing_twist(turned(q, w, -h));
    const Real tolerance =
        Real(3e-3) * (1 + length(rates->twist) + length(rates->swing[1]) + length(rates->swing[2]));
    EXPECT_NEAR((ahead.twist - behind.twist) / (2 * h), dot(rates->twist, w), tolerance) << trial;
    for (std::size_t k = 1; k <= 2; ++k)
      EXPECT_NEAR((ahead.swing[k] - behind.swing[k]) / (2 * h), dot(rates->swing[k], w), tolerance)
          << trial << " swing " << k;
    ++checked;
  }
  EXPECT_GT(checked, 1500);
}

// With no swing the rates are a's axes whatever the twist: the first-order rows are exact there.
TEST(SwingTwistRates, AtNoSwingAreTheFramesAxes) {
  for (const Real twist : {Real(0), Real(0.7), Real(-2.5)}) {
    const std::optional<SwingTwistRates> rates =
        swing_twist_rates(Quat::from_axis_angle(Vec3::unit_x(), twist));
    ASSERT_TRUE(rates.has_value());
    EXPECT_NEAR(length(rates->twist - Vec3::unit_x()), 0, 1e-6) << twist;
    EXPECT_NEAR(length(rates->swing[1] - Vec3::unit_y()), 0, 1e-6) << twist;
    EXPECT_NEAR(length(rates->swing[2] - Vec3::unit_z()), 0, 1e-6) << twist;
  }
}

}  // namespace
}  // namespace impulse
