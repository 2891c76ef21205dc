// Joints in a world: each type's physics against closed forms (periods, off-axis motion, limits,
// motor speeds and torques, breaking loads), and the bookkeeping (handles, collisions, sleeping).

#include <impulse/error.h>
#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/bodies.h"
#include "support/geometry.h"
#include "support/solvers.h"

namespace impulse {
namespace {

using testing::body_of;
using testing::ground_box;

constexpr Real k_pi = std::numbers::pi_v<Real>;
constexpr Real k_g = Real(9.81);

WorldSettings no_sleep(Real dt = Real(1.0 / 60)) {
  WorldSettings s;
  s.sleeping = false;
  s.timestep = dt;
  return s;
}

// The settings with the given solver.
WorldSettings solved_by(WorldSettings settings, SolverType type) {
  settings.solver.type = type;
  return settings;
}

// no_sleep without gravity: only the joints and contacts act.
WorldSettings weightless(Real dt = Real(1.0 / 60)) {
  WorldSettings s = no_sleep(dt);
  s.gravity = {};
  return s;
}

// Rigid joint rows: the default joint softness yields about 1% of each impulse by design (it keeps
// long chains from gaining energy, docs/joints.md); tests of what a type's rows hold exactly turn
// it off.
WorldSettings rigid(Real dt = Real(1.0 / 60)) {
  WorldSettings s = no_sleep(dt);
  s.solver.joint_softness = 0;
  return s;
}

constexpr Real k_bob_radius = Real(0.1);

BodySettings ball(const Vec3& position, Real radius = k_bob_radius, Real mass = 1) {
  BodySettings s = body_of(Sphere{radius}, position);
  s.mass = mass;
  return s;
}

// The period of a pendulum of length 1 m nailed at the origin, released at amplitude degrees,
// measured over several swings between upward zero crossings of x.
Real pendulum_period(Real dt, Real amplitude_deg, int position_iterations = 0, int substeps = 1) {
  WorldSettings settings = no_sleep(dt);
  settings.solver.position_iterations = position_iterations;
  settings.solver.substeps = substeps;
  World world(settings);
  const Real a = amplitude_deg * k_pi / 180;
  const BodyId bob = world.create_body(ball({std::sin(a), -std::cos(a), 0}));
  JointSettings nail;
  nail.type = JointType::nail;
  nail.body_a = bob;
  nail.anchor = {0, 0, 0};
  world.create_joint(nail);
  std::vector<double> crossings;
  Real last_x = world.position(bob).x;
  for (int i = 1; i < int(20 / dt) && crossings.size() < 6; ++i) {
    world.step(dt);
    const Real x = world.position(bob).x;
    if (last_x < 0 && x >= 0) crossings.push_back((i - 1) * dt + dt * (-last_x) / (x - last_x));
    last_x = x;
  }
  return Real((crossings.back() - crossings.front()) / double(crossings.size() - 1));
}

TEST(Joints, PendulumPeriodMatchesTheSmallAngleFormula) {
  // A ball of radius r on a 1 m arm is a physical pendulum: 2 pi sqrt((L^2 + 2/5 r^2) / (g L)),
  // corrected for the amplitude of 5 degrees by (1 + a^2 / 16), 0.05%.
  const Real a = 5 * k_pi / 180;
  const Real arm = 1 + Real(0.4) * k_bob_radius * k_bob_radius;
  const Real expected = 2 * k_pi * std::sqrt(arm / k_g) * (1 + a * a / 16);
  EXPECT_NEAR(pendulum_period(Real(1.0 / 240), 5), expected, 0.01 * expected);
  EXPECT_NEAR(pendulum_period(Real(1.0 / 60), 5), expected, 0.02 * expected);
}

// Sub-steps shorten the integrator's step: at a large amplitude and a coarse step the period's
// error against the exact one (the arithmetic-geometric mean form of the elliptic integral,
// T = T0 / agm(1, cos(a / 2))) shrinks with the sub-step.
TEST(Joints, SubstepsShrinkTheLargeAmplitudePendulumsPeriodError) {
  const Real amplitude_deg = 90;
  const double a = amplitude_deg * std::numbers::pi / 180;
  double x = 1, y = std::cos(a / 2);
  for (int i = 0; i < 8; ++i)
    std::tie(x, y) = std::pair((x + y) / 2, std::sqrt(x * y));
  const double arm = 1 + 0.4 * k_bob_radius * k_bob_radius;
  const double expected = 2 * std::numbers::pi * std::sqrt(arm / k_g) / x;
  const Real dt = Real(1.0 / 30);
  const double error_1 = std::abs(pendulum_period(dt, amplitude_deg, 0, 1) - expected);
  const double error_8 = std::abs(pendulum_period(dt, amplitude_deg, 0, 8) - expected);
  // Measured: 3.6% of the period at 30 Hz, 0.016% with 8 sub-steps.
  EXPECT_LT(error_8, 0.001 * expected);
  EXPECT_LT(error_8, error_1 / 10);
}

BodySettings box(const Vec3& position, const Vec3& half_extents, Real mass = 1) {
  BodySettings s = body_of(Box{half_extents}, position);
  s.mass = mass;
  return s;
}

// A 1 m cube of 1 kg.
BodySettings cube(const Vec3& position) {
  return box(position, {Real(0.5), Real(0.5), Real(0.5)});
}

// A static body at the origin to be body_a of a joint, so that the joint's angles, slides and
// motor speeds are body_b's own against the world (a joint measures b relative to a).
BodyId base(World& world) {
  return world.create_body(body_of(Sphere{Real(0.05)}, {0, 0, 0}, BodyType::static_body));
}

JointSettings joint_of(JointType type, BodyId a, BodyId b, const Vec3& anchor,
                       const Vec3& axis = Vec3::unit_x()) {
  JointSettings s;
  s.type = type;
  s.body_a = a;
  s.body_b = b;
  s.anchor = anchor;
  s.axis = axis;
  return s;
}

// The part of v off the unit axis.
Real off_axis(const Vec3& v, const Vec3& axis) {
  return length(v - axis * dot(v, axis));
}

// The angle of q's twist about its k-th axis (seed 002's swing-twist split), in (-pi, pi].
Real twist_angle(const Quat& q, int k) {
  const Real s = q.w < 0 ? Real(-1) : Real(1);
  const Real component = k == 0 ? q.x : (k == 1 ? q.y : q.z);
  return 2 * std::atan2(s * component, s * q.w);
}

// The angle between q's x axis and the world's: the size of the swing.
Real swing_angle(const Quat& q) {
  return std::acos(std::clamp(dot(rotate(q, Vec3::unit_x()), Vec3::unit_x()), Real(-1), Real(1)));
}

// A hinge's angle about world z: where b's x axis points in the xy plane.
Real angle_about_z(const Quat& q) {
  const Vec3 x = rotate(q, Vec3::unit_x());
  return std::atan2(x.y, x.x);
}

TEST(Joints, HingeToTheWorldTurnsOnlyAboutItsAxisUnderGravityLoad) {
  // The box hangs beside the hinge along its axis too, so its weight twists the hinge's angular
  // rows as well as loading its point rows.
  World world(no_sleep());
  const BodyId arm =
      world.create_body(box({Real(0.5), 0, Real(0.3)}, {Real(0.5), Real(0.1), Real(0.2)}));
  world.create_joint(joint_of(JointType::hinge, arm, {}, {0, 0, 0}, Vec3::unit_z()));
  Real fastest = 0;
  for (int i = 0; i < 120; ++i) {
    world.step(Real(1.0 / 60));
    fastest = std::max(fastest, std::abs(world.angular_velocity(arm).z));
  }
  EXPECT_GT(fastest, 1);  // it swings
  EXPECT_LT(off_axis(world.angular_velocity(arm), Vec3::unit_z()), Real(1e-3));
}

// Disabled: measured 2.2e-3 rad/s off the axis after 2 s, the same at 10, 50 and 200 iterations,
// so not convergence. With both bodies turning, integrating each orientation on its own drifts
// the axes apart at second order (up to 3.4e-3 rad here), and the off-axis velocity measured is
// Baumgarte's correction of that drift (0.2 / dt x 3.4e-3 = 0.04 rad/s at worst). The same hinge
// to the world has no such drift and passes. Closing it needs the drift removed at the position
// level without a velocity (projection: 3.3e-3 measured, so not yet) or sub-stepping.
TEST(Joints, DISABLED_HingeBetweenTwoBodiesTurnsOnlyAboutItsAxisUnderGravityLoad) {
  // The first body turns freely on a nail through its centre, so the arm's load swings it too;
  // the hinge axis is the first body's z axis wherever it turns.
  WorldSettings settings = no_sleep();
  World world(settings);
  const BodyId hub = world.create_body(box({0, 0, 0}, {Real(0.2), Real(0.2), Real(0.2)}, 2));
  JointSettings nail = joint_of(JointType::nail, hub, {}, {0, 0, 0});
  world.create_joint(nail);
  const BodyId arm =
      world.create_body(box({Real(0.7), 0, Real(0.3)}, {Real(0.5), Real(0.1), Real(0.2)}));
  world.create_joint(joint_of(JointType::hinge, hub, arm, {Real(0.2), 0, 0}, Vec3::unit_z()));
  Real fastest = 0;
  for (int i = 0; i < 120; ++i) {
    world.step(Real(1.0 / 60));
    fastest =
        std::max(fastest, std::abs(dot(world.angular_velocity(arm) - world.angular_velocity(hub),
                                       rotate(world.orientation(hub), Vec3::unit_z()))));
  }
  const Vec3 axis = rotate(world.orientation(hub), Vec3::unit_z());
  const Vec3 relative = world.angular_velocity(arm) - world.angular_velocity(hub);
  EXPECT_GT(fastest, 1);
  EXPECT_LT(off_axis(relative, axis), Real(1e-3));
}

// A hinge whose bodies an impact turned most of half a turn off its axis (172 degrees about a
// tilted axis, so that both of its axis rows are off, and twisted about the hinge as well) comes
// back onto it, between two free boxes, with and without position projection. Seed 002's rows,
// u_b . v_a and u_b . w_a, vanish with the axes opposite too, and held such a hinge flipped (an
// elbow of the peers' ragdolls stayed so).
TEST(Joints, HingeTurnedNearlyHalfATurnOffItsAxisComesBackOntoIt) {
  for (const int position_iterations : {0, 2}) {
    WorldSettings settings = no_sleep();
    settings.solver.position_iterations = position_iterations;
    World world(settings);
    const Vec3 half{Real(0.3), Real(0.2), Real(0.1)};
    const BodyId a = world.create_body(box({0, 0, 0}, half, 2));
    const BodyId b = world.create_body(box({0, 0, Real(0.5)}, half));
    world.create_joint(joint_of(JointType::hinge, a, b, {0, 0, Real(0.25)}, Vec3::unit_z()));
    const Quat tilted = Quat::from_axis_angle(normalize(Vec3{1, 2, 0}), Real(3.0)) *
                        Quat::from_axis_angle(Vec3::unit_z(), Real(0.5));
    world.set_transform(b, {{0, 0, Real(0.5)}, tilted});
    for (int i = 0; i < 240; ++i)
      world.step(Real(1.0 / 60));
    const Vec3 axis_a = rotate(world.orientation(a), Vec3::unit_z());
    const Vec3 axis_b = rotate(world.orientation(b), Vec3::unit_z());
    EXPECT_GT(dot(axis_a, axis_b), std::cos(Real(0.01)))
        << position_iterations << " position iterations";
  }
}

TEST(Joints, HingeLimitStopsAFallingBox) {
  // Released level, the box falls about z (its angle decreasing) onto the lower limit.
  World world(no_sleep());
  const BodyId arm = world.create_body(box({Real(0.5), 0, 0}, {Real(0.5), Real(0.1), Real(0.1)}));
  JointSettings hinge = joint_of(JointType::hinge, base(world), arm, {0, 0, 0}, Vec3::unit_z());
  hinge.limits = Range{Real(-0.5), Real(1.0)};
  world.create_joint(hinge);
  Real lowest = 0;
  for (int i = 0; i < 180; ++i) {
    world.step(Real(1.0 / 60));
    lowest = std::min(lowest, angle_about_z(world.orientation(arm)));
  }
  EXPECT_GE(lowest, Real(-0.5 - 0.01));
  EXPECT_LT(lowest, Real(-0.5 + 0.01));                            // it reached the limit
  EXPECT_NEAR(angle_about_z(world.orientation(arm)), -0.5, 0.01);  // and rests on it
}

// A 1 kg box on a hinge 1 to 3 m from its centre to a free 10 kg base, weightless, swung about
// the hinge at 3 rad/s into its limit at 0.5 rad under each solver. The limit row turns the box
// about its centre, the point rows make it turn about the hinge, with an inertia 34 to 300 times
// larger: each visit of an iterative solver took back that small share of its error (pgs: the
// joint 2.3, 5.9 and 9.7 cm apart at its worst, 4 to 6 times what the exact solvers let it drift,
// and the two still turning apart after 10 s). Decoupled from the point rows, it stops there and
// the two turn on as one body: the hinge through the base's centre puts no torque on the base until
// the limit does, so the momentum and the angular momentum about the centre of mass of the start
// (the box's spin and orbit) give the energy left, P^2 / 2M + L^2 / 2 (I_base + I_box + mu arm^2),
// mu = m_base m_box / M.
TEST(Joints, AHingeLimitFarFromItsAnchorHoldsBetweenFreeBodies) {
  const Real spin = 3, base_mass = 10, half = Real(0.2), base_half = Real(0.3);
  for (const SolverType type : {SolverType::pgs, SolverType::jacobi, SolverType::global_sparse,
                                SolverType::block, SolverType::pivoting}) {
    for (const Real arm : {Real(1), Real(2), Real(3)}) {
      WorldSettings settings = weightless();
      settings.solver.type = type;
      World world(settings);
      const BodyId hub =
          world.create_body(box({0, 0, 0}, {base_half, base_half, base_half}, base_mass));
      BodySettings box_settings = box({arm, 0, 0}, {half, half, half});
      box_settings.angular_velocity = {0, 0, spin};
      box_settings.linear_velocity = {0, spin * arm, 0};
      const BodyId swung = world.create_body(box_settings);
      JointSettings hinge = joint_of(JointType::hinge, hub, swung, {0, 0, 0}, Vec3::unit_z());
      hinge.limits = Range{Real(-0.5), Real(0.5)};
      const JointId id = world.create_joint(hinge);
      const double start = world.kinetic_energy();
      Real worst = 0, widest = 0;
      double most = 0;
      for (int i = 0; i < 600; ++i) {
        world.step(Real(1.0 / 60));
        worst = std::max(worst, world.joint_state(id).error);
        most = std::max(most, world.kinetic_energy());
        const Quat relative = conjugate(world.orientation(hub)) * world.orientation(swung);
        widest = std::max(widest, std::abs(twist_angle(relative, 2)));
      }
      const double total = double(base_mass) + 1, mu = double(base_mass) / total;
      const double box_inertia = 8 * double(half * half) / 12;
      const double base_inertia = double(base_mass) * 8 * double(base_half * base_half) / 12;
      const double momentum = double(spin * arm);
      const double angular = double(spin) * (box_inertia + mu * double(arm * arm));
      const double expected =
          momentum * momentum / (2 * total) +
          angular * angular / (2 * (base_inertia + box_inertia + mu * double(arm * arm)));
      const std::string where =
          std::string(solver_type_name(type)) + ", arm " + std::to_string(arm) + " m";
      // The joint's drift as the pair spins (Baumgarte's steady error, every solver alike).
      EXPECT_LT(worst, Real(0.01) * arm) << where;
      EXPECT_LT(widest, Real(0.5 + 0.01)) << where;
      EXPECT_GT(widest, Real(0.5 - 0.01)) << where;  // it reached the limit
      EXPECT_LE(most, start * (1 + 1e-3)) << where;
      EXPECT_NEAR(world.kinetic_energy(), expected, 0.015 * expected) << where;
      // As one body: without the decoupling pgs left 0.05-0.07 rad/s between them.
      SCOPED_TRACE(where);
      testing::expect_vec_near(world.angular_velocity(swung), world.angular_velocity(hub),
                               Real(1e-3));
    }
  }
}

constexpr AxisMotion k_fixed{AxisMotion::Mode::fixed, {}, {}};
constexpr AxisMotion k_free{AxisMotion::Mode::free, {}, {}};

// In a plane world (normal z), a box on a six_dof to the world holding all rotation and linear x
// and y', its frame turned 30 degrees about x, with z' limited to [0.001, 1] m: in the plane z' is
// y' and the plane's normal combined, so the fixed rows already hold it (at 0, a millimetre short
// of the range: no answer satisfies both, and pivoting's exact one is undefined). Decoupled from
// them the limit was rounding with its speculative bias kept: it threw the box 15 km (5e7 J)
// under the iterative solvers, and still kept it moving (3.5 cm off, 0.13 J) once the equality
// pivots had a floor; as written it sags 2 mm under each.
TEST(Joints, ALimitTheJointsOtherRowsAlreadyHoldStaysAsWritten) {
  for (const SolverType type : {SolverType::pgs, SolverType::jacobi, SolverType::global_sparse,
                                SolverType::global_dense, SolverType::block}) {
    WorldSettings settings = no_sleep();
    settings.plane_normal = Vec3::unit_z();
    settings.solver.type = type;
    World world(settings);
    const BodyId body = world.create_body(box({1, 0, 0}, {Real(0.2), Real(0.2), Real(0.2)}));
    JointSettings joint = joint_of(JointType::six_dof, {}, body, {0, 0, 0});
    joint.frame = Quat::from_axis_angle(Vec3::unit_x(), k_pi / 6);
    joint.linear[2] = {AxisMotion::Mode::limited, {Real(0.001), 1}, {}};
    world.create_joint(joint);
    for (int i = 0; i < 600; ++i)
      world.step(settings.timestep);
    EXPECT_LT(length(world.position(body) - Vec3{1, 0, 0}), Real(5e-3)) << solver_type_name(type);
    EXPECT_LT(world.kinetic_energy(), 1e-6) << solver_type_name(type);
  }
}

// A 1 kg box 1 m from its pivot in a plane world whose normal, (0.6, 0.8, 0), is no axis, released
// level: a pendulum on a ball joint or on a hinge about the normal, under every solver. It falls
// at most its 1 m (kinetic energy at most m g L) and its joint holds. Across the plane a row's
// J M^-1 J^T was float's rounding, not 0 (a hinge's swing rows, one of the point rows), and the
// ball's three point rows two in the plane: held to them, every solver flung the box to the speed
// limit (5e7 J) but under the ball, which only pgs and pivoting flung.
TEST(Joints, APendulumInAPlaneWorldWhoseNormalIsNoAxisSwingsUnderEverySolver) {
  const Vec3 normal{Real(0.6), Real(0.8), 0};
  for (const JointType type : {JointType::ball, JointType::hinge}) {
    for (const SolverType solver :
         {SolverType::pgs, SolverType::jacobi, SolverType::global_sparse, SolverType::global_dense,
          SolverType::block, SolverType::pivoting}) {
      WorldSettings settings = no_sleep();
      settings.plane_normal = normal;
      settings.gravity = {0, 0, -k_g};
      settings.solver.type = solver;
      World world(settings);
      const BodyId bob =
          world.create_body(box({Real(-0.8), Real(0.6), 0}, {Real(0.2), Real(0.2), Real(0.2)}));
      const JointId id = world.create_joint(joint_of(type, bob, {}, {0, 0, 0}, normal));
      double most = 0;
      Real worst = 0;
      for (int i = 0; i < 600; ++i) {
        world.step(settings.timestep);
        most = std::max(most, world.kinetic_energy());
        worst = std::max(worst, world.joint_state(id).error);
      }
      const std::string where =
          std::string(joint_type_name(type)) + ", " + solver_type_name(solver);
      EXPECT_LE(most, double(k_g) * 1.001) << where;
      EXPECT_LT(worst, Real(0.02)) << where;
      EXPECT_LT(std::abs(dot(world.position(bob), normal)), Real(1e-3)) << where;
    }
  }
}

// A 1 kg box 2.5 m out on a hinge to the world, released level, falls onto its limit at -0.05 rad
// and rests on it under every solver: its centre at 2.5 sin(-0.05) below the hinge. With the limit
// row sized by the box's turn about its centre, every iterative solver threw it about (after 10 s
// pgs had it 758 m off its hinge with 3e6 J; jacobi, global_sparse and global_dense 1-1.6 m off
// with 730-1000 J); block and pivoting held it.
TEST(Joints, AnArmFarOutOnItsHingeRestsOnItsLimit) {
  const Real arm = Real(2.5), limit = Real(-0.05);
  for (const SolverType type : testing::k_all_solvers) {
    World world(solved_by(no_sleep(), type));
    const BodyId swung = world.create_body(box({arm, 0, 0}, {Real(0.2), Real(0.2), Real(0.2)}));
    JointSettings hinge = joint_of(JointType::hinge, base(world), swung, {0, 0, 0}, Vec3::unit_z());
    hinge.limits = Range{limit, Real(0.5)};
    world.create_joint(hinge);
    Real highest = -1, lowest = 1;
    for (int i = 0; i < 600; ++i) {
      world.step(Real(1.0 / 60));
      if (i < 300) continue;
      highest = std::max(highest, world.position(swung).y);
      lowest = std::min(lowest, world.position(swung).y);
    }
    EXPECT_NEAR(highest, arm * std::sin(limit), 1e-3) << solver_type_name(type);
    EXPECT_NEAR(lowest, arm * std::sin(limit), 1e-3) << solver_type_name(type);
  }
}

// A wheel spun into a range that ends at half a turn stops there, for each joint whose angle is a
// twist in (-pi, pi]: past -pi the angle reads +pi - e, and read so the far end's row stood almost
// a turn violated and drove the wheel on (8 to 423 J in 5 s). A range of a whole turn limits
// nothing: the wheel spins on.
TEST(Joints, AWheelSpunIntoARangeEndingAtHalfATurnStopsThere) {
  constexpr Real pi = std::numbers::pi_v<Real>;
  for (const JointType type : {JointType::hinge, JointType::cone_twist, JointType::six_dof}) {
    for (const Real direction : {Real(-1), Real(1)}) {
      World world(weightless());
      BodySettings s = box({0, 0, 0}, {Real(0.1), Real(0.3), Real(0.2)});
      s.angular_velocity = {5 * direction, 0, 0};
      const BodyId wheel = world.create_body(s);
      JointSettings joint = joint_of(type, base(world), wheel, {0, 0, 0}, Vec3::unit_x());
      const Range range = direction < 0 ? Range{-pi, Real(0.2)} : Range{Real(-0.2), pi};
      if (type == JointType::hinge) joint.limits = range;
      if (type == JointType::cone_twist) {
        joint.swing_limit = Real(0.5);
        joint.twist_limits = range;
      }
      if (type == JointType::six_dof) joint.angular[0] = {AxisMotion::Mode::limited, range, {}};
      world.create_joint(joint);
      const double start = world.kinetic_energy();
      double most = start;
      for (int i = 0; i < 180; ++i) {
        world.step(Real(1.0 / 60));
        most = std::max(most, world.kinetic_energy());
      }
      const std::string what = std::to_string(int(type)) + (direction < 0 ? " down" : " up");
      EXPECT_LE(most, start * 1.001) << what;
      EXPECT_LT(world.kinetic_energy(), start * 1e-4) << what;
      EXPECT_GT(std::abs(twist_angle(world.orientation(wheel), 0)), pi - Real(0.02)) << what;
    }
  }
  World world(weightless());
  BodySettings s = box({0, 0, 0}, {Real(0.1), Real(0.3), Real(0.2)});
  s.angular_velocity = {5, 0, 0};
  const BodyId wheel = world.create_body(s);
  JointSettings hinge = joint_of(JointType::hinge, base(world), wheel, {0, 0, 0}, Vec3::unit_x());
  hinge.limits = Range{-pi, pi};
  world.create_joint(hinge);
  for (int i = 0; i < 180; ++i)
    world.step(Real(1.0 / 60));
  EXPECT_NEAR(world.angular_velocity(wheel).x, 5, 1e-3);
}

TEST(Joints, HingeMotorSpinsAWheelUpWithItsMaxTorqueToItsSpeed) {
  // A sphere of 2 kg and radius 0.5 m (I = 2/5 m r^2 = 0.2 kg m^2) on a hinge through its centre:
  // no load, so the motor accelerates it at max_torque / I = 5 rad/s^2 until 10 rad/s.
  World world(no_sleep());
  const BodyId wheel = world.create_body(ball({0, 0, 0}, Real(0.5), 2));
  JointSettings hinge = joint_of(JointType::hinge, base(world), wheel, {0, 0, 0}, Vec3::unit_z());
  const Real max_torque = 1;
  hinge.motor = Motor{10, max_torque};
  const JointId id = world.create_joint(hinge);
  for (int i = 1; i <= 240; ++i) {
    world.step(Real(1.0 / 60));
    EXPECT_LE(std::abs(world.joint_state(id).torque.z), max_torque * (1 + Real(1e-6))) << i;
    if (i == 60) {
      EXPECT_NEAR(world.angular_velocity(wheel).z, 5, 0.05);
    }
  }
  EXPECT_NEAR(world.angular_velocity(wheel).z, 10, 0.1);
}

// A 2 m rod of 0.5 kg on a hinge to the world through its centre, its axis along gravity, driven
// at 60 rad/s (a radian a step at 60 Hz), and the same rod on a ball joint spun up to it: the
// anchors stay together for 10 s. Along the rod's own turning axes the point rows grew the float
// noise of the anchor error 1.26 times a step, and the rotor flew off after some 150 steps
// (docs/joints.md, "Two row blocks"); along the world's, which do not turn, nothing grows.
TEST(Joints, ARotorSpinningARadianAStepAboutItsAnchorStaysOnIt) {
  for (const bool hinged : {true, false}) {
    World world(no_sleep());
    BodySettings rod = box({0, 2, 0}, {1, Real(0.05), Real(0.05)});
    rod.mass = Real(0.5);
    if (!hinged) rod.angular_velocity = {0, 60, 0};
    const BodyId id = world.create_body(rod);
    JointSettings joint =
        joint_of(hinged ? JointType::hinge : JointType::ball, id, {}, {0, 2, 0}, Vec3::unit_y());
    if (hinged) joint.motor = Motor{60, Real(1e6)};
    world.create_joint(joint);
    for (int i = 0; i < 600; ++i) {
      world.step(Real(1.0 / 60));
      ASSERT_LT(world.last_step_stats().max_joint_error, Real(1e-4)) << "step " << i;
    }
    EXPECT_NEAR(std::abs(world.angular_velocity(id).y), 60, 0.1);
  }
}

// A wheel driven at 60 rad/s (a radian a step) on a hinge to a free chassis stays on its axle when
// it is the hinge's body_b: the point rows go along the chassis's axes, which barely turn. (As
// body_a its turning axes would grow the anchor error 1.3 times a step: docs/joints.md.)
TEST(Joints, AWheelSpinningOnAFreeChassisAsBodyBStaysOnItsAxle) {
  WorldSettings settings = no_sleep();
  settings.gravity = Vec3::zero();
  World world(settings);
  const BodyId chassis = world.create_body(box({0, 2, 0}, {1, Real(0.2), Real(0.5)}, 10));
  const BodyId wheel =
      world.create_body(box({0, Real(2.5), 0}, {1, Real(0.05), Real(0.05)}, Real(0.5)));
  JointSettings axle =
      joint_of(JointType::hinge, chassis, wheel, {0, Real(2.5), 0}, Vec3::unit_y());
  axle.motor = Motor{60, Real(1e6)};
  world.create_joint(axle);
  for (int i = 0; i < 600; ++i) {
    world.step(Real(1.0 / 60));
    ASSERT_LT(world.last_step_stats().max_joint_error, Real(1e-5)) << "step " << i;
  }
  const Real relative = world.angular_velocity(wheel).y - world.angular_velocity(chassis).y;
  EXPECT_NEAR(relative, 60, 0.1);
  // No torque reaches the pair from outside: their angular momentum about y stays zero, so the
  // chassis turns back against the wheel by the ratio of their inertias.
  const Real wheel_inertia = Real(0.5) * (1 + Real(0.0025)) / 3;
  const Real chassis_inertia = 10 * (1 + Real(0.25)) / 3;
  EXPECT_NEAR(wheel_inertia * world.angular_velocity(wheel).y +
                  chassis_inertia * world.angular_velocity(chassis).y,
              0, 1e-3);
}

TEST(Joints, HingeMotorStallsAtItsMaxTorqueUnderAHeavierLoad) {
  // An arm of 1 kg with its centre 0.5 m out needs m g 0.5 cos(theta) = 4.9 cos(theta) N m; a
  // motor of 2 N m cannot lift it level, so it sinks (damped) to where cos(theta) = 2 / 4.9 and
  // holds there, stalled, pushing with exactly its max torque.
  World world(no_sleep());
  BodySettings arm_settings = box({Real(0.5), 0, 0}, {Real(0.5), Real(0.05), Real(0.05)});
  // Angular damping only: linear damping scales the velocity gravity just gave, which lightens a
  // resting load by 1 / (1 + c dt) (measured: it rests at -1.128 rad with c = 3 on both).
  arm_settings.angular_damping = 12;
  const BodyId arm = world.create_body(arm_settings);
  JointSettings hinge = joint_of(JointType::hinge, base(world), arm, {0, 0, 0}, Vec3::unit_z());
  const Real max_torque = 2;
  hinge.motor = Motor{1, max_torque};
  const JointId id = world.create_joint(hinge);
  // The joint's torque about a's anchor is the motor's plus the moment of its point force, which
  // acts at b's anchor: at most the anchors' distance (last step's error) times the force.
  Real lever = 0;
  for (int i = 1; i <= 900; ++i) {
    world.step(Real(1.0 / 60));
    const JointState& state = world.joint_state(id);
    EXPECT_LE(std::abs(state.torque.z), max_torque * (1 + Real(1e-6)) + lever * length(state.force))
        << i;
    lever = state.error;
  }
  EXPECT_NEAR(std::abs(world.joint_state(id).torque.z), max_torque, 0.01 * max_torque);
  EXPECT_NEAR(angle_about_z(world.orientation(arm)), -std::acos(max_torque / (k_g * Real(0.5))),
              0.01);
}

// Pushes a box of 1 kg on a level slider along x (with a force off the axis and a torque, which
// the slider must hold) for 2 s; returns how far its centre left the axis, m, and how far it
// turned, rad, after checking the slide against x = a dt^2 n (n + 1) / 2 (semi-implicit Euler).
std::pair<Real, Real> slider_drift(JointSettings slider) {
  World world(rigid());
  const Vec3 start{0, 1, 0};
  const BodyId block = world.create_body(box(start, {Real(0.2), Real(0.1), Real(0.1)}));
  slider.body_a = base(world);
  slider.body_b = block;
  slider.anchor = start;
  world.create_joint(slider);
  const int steps = 120;
  for (int i = 0; i < steps; ++i) {
    world.apply_force_at(block, {2, 0, 1}, start + Vec3{0, Real(0.3), 0});
    world.step(Real(1.0 / 60));
  }
  const Real dt = Real(1.0 / 60);
  EXPECT_NEAR(world.position(block).x, 2 * dt * dt * steps * (steps + 1) / 2, 1e-3);
  return {off_axis(world.position(block) - start, Vec3::unit_x()),
          length(to_rotation_vector(world.orientation(block)))};
}

TEST(Joints, PrismaticKeepsABoxOnItsAxis) {
  const auto [off, turn] = slider_drift(joint_of(JointType::prismatic, {}, {}, {}));
  EXPECT_LT(off, Real(1e-3));
  EXPECT_LT(turn, Real(1e-3));
}

// A box of 2 kg slides down a frictionless rail at 30 degrees, the box body a and the world b,
// for 4 s at 240 Hz under a solver whose joint rows yield a little (block): it slides as the
// closed form says and neither turns nor leaves the rail, on a prismatic joint and on a six_dof
// with its slide free. Along the box's axes the rows acted at the world's anchor, 39 m from the
// box by the end, and the rotation rows yielded to the torque they had to cancel: 1.6e-2 rad and
// 0.61 m off the rail.
TEST(Joints, ABoxSlidingFarAlongARailOnTheWorldStaysOnIt) {
  const Real dt = Real(1.0 / 240), angle = k_pi / 6;
  const Vec3 rail{std::cos(angle), std::sin(angle), 0};
  const Vec3 anchor{Real(0.1), Real(0.05), 0};
  JointSettings six_dof = joint_of(JointType::six_dof, {}, {}, anchor);
  six_dof.frame = Quat::from_axis_angle(Vec3::unit_z(), angle);
  six_dof.linear[0].mode = AxisMotion::Mode::free;
  for (JointSettings joint : {joint_of(JointType::prismatic, {}, {}, anchor, rail), six_dof}) {
    WorldSettings settings = no_sleep(dt);
    settings.solver.type = SolverType::block;
    World world(settings);
    joint.body_a = world.create_body(box({0, 0, 0}, {Real(0.2), Real(0.1), Real(0.1)}, 2));
    world.create_joint(joint);
    const int steps = 960;
    for (int i = 0; i < steps; ++i)
      world.step(dt);
    const Vec3 moved = world.position(joint.body_a);
    const Real a = -k_g * std::sin(angle);
    const char* type = joint_type_name(joint.type);
    EXPECT_NEAR(dot(moved, rail), a * dt * dt * steps * (steps + 1) / 2, 1e-3) << type;
    EXPECT_LT(off_axis(moved, rail), Real(1e-3)) << type;
    EXPECT_LT(length(to_rotation_vector(world.orientation(joint.body_a))), Real(1e-4)) << type;
  }
}

TEST(Joints, PrismaticLimitsHoldAPushedBox) {
  World world(no_sleep());
  const BodyId block = world.create_body(box({0, 0, 0}, {Real(0.2), Real(0.1), Real(0.1)}));
  JointSettings slider = joint_of(JointType::prismatic, base(world), block, {0, 0, 0});
  slider.limits = Range{Real(-0.2), Real(0.5)};
  world.create_joint(slider);
  Real highest = 0, lowest = 0;
  for (int i = 0; i < 360; ++i) {
    world.apply_force(block, {i < 180 ? Real(5) : Real(-5), 0, 0});
    world.step(Real(1.0 / 60));
    highest = std::max(highest, world.position(block).x);
    lowest = std::min(lowest, world.position(block).x);
  }
  EXPECT_LE(highest, Real(0.5 + 1e-3));
  EXPECT_GT(highest, Real(0.5 - 1e-3));
  EXPECT_GE(lowest, Real(-0.2 - 1e-3));
  EXPECT_LT(lowest, Real(-0.2 + 1e-3));
}

// A weightless box put 0.3 m past its slider's limit at 0.5 m: the limit pushes it back by
// Baumgarte's share of the overrun a step, and, as a contact's push-out (docs/solvers.md,
// "Relax"), leaves it no speed: before, the push-out's 3.6 m/s stayed in the box, and the
// push-outs' speed in a random chain's light links raised its energy 2.5-fold
// (RatioIslands.APassiveChainWithLightLinksUnderAHeavyLoadGainsNoEnergy).
TEST(Joints, ALimitsPushOutMovesTheBodyButLeavesItNoSpeed) {
  WorldSettings settings = no_sleep();
  settings.gravity = Vec3::zero();
  World world(settings);
  const BodyId block = world.create_body(box({0, 0, 0}, {Real(0.2), Real(0.1), Real(0.1)}));
  JointSettings slider = joint_of(JointType::prismatic, base(world), block, {0, 0, 0});
  slider.limits = Range{Real(-0.2), Real(0.5)};
  world.create_joint(slider);
  world.set_transform(block, {{Real(0.8), 0, 0}, Quat::identity()});
  const Real beta = settings.solver.baumgarte;
  Real overrun = Real(0.3);
  for (int i = 0; i < 5; ++i) {
    world.step(Real(1.0 / 60));
    overrun -= beta * overrun;
    EXPECT_NEAR(world.position(block).x, Real(0.5) + overrun, 1e-4) << "step " << i;
    EXPECT_LT(length(world.linear_velocity(block)), Real(1e-3)) << "step " << i;
  }
}

// A hinge's arm set a radian past its limit: pushed back as the prismatic's box above, but at no
// more than max_angular_push_speed, as a contact's push-out is capped (max_push_speed). Uncapped, a
// twist coming back from a six_dof's swing of half a turn, where it was undefined and read up
// to 2.8 rad past its limit, was pushed back at 14 rad/s (the joint below). The relax solve takes
// the push's own speed away, but a turn about the anchor integrated in a straight line leaves the
// arm's centre off its circle (r theta^2 / 2), which the point rows' bias corrects and the relax
// keeps: turned 0.2 rad a step, uncapped, the arm was left turning at 0.21 rad/s; 0.05 rad a step,
// at 0.045.
TEST(Joints, AnAngularLimitPassedFarIsPushedBackAtMostAtThePushSpeed) {
  const WorldSettings settings = weightless();
  World world(settings);
  const BodyId arm = world.create_body(box({1, 0, 0}, {Real(0.5), Real(0.1), Real(0.1)}));
  JointSettings hinge = joint_of(JointType::hinge, base(world), arm, {0, 0, 0}, Vec3::unit_z());
  hinge.limits = Range{Real(-0.2), Real(0.5)};
  world.create_joint(hinge);
  Real overrun = 1;
  const Quat turned = Quat::from_axis_angle(Vec3::unit_z(), Real(0.5) + overrun);
  world.set_transform(arm, {rotate(turned, Vec3{1, 0, 0}), turned});
  const Real beta = settings.solver.baumgarte, dt = settings.timestep;
  for (int i = 0; i < 30; ++i) {
    world.step(dt);
    overrun -= std::min(beta * overrun, settings.solver.max_angular_push_speed * dt);
    EXPECT_NEAR(angle_about_z(world.orientation(arm)), Real(0.5) + overrun, 2e-3) << "step " << i;
  }
  EXPECT_LT(length(world.angular_velocity(arm)), Real(0.05));
}

// b's joint frame against a's, with w >= 0: x and w hold the twist, sqrt(x^2 + w^2) is
// cos(swing / 2).
Quat joint_relative(const JointState& state) {
  const Quat relative = conjugate(state.frame_a) * state.frame_b;
  return relative.w < 0 ? relative * Real(-1) : relative;
}

// cos(swing / 2) of the joint's frames: 0 at a swing of half a turn.
double half_swing_cos(const Quat& relative) {
  return std::sqrt(double(relative.x * relative.x + relative.w * relative.w));
}

// What a joint scene of tests/data did in 600 steps under a solver: its energy (kinetic and in
// gravity) at the start and at its most, how near its first joint came to a swing of half a turn
// (half_swing_cos), the largest twist from step `held_from` on wherever the swing was less than
// 120 degrees, and the lowest reading of the swing's z part (docs/joints.md, "Swing-twist
// angles").
struct SceneRun {
  double start = 0, most = 0, closest = 1, twist_held = 0, lowest_swing_z = 0;
};
SceneRun run_joint_scene(const std::string& file, SolverType type, int held_from = 0) {
  Scene scene = load_scene(std::string(IMPULSE_TEST_DATA_DIR) + "/" + file);
  scene.settings.solver.type = type;
  World world = build_world(scene);
  SceneRun run;
  run.start = run.most = world.kinetic_energy() + world.potential_energy();
  const JointId joint = world.joints().front();
  for (int i = 0; i < 600; ++i) {
    world.step(world.settings().timestep);
    run.most = std::max(run.most, world.kinetic_energy() + world.potential_energy());
    const Quat q = joint_relative(world.joint_state(joint));
    const double n = half_swing_cos(q), s = std::hypot(double(q.y), double(q.z));
    run.closest = std::min(run.closest, n);
    if (i >= held_from && n > 0.5)
      run.twist_held = std::max(run.twist_held, 2 * std::abs(std::atan2(double(q.x), double(q.w))));
    if (s > 0) {
      const double part = (double(q.w) * q.z + double(q.x) * q.y) / n;
      run.lowest_swing_z = std::min(run.lowest_swing_z, 2 * std::atan2(s, n) / s * part);
    }
  }
  return run;
}

// A 20 kg capsule on a six_dof to the world whose twist is held to [-0.04, 0.002] rad and whose
// swing is free (scripts/sweep.py pairs, seed 9289): it swings through half a turn, where the twist
// is undefined and reads as anything, and its limit pushed it back from up to 2.8 rad at
// Baumgarte's 14 rad/s: the energy rose from 441 J to 2134 J. Its push-out capped (above), the
// energy never rises.
TEST(Joints, ASixDofSwungThroughItsTwistsSingularityGainsNoEnergy) {
  const SceneRun run = run_joint_scene("six_dof_twist_singularity.json", SolverType::pgs);
  EXPECT_LT(run.closest, 0.05);  // within 6 degrees of a swing of half a turn
  EXPECT_LE(run.most, run.start * (1 + 1e-6));
}

// A weightless 17.6 kg capsule on a six_dof to the world 5.3 m from its centre, its linear axes and
// twist fixed, both swings free, started spinning (found by scripts/sweep.py springs, seed 1184):
// its swing passes the half turn, where the twist is undefined and its reading jumps, and pulled
// back from there by Baumgarte the capsule rose from 41 J to 17 kJ under pgs (3.1 kJ under
// pivoting). Held as the chord 2 sin(twist / 2) cos(swing / 2), continuous there: no solver adds
// energy, and the twist is held once the swing is back short of the half turn.
TEST(Joints, ASixDofsFixedTwistWithFreeSwingsGainsNoEnergyThroughTheHalfTurn) {
  for (const SolverType type : testing::k_all_solvers) {
    const SceneRun run = run_joint_scene("six_dof_twist_fixed_swings_free.json", type);
    EXPECT_LT(run.closest, 0.05) << solver_type_name(type);  // within 6 degrees of the half turn
    EXPECT_LE(run.most, run.start * (1 + 1e-6)) << solver_type_name(type);
    EXPECT_LT(run.twist_held, 0.05) << solver_type_name(type);
  }
}

// A 1 kg box slid at 2 m/s into its limit at 0.5 m, the joint's anchor 0, 2 or 5 m above it: on
// the world (box a), on a static or a kinematic base (box b), and as a six_dof locked in rotation
// with its slide limited. The rows acted at the anchor, their lever turned the box and the
// rotation rows undid it, and ten PGS iterations left the two fighting: 2 m off, the box bounced
// between its limits, overran them by up to 1.05 m over 10 s and left its rail (0.16 m, turned
// 0.54 rad); 5 m off, 4.8 m past, 1.3 m off the rail and 1.1 rad. Acting at the box's centre
// they cannot turn it.
TEST(Joints, APrismaticFarFromItsAnchorStopsAtItsLimit) {
  for (const Real offset : {Real(0), Real(2), Real(5)}) {
    for (int kind = 0; kind < 4; ++kind) {
      World world(no_sleep());
      BodySettings settings = box({0, 1, 0}, {Real(0.2), Real(0.2), Real(0.2)});
      settings.linear_velocity = {2, 0, 0};
      const BodyId block = world.create_body(settings);
      JointSettings joint = joint_of(JointType::prismatic, block, {}, {0, 1 + offset, 0});
      joint.limits = Range{Real(-0.5), Real(0.5)};
      if (kind == 1 || kind == 2) {
        const BodyType type = kind == 1 ? BodyType::static_body : BodyType::kinematic_body;
        joint.body_a = world.create_body(body_of(Sphere{Real(0.05)}, {}, type));
        joint.body_b = block;
      } else if (kind == 3) {
        joint.type = JointType::six_dof;
        joint.linear[0] = {AxisMotion::Mode::limited, {Real(-0.5), Real(0.5)}, {}};
      }
      world.create_joint(joint);
      Real farthest = 0, turned = 0, off_rail = 0;
      for (int i = 0; i < 600; ++i) {
        world.step(Real(1.0 / 60));
        const Vec3 p = world.position(block);
        farthest = std::max(farthest, std::abs(p.x));
        off_rail = std::max(off_rail, std::abs(p.y - 1) + std::abs(p.z));
        turned = std::max(turned, length(to_rotation_vector(world.orientation(block))));
      }
      const std::string where =
          "offset " + std::to_string(offset) + ", kind " + std::to_string(kind);
      EXPECT_LT(farthest, Real(0.5 + 1e-3)) << where;
      EXPECT_NEAR(world.position(block).x, Real(0.5), Real(1e-3)) << where;
      EXPECT_LT(off_rail, Real(1e-3)) << where;
      EXPECT_LT(turned, Real(1e-3)) << where;
    }
  }
}

// Two free bodies on a prismatic joint, turning together as it makes them: where the anchor lies
// changes nothing, since every point of a body that keeps the other's orientation slides alike.
// The rows act at the centres weighted by how easily each turns, so the anchor 2 m off or inside
// the base gives the same motion as on the slider's centre (at the anchor, 3 to 30 cm apart after
// 5 s, the joint's error up to 3.7 mm).
TEST(Joints, TwoFreeBodiesOnAPrismaticMoveAsTheirAnchorDoesNotMatter) {
  const auto run = [](Real offset) {
    World world(weightless());
    const BodyId base = world.create_body(box({0, 0, 0}, {1, Real(0.1), Real(0.2)}, 10));
    BodySettings settings = box({0, 1, 0}, {Real(0.2), Real(0.2), Real(0.2)});
    settings.linear_velocity = {2, 0, 0};
    const BodyId slider = world.create_body(settings);
    JointSettings joint = joint_of(JointType::prismatic, base, slider, {0, 1 + offset, 0});
    joint.limits = Range{Real(-0.5), Real(0.5)};
    const JointId id = world.create_joint(joint);
    Real worst = 0;
    for (int i = 0; i < 300; ++i) {
      world.step(Real(1.0 / 60));
      worst = std::max(worst, world.joint_state(id).error);
    }
    EXPECT_LT(worst, Real(1e-3)) << "offset " << offset;
    return std::pair(world.position(slider) - world.position(base), world.orientation(base));
  };
  const auto [centred, turn] = run(0);
  for (const Real offset : {Real(2), Real(-0.9)}) {
    const auto [moved, turned] = run(offset);
    testing::expect_vec_near(moved, centred, Real(1e-4));
    EXPECT_NEAR(std::abs(dot(turned, turn)), 1, Real(1e-6)) << "offset " << offset;
  }
}

TEST(Joints, PrismaticMotorReachesItsSpeedWithItsMaxForce) {
  // 10 N on 1 kg: 10 m/s^2, so 1 m/s after 0.1 s, and 0.5 m/s after 3 steps of 1/60 s.
  World world(no_sleep());
  const BodyId block = world.create_body(box({0, 0, 0}, {Real(0.2), Real(0.1), Real(0.1)}));
  JointSettings slider = joint_of(JointType::prismatic, base(world), block, {0, 0, 0});
  const Real max_force = 10;
  slider.motor = Motor{1, max_force};
  const JointId id = world.create_joint(slider);
  for (int i = 1; i <= 60; ++i) {
    world.step(Real(1.0 / 60));
    EXPECT_LE(std::abs(world.joint_state(id).force.x), max_force * (1 + Real(1e-6))) << i;
    if (i == 3) {
      EXPECT_NEAR(world.linear_velocity(block).x, 0.5, 0.005);
    }
  }
  EXPECT_NEAR(world.linear_velocity(block).x, 1, 0.01);
}

// Steps a world with a breakable joint under a load growing at `rate` per second (apply does
// the pushing) until it breaks; returns the load in the step it broke, after checking the event.
template <class Apply>
Real breaking_load(World& world, JointId id, Real rate, Apply apply) {
  const Real dt = Real(1.0 / 60);
  for (int i = 1; i < 100000; ++i) {
    const Real load = rate * Real(i) * dt;
    apply(load);
    world.step(dt);
    if (world.joint_events().empty()) {
      EXPECT_FALSE(world.joint_state(id).broken);
      continue;
    }
    EXPECT_EQ(world.joint_events().size(), 1u);
    EXPECT_EQ(world.joint_events().front().joint, id);
    EXPECT_TRUE(world.joint_state(id).broken);
    return load;
  }
  ADD_FAILURE() << "never broke";
  return 0;
}

TEST(Joints, BallJointBreaksOnceItsLoadPassesBreakForceThenTheBodyMovesFreely) {
  World world(weightless());
  const Real mass = 2, break_force = 100;
  const BodyId body = world.create_body(ball({0, 0, 0}, k_bob_radius, mass));
  JointSettings joint = joint_of(JointType::ball, body, {}, {0, 0, 0});
  joint.break_force = break_force;
  const JointId id = world.create_joint(joint);
  const Real load = breaking_load(world, id, 20, [&](Real f) {
    world.apply_force(body, {f, 0, 0});
  });
  EXPECT_GE(load, break_force);
  EXPECT_LE(load, Real(1.05) * break_force);
  // Broken, it no longer holds: the same force now accelerates the body at F / m.
  const Vec3 v0 = world.linear_velocity(body);
  world.apply_force(body, {break_force, 0, 0});
  world.step(Real(1.0 / 60));
  EXPECT_TRUE(world.joint_events().empty());
  EXPECT_TRUE(world.joint_state(id).broken);
  EXPECT_NEAR((world.linear_velocity(body).x - v0.x) * 60, break_force / mass,
              0.01 * break_force / mass);
}

TEST(Joints, FixedJointBreaksOnceItsTorquePassesBreakTorqueThenTheBodyTurnsFreely) {
  // A sphere of 2 kg and radius 0.5 m: I = 0.2 kg m^2, so a free torque T turns it at T / I.
  World world(weightless());
  const Real break_torque = 10, inertia = Real(0.2);
  const BodyId body = world.create_body(ball({0, 0, 0}, Real(0.5), 2));
  JointSettings joint = joint_of(JointType::fixed, body, {}, {0, 0, 0});
  joint.break_torque = break_torque;
  const JointId id = world.create_joint(joint);
  const Real load = breaking_load(world, id, 2, [&](Real t) {
    world.apply_torque(body, {0, 0, t});
  });
  EXPECT_GE(load, break_torque);
  EXPECT_LE(load, Real(1.05) * break_torque);
  const Vec3 w0 = world.angular_velocity(body);
  world.apply_torque(body, {0, 0, break_torque});
  world.step(Real(1.0 / 60));
  EXPECT_NEAR((world.angular_velocity(body).z - w0.z) * 60, break_torque / inertia,
              0.01 * break_torque / inertia);
}

// A ball on a distance joint of length 1 m from the origin, released at the given position with
// the given velocity.
struct Tether {
  World world{no_sleep()};
  BodyId bob;
  Tether(const JointSettings& settings, const Vec3& velocity, int position_iterations = 0) {
    WorldSettings world_settings = no_sleep();
    world_settings.solver.position_iterations = position_iterations;
    world.set_settings(world_settings);
    BodySettings s = ball({0, -1, 0});
    s.linear_velocity = velocity;
    bob = world.create_body(s);
    JointSettings joint = settings;
    joint.type = JointType::distance;
    joint.body_a = bob;
    joint.anchor_a = {0, -1, 0};
    joint.anchor_b = {0, 0, 0};
    world.create_joint(joint);
  }
  Real length() const { return impulse::length(world.position(bob)); }
};

TEST(Joints, DistanceRodHoldsItsLengthOnASwingingPendulum) {
  // Baumgarte lets a rod stretch by about v^2 dt^2 / (2 L beta) (11 mm at 4 m/s, measured 10 mm):
  // each step's straight move leaves the circle by v^2 dt^2 / (2 L) and beta of it is fed back.
  // Projection holds it.
  Tether rod({}, {5, 0, 0}, 2);  // swings past 90 degrees
  Real worst = 0, highest = -1;
  for (int i = 0; i < 300; ++i) {
    rod.world.step(Real(1.0 / 60));
    worst = std::max(worst, std::abs(rod.length() - 1));
    highest = std::max(highest, rod.world.position(rod.bob).y);
  }
  EXPECT_GT(highest, 0);
  EXPECT_LT(worst, Real(1e-3));
}

TEST(Joints, DistanceRopeGoesSlackWhenPushedTogether) {
  // Thrown up toward its anchor the bob flies free: y = y0 + v n dt - g dt^2 n (n + 1) / 2.
  JointSettings rope;
  rope.max_distance = 1;
  Tether tether(rope, {0, 3, 0});
  const Real dt = Real(1.0 / 60);
  for (int n = 1; n <= 18; ++n) {
    tether.world.step(dt);
    EXPECT_NEAR(tether.world.position(tether.bob).y,
                -1 + 3 * n * dt - k_g * dt * dt * n * (n + 1) / 2, 1e-5)
        << n;
  }
  EXPECT_LT(tether.length(), Real(0.6));
}

TEST(Joints, DistanceRopeHoldsAtItsMaxLength) {
  JointSettings rope;
  rope.max_distance = 1;
  Tether tether(rope, {3, 0, 0}, 2);  // projected, as the rod
  Real longest = 0;
  for (int i = 0; i < 300; ++i) {
    tether.world.step(Real(1.0 / 60));
    longest = std::max(longest, tether.length());
  }
  EXPECT_LE(longest, Real(1 + 1e-3));
}

// The period of a mass of 1 kg on a soft distance joint (damping 0) stretched by 0.2 m and let go,
// gravity off, between upward zero crossings of the stretch.
Real spring_period(Real frequency, Real dt) {
  World world(weightless(dt));
  const BodyId bob = world.create_body(ball({1, 0, 0}));
  JointSettings joint;
  joint.type = JointType::distance;
  joint.body_a = bob;
  joint.anchor_a = {1, 0, 0};
  joint.spring = Spring{frequency, 0};
  world.create_joint(joint);
  world.set_transform(bob, {{Real(1.2), 0, 0}, {}});
  std::vector<double> crossings;
  Real last = Real(0.2);
  for (int i = 1; i < int(10 / dt) && crossings.size() < 4; ++i) {
    world.step(dt);
    const Real stretch = world.position(bob).x - 1;
    if (last < 0 && stretch >= 0)
      crossings.push_back((i - 1) * dt + dt * (-last) / (stretch - last));
    last = stretch;
  }
  return Real((crossings.back() - crossings.front()) / double(crossings.size() - 1));
}

TEST(Joints, DistanceSpringOscillatesAtItsFrequency) {
  // The soft row is implicit Euler of the spring: its discrete frequency is atan(omega dt) / dt,
  // 0.02% below omega at dt 1/240 (0.4% at 1/60), and it loses energy though damping is 0.
  const Real f = 1;
  EXPECT_NEAR(spring_period(f, Real(1.0 / 240)), 1 / f, 0.02 / f);
  const Real dt = Real(1.0 / 240), omega = 2 * k_pi * f;
  EXPECT_NEAR(spring_period(f, dt), 2 * k_pi * dt / std::atan(omega * dt), 1e-3);
}

// Two boxes welded end to end hang from a nail at the first's far end, released level; returns
// the second's motion against the first after 2 s: m of its centre, rad of its orientation.
// Projected: with Baumgarte the weld lags by about 9 mm while swinging (as the rod, below).
std::pair<Real, Real> weld_drift(JointSettings weld) {
  WorldSettings settings = no_sleep();
  settings.solver.position_iterations = 2;
  World world(settings);
  const Vec3 half{Real(0.5), Real(0.1), Real(0.1)};
  const BodyId first = world.create_body(box({Real(0.5), 0, 0}, half));
  const BodyId second = world.create_body(box({Real(1.5), 0, 0}, half));
  world.create_joint(joint_of(JointType::nail, first, {}, {0, 0, 0}));
  weld.body_a = first;
  weld.body_b = second;
  weld.anchor = {1, 0, 0};
  world.create_joint(weld);
  for (int i = 0; i < 120; ++i)
    world.step(Real(1.0 / 60));
  const Quat q = world.orientation(first);
  const Vec3 offset = inverse_rotate(q, world.position(second) - world.position(first));
  return {length(offset - Vec3{1, 0, 0}),
          length(to_rotation_vector(conjugate(q) * world.orientation(second)))};
}

TEST(Joints, FixedJointWeldsTwoBodiesIntoOne) {
  const auto [moved, turned] = weld_drift(joint_of(JointType::fixed, {}, {}, {}));
  EXPECT_LT(moved, Real(1e-3));
  EXPECT_LT(turned, Real(1e-3));
}

// A 1 kg beam welded onto a wall and a beam of outer_mass welded onto its end, at rest under
// gravity, stepped for `seconds` at 240 Hz with the given solver; returns how far the outer
// beam's tip has moved, m, and the kinetic energy left, J.
std::pair<Real, Real> welded_beams(SolverType type, Real outer_mass, Real seconds) {
  WorldSettings settings = no_sleep(Real(1.0 / 240));
  settings.solver.type = type;
  World world(settings);
  const BodyId wall = world.create_body(
      body_of(Box{{Real(0.1), Real(0.5), Real(0.5)}}, {Real(-0.1), 0, 0}, BodyType::static_body));
  const Vec3 half{Real(0.25), Real(0.05), Real(0.05)};
  const BodyId inner = world.create_body(box({Real(0.25), 0, 0}, half));
  const BodyId outer = world.create_body(box({Real(0.75), 0, 0}, half, outer_mass));
  world.create_joint(joint_of(JointType::fixed, wall, inner, {0, 0, 0}));
  world.create_joint(joint_of(JointType::fixed, inner, outer, {Real(0.5), 0, 0}));
  for (int i = 0; i < int(std::lround(seconds / settings.timestep)); ++i)
    world.step(settings.timestep);
  const Vec3 tip = world.position(outer) + rotate(world.orientation(outer), {Real(0.25), 0, 0});
  return {length(tip - Vec3{1, 0, 0}), Real(world.kinetic_energy())};
}

// Two 1 kg beams welded onto a wall for one second: every iterative solver holds them still, the
// softened ones sagging by their joint softness's yield (0.5 mm at the tip). Projected Jacobi
// that relaxed each row by the rows on its bodies (a sixth for a weld's) flung them 3.6 km within
// the second: Baumgarte's bias, warm-started, pumped the joints' slowly converging angular rows.
TEST(Joints, EveryIterativeSolverHoldsTwoBeamsWeldedToAWall) {
  for (const SolverType type :
       {SolverType::pgs, SolverType::block, SolverType::global_sparse, SolverType::jacobi}) {
    const auto [moved, energy] = welded_beams(type, 1, 1);
    EXPECT_LT(moved, Real(1e-3)) << solver_type_name(type);
    EXPECT_LT(energy, Real(1e-5)) << solver_type_name(type);
  }
}

// A 1 kg box welded to a post 3 m from its centre, under gravity, for 10 s: it hangs there under
// every iterative solver. Visited one by one, the weld's rows (the point's lever 3 m long) took
// back most of each other's impulses: jacobi and the global solvers threw the box about (up to
// 4.9 m off the post, 2500 J after 10 s). M-orthogonal to each other (joint_row_decoupling.h) they
// hold it; the softened solvers sag by their joint softness's yield (0.015 rad).
// A world under `type` (sleeping off) with `hung` welded to a static post at the origin.
struct WeldedToAPost {
  World world;
  BodyId hung;
  JointId weld;
};
WeldedToAPost welded_to_a_post(SolverType type, const BodySettings& hung) {
  WorldSettings settings = no_sleep();
  settings.solver.type = type;
  WeldedToAPost welded{World(settings), {}, {}};
  const BodyId post =
      welded.world.create_body(body_of(Sphere{Real(0.05)}, {}, BodyType::static_body));
  welded.hung = welded.world.create_body(hung);
  welded.weld = welded.world.create_joint(joint_of(JointType::fixed, welded.hung, post, {0, 0, 0}));
  return welded;
}

constexpr SolverType k_iterative_solvers[] = {SolverType::pgs, SolverType::jacobi,
                                              SolverType::global_sparse, SolverType::global_dense,
                                              SolverType::block};

TEST(Joints, ABoxWeldedFarFromItsAnchorHangsStillUnderEveryIterativeSolver) {
  for (const SolverType type : k_iterative_solvers) {
    auto [world, hung, id] =
        welded_to_a_post(type, box({3, 0, 0}, {Real(0.2), Real(0.2), Real(0.2)}));
    Real worst = 0, worst_angle = 0;
    for (int i = 0; i < 600; ++i) {
      world.step(world.settings().timestep);
      worst = std::max(worst, world.joint_state(id).error);
      worst_angle = std::max(worst_angle, world.joint_state(id).angular_error);
    }
    EXPECT_LT(worst, Real(1e-3)) << solver_type_name(type);
    EXPECT_LT(worst_angle, Real(0.02)) << solver_type_name(type);
    EXPECT_LT(world.kinetic_energy(), 1e-6) << solver_type_name(type);
  }
}

// A small sphere (3 kg, 7 cm: its inertia 5.9e-3 kg m^2) welded to a post 6 m away and thrown
// at 3 m/s, for 10 s: it stops and hangs where it was welded under every iterative solver.
// Found by the random sweep (pairs seed 5115): block let it swing, gaining 160 J. Its weld's
// linear rows turn it about a 6 m lever, so once they are made M-orthogonal, its angular rows'
// J M^-1 J^T is 3e-2 against 164 as written, while the joint softness they carry (1% of the row
// as written, and of the linear rows' through the transformation) came to 6.4: 200 times their
// own stiffness, the weld free to turn (jacobi and the global solvers left it 1.9 m off, still
// moving). The decoupled rows' softness is now at most k_decoupled_softness_factor joint
// softnesses of their diagonal (joint_row_decoupling.h).
TEST(Joints, ASmallSphereWeldedFarFromItsPostStopsAndHangsUnderEveryIterativeSolver) {
  BodySettings ball = body_of(Sphere{Real(0.07)}, {Real(4.8), Real(-3.6), 0});
  ball.mass = 3;
  ball.linear_velocity = {Real(1.8), Real(2.4), 0};
  for (const SolverType type : k_iterative_solvers) {
    auto [world, hung, id] = welded_to_a_post(type, ball);
    for (int i = 0; i < 600; ++i)
      world.step(world.settings().timestep);
    EXPECT_LT(world.joint_state(id).error, Real(0.01)) << solver_type_name(type);
    EXPECT_LT(world.kinetic_energy(), 1e-6) << solver_type_name(type);
    EXPECT_LT(length(world.position(hung) - Vec3{Real(4.8), Real(-3.6), 0}), Real(0.05))
        << solver_type_name(type);
  }
}

// The outer beam 100 times the inner one for 10 s, the joints' geometric stiffness on (the
// default): the solvers that hold it at ten iterations settle, the softened ones 3 cm down (their
// joint softness's yield under the heavy beam). The stiffness of a load across its lever (a
// cantilever's shear, which turns with the body but stiffens nothing) once added inertia as a
// load along it would: the global solvers then gained 7.9 kJ and block kept 2.8 J moving,
// where without the stiffness they settled (jacobi parts this weld at ten iterations either way:
// docs/solvers.md).
TEST(Joints, AWeldCarryingAHundredTimesItsMassOnAWallStaysStill) {
  for (const SolverType type : {SolverType::pgs, SolverType::block, SolverType::global_sparse}) {
    const auto [moved, energy] = welded_beams(type, 100, 10);
    EXPECT_LT(moved, Real(0.05)) << solver_type_name(type);
    EXPECT_LT(energy, Real(1e-2)) << solver_type_name(type);
    RecordProperty(std::string("tip_moved_m_") + solver_type_name(type), std::to_string(moved));
  }
}

// The solvers whose solve leaves joints' equality rows exact (pgs's equality block, pivoting's
// whole MLCP) need no joint softness, so the weld carrying a hundred times its mass does not sag:
// pivoting, softened as the iterative solvers are, let it down 3 cm, and a weld of five beams by
// 22 cm.
TEST(Joints, TheExactSolversHoldAHeavyWeldWithoutSag) {
  for (const SolverType type : {SolverType::pgs, SolverType::pivoting}) {
    const auto [moved, energy] = welded_beams(type, 100, 2);
    EXPECT_LT(moved, Real(1e-4)) << solver_type_name(type);
    EXPECT_LT(energy, Real(1e-6)) << solver_type_name(type);
  }
}

TEST(Joints, ConeTwistHoldsSwingAndTwistWhenDrivenHard) {
  // An arm of 1 m on a cone of 0.5 rad and a twist range of +-0.3 rad, gravity off, struck at
  // its tip and spun about its length.
  struct Drive {
    Vec3 tip_impulse, angular_impulse;
  };
  for (const Drive& drive :
       {Drive{{0, 0, 5}, {}}, Drive{{}, {Real(0.5), 0, 0}}, Drive{{0, 4, 4}, {Real(0.5), 0, 0}}}) {
    World world(weightless());
    const BodyId arm = world.create_body(box({Real(0.5), 0, 0}, {Real(0.5), Real(0.1), Real(0.1)}));
    JointSettings joint = joint_of(JointType::cone_twist, base(world), arm, {0, 0, 0});
    joint.swing_limit = Real(0.5);
    joint.twist_limits = {Real(-0.3), Real(0.3)};
    world.create_joint(joint);
    world.apply_impulse_at(arm, drive.tip_impulse, {1, 0, 0});
    world.apply_angular_impulse(arm, drive.angular_impulse);
    Real swing = 0, twist = 0;
    for (int i = 0; i < 120; ++i) {
      world.step(Real(1.0 / 60));
      swing = std::max(swing, swing_angle(world.orientation(arm)));
      twist = std::max(twist, std::abs(twist_angle(world.orientation(arm), 0)));
    }
    EXPECT_LE(swing, Real(0.5 + 0.02));
    EXPECT_LE(twist, Real(0.3 + 0.02));
    EXPECT_GT(std::max(swing - Real(0.5), twist - Real(0.3)), Real(-0.02));  // a limit was hit
  }
}

TEST(Joints, SixDofWithEveryAxisFixedIsAWeld) {
  const auto [moved, turned] = weld_drift(joint_of(JointType::six_dof, {}, {}, {}));
  EXPECT_LT(moved, Real(1e-3));
  EXPECT_LT(turned, Real(1e-3));
}

TEST(Joints, SixDofWithOneLinearAxisFreeIsASlider) {
  JointSettings slider = joint_of(JointType::six_dof, {}, {}, {});
  slider.linear[0].mode = AxisMotion::Mode::free;
  const auto [off, turn] = slider_drift(slider);
  EXPECT_LT(off, Real(1e-3));
  EXPECT_LT(turn, Real(1e-3));
}

// Two boxes on a six_dof at x = 0.25 whose angular axes are `angular`, weightless, each turning
// (b at `spin`, a at `spin_a`, 2 kg, or a static a); steps 10 s and returns the largest kinetic
// energy over the start's, the largest joint errors (m, rad) and b's position at the end.
struct SixDofRun {
  double energy_gain;
  Real error, angular_error;
  Vec3 end;
};
SixDofRun run_six_dof(const std::array<AxisMotion, 3>& angular, const Vec3& spin,
                      const std::optional<Vec3>& spin_a, std::optional<JointType> as = {}) {
  World world(weightless());
  BodySettings a = box({0, 0, 0}, {Real(0.3), Real(0.2), Real(0.1)}, 2);
  if (spin_a)
    a.angular_velocity = *spin_a;
  else
    a.type = BodyType::static_body;
  BodySettings b = box({Real(0.5), 0, 0}, {Real(0.1), Real(0.3), Real(0.2)});
  b.angular_velocity = spin;
  const BodyId body_a = world.create_body(a), body_b = world.create_body(b);
  JointSettings joint = joint_of(JointType::six_dof, body_a, body_b, {Real(0.25), 0, 0});
  joint.angular = angular;
  if (as) {  // the hinge about the one axis that turns
    joint.type = *as;
    for (std::size_t k = 0; k < 3; ++k)
      if (angular[k].mode != AxisMotion::Mode::fixed) joint.axis = Vec3::zero(), joint.axis[k] = 1;
  }
  const JointId id = world.create_joint(joint);
  const double start = world.kinetic_energy();
  SixDofRun run{0, 0, 0, {}};
  for (int i = 0; i < 600; ++i) {
    world.step(Real(1.0 / 60));
    run.energy_gain = std::max(run.energy_gain, world.kinetic_energy() / start);
    run.error = std::max(run.error, world.joint_state(id).error);
    run.angular_error = std::max(run.angular_error, world.joint_state(id).angular_error);
  }
  run.end = world.position(body_b);
  return run;
}

// A six_dof whose only turning axis is y or z is a hinge about it. Reckoned as a swing, that
// angle was undefined at half a turn: two free boxes spun about it gained 1800 (y) and 540 (z)
// times their energy in 10 s. With that axis as the twist's, they turn as on a hinge.
TEST(Joints, ASixDofTurningOnlyAboutYOrZIsAHingeAboutIt) {
  for (std::size_t k = 1; k <= 2; ++k) {
    std::array<AxisMotion, 3> angular{k_fixed, k_fixed, k_fixed};
    angular[k] = k_free;
    Vec3 spin{Real(0.5), Real(0.3), Real(0.3)}, spin_a{Real(0.2), Real(0.4), Real(0.4)};
    spin[k] = 4;
    spin_a[k] = -1;
    const SixDofRun six_dof = run_six_dof(angular, spin, spin_a);
    const SixDofRun hinge = run_six_dof(angular, spin, spin_a, JointType::hinge);
    EXPECT_LE(six_dof.energy_gain, 1.001) << k;
    EXPECT_LT(six_dof.error, Real(2e-3)) << k;
    EXPECT_LT(six_dof.angular_error, Real(0.01)) << k;
    testing::expect_vec_near(six_dof.end, hinge.end, Real(5e-3));  // 10 s of tumbling apart
  }
}

// A swing limited while the twist spins: the limit row's rate is the swing's exact one. Along a's
// axis, right only at no swing, it missed the part the twist adds, and the limit let the swing
// past by 0.2 rad (b on a static a) or 0.09 rad (two free boxes).
TEST(Joints, ASixDofSwingLimitHoldsWhileItsTwistSpins) {
  const AxisMotion limited{AxisMotion::Mode::limited, {Real(-0.5), Real(0.5)}, {}};
  const std::array<AxisMotion, 3> angular{k_free, limited, k_fixed};
  for (const auto& spin_a : {std::optional<Vec3>{}, std::optional<Vec3>{Vec3{1, Real(0.3), 0}}}) {
    const SixDofRun run = run_six_dof(angular, {5, Real(1.5), Real(0.2)}, spin_a);
    EXPECT_LE(run.energy_gain, 1.001) << spin_a.has_value();
    EXPECT_LT(run.angular_error, Real(0.01)) << spin_a.has_value();
    EXPECT_LT(run.error, Real(2e-3)) << spin_a.has_value();
  }
}

// Two free angular axes and the third, a swing part, fixed: the free swing may reach half a turn,
// where the swing's parts are undefined, and the fixed one's row let go there (0.75 and 0.28 rad,
// 5 and 1.1 times the energy). Held as b's x axis in a plane of a's, it holds through it.
TEST(Joints, ASixDofWithTwoFreeAngularAxesHoldsTheThird) {
  for (std::size_t fixed : {1, 2}) {
    std::array<AxisMotion, 3> angular{k_free, k_free, k_free};
    angular[fixed] = k_fixed;
    Vec3 spin{3, 2, 2};
    spin[fixed] = Real(0.4);
    const SixDofRun run = run_six_dof(angular, spin, Vec3{Real(0.3), Real(0.2), -1});
    EXPECT_LE(run.energy_gain, 1.001) << fixed;
    EXPECT_LT(run.angular_error, Real(0.01)) << fixed;
    EXPECT_LT(run.error, Real(2e-3)) << fixed;
  }
}

TEST(Joints, SixDofAngularLimitsBeyondNinetyDegreesHold) {
  // Each angle in turn limited to +-2 rad (the rest fixed), the body spun toward the limit about
  // that axis: twist for x, swing for y and z, as the swing-twist split measures them.
  for (int k = 0; k < 3; ++k) {
    World world(weightless());
    BodySettings s = box({0, 0, 0}, {Real(0.3), Real(0.2), Real(0.1)});
    Vec3 spin;
    spin[k] = 3;
    s.angular_velocity = spin;
    const BodyId body = world.create_body(s);
    JointSettings joint = joint_of(JointType::six_dof, base(world), body, {0, 0, 0});
    joint.angular[k] = {AxisMotion::Mode::limited, {-2, 2}, {}};
    world.create_joint(joint);
    Real highest = 0;
    for (int i = 0; i < 120; ++i) {
      world.step(Real(1.0 / 60));
      highest = std::max(highest, twist_angle(world.orientation(body), k));
    }
    EXPECT_LE(highest, Real(2 + 0.02)) << k;
    EXPECT_GT(highest, Real(2 - 0.02)) << k;
  }
}

// A box 1 m out on a six_dof to the world whose turn about z is limited to [-0.05, 1] rad by a
// critically damped spring of 1.1 Hz, released level: it sinks past the limit until the spring
// holds its weight, k (limit - theta) = m g L cos(theta), with k = m_eff omega^2 and m_eff the
// box's inertia about the joint, I_zz + m L^2 (the rest of the joint held: the spring turns the box
// about the joint, not about its centre). Sized by the free turn about the centre (I_zz, 38 times
// smaller) the spring gave way to -1.2 rad and still swung after 10 s.
TEST(Joints, ASoftAngularLimitFarFromTheCentreHoldsTheWeightItsSpringSays) {
  const Real arm = 1, half = Real(0.2), frequency = Real(1.1);
  World world(no_sleep());
  const BodyId body = world.create_body(box({arm, 0, 0}, {half, half, half}));
  JointSettings joint = joint_of(JointType::six_dof, {}, body, {0, 0, 0});
  joint.frame = Quat::from_axis_angle(Vec3::unit_y(), -k_pi / 2);  // its x axis the world's z
  // Its angles count from where it was made.
  const Real limit = Real(-0.05);
  joint.angular[0] = {AxisMotion::Mode::limited, {limit, 1}, Spring{frequency, 1}};
  world.create_joint(joint);
  for (int i = 0; i < 600; ++i) {
    world.step(Real(1.0 / 60));
  }
  const double omega = 2 * std::numbers::pi * double(frequency);
  const double stiffness = (8 * double(half * half) / 12 + double(arm * arm)) * omega * omega;
  double expected = 0;
  for (int i = 0; i < 50; ++i)
    expected = double(limit) - double(k_g * arm) * std::cos(expected) / stiffness;
  EXPECT_NEAR(angle_about_z(world.orientation(body)), expected, 0.02 * std::abs(expected));
  EXPECT_LT(length(world.angular_velocity(body)), Real(1e-3));
}

// A box spun at 3 rad/s about a six_dof's twist into an undamped 2 Hz soft limit 0.5 rad away: it
// goes on past the limit and the spring turns it back. Implicit Euler of m C'' = -k C shrinks the
// swing by 1 / sqrt(1 + (omega dt)^2) a step, so the box goes (3 / omega) of that over a quarter
// period past (0.20 rad) and leaves at 0.72 of its speed after half a period. As a rigid limit's
// speculative row, the soft limit stopped the box dead at its edge.
TEST(Joints, ASoftLimitLetsABodyInAndSpringsItBack) {
  const double speed = 3, omega = 2 * std::numbers::pi * 2, dt = 1.0 / 60;
  const double per_step = 1 / std::sqrt(1 + omega * dt * omega * dt);
  const double half_period = std::numbers::pi / std::atan(omega * dt);  // steps
  const double deepest = speed / omega * std::pow(per_step, half_period / 2);
  const double leaving = speed * std::pow(per_step, half_period);
  for (const SolverType type : testing::k_all_solvers) {
    World world(solved_by(weightless(), type));
    BodySettings s = box({0, 0, 0}, {Real(0.3), Real(0.2), Real(0.1)});
    s.angular_velocity = {Real(speed), 0, 0};
    const BodyId body = world.create_body(s);
    JointSettings joint = joint_of(JointType::six_dof, {}, body, {0, 0, 0});
    joint.angular[0] = {AxisMotion::Mode::limited, {Real(-0.5), Real(0.5)}, Spring{2, 0}};
    world.create_joint(joint);
    double furthest = 0;
    for (int i = 0; i < 40; ++i) {
      world.step(Real(dt));
      furthest = std::max(furthest, double(twist_angle(world.orientation(body), 0)));
    }
    EXPECT_NEAR(furthest - 0.5, deepest, 0.15 * deepest) << solver_type_name(type);
    EXPECT_LT(twist_angle(world.orientation(body), 0), Real(0.5)) << solver_type_name(type);
    EXPECT_NEAR(-world.angular_velocity(body).x, leaving, 0.1 * leaving) << solver_type_name(type);
  }
}

// A 0.17 kg ball 5 m from a six_dof to the world, its point held, its twist free, its swing's y
// part a spring and its z part limited to [-0.94, 0.6] rad by a 1.4 Hz spring (scripts/sweep.py
// springs, seed 21119): the ball swings far past the limit. A soft limit's effective mass, the
// ball's inertia about the line of that swing part through the joint, ranges from the ball's own
// (where the line passes near it) to 2600 times that; sized anew each step, the spring stored
// little on the way in and gave back much more: the ball went from 0.47 J to 5.4 J under pgs,
// block and pivoting. Taken when the limit is passed and kept while it stays passed, the
// stiffness gains nothing under any solver.
TEST(Joints, ASoftLimitsStiffnessIsKeptWhileItIsPassedSoAFarBallGainsNoEnergy) {
  for (const SolverType type : testing::k_all_solvers) {
    const SceneRun run = run_joint_scene("six_dof_soft_swing_limit_far_ball.json", type);
    EXPECT_LT(run.lowest_swing_z, -1.2) << solver_type_name(type);  // far past the limit
    EXPECT_LE(run.most, run.start * (1 + 1e-6)) << solver_type_name(type);
  }
}

// A weightless 1.26 kg sphere 6.5 cm in radius on a six_dof to the world 5.2 m from its centre,
// one linear axis fixed and the other five limited, thrown spinning (scripts/sweep.py pairs, seed
// 40004). Every limit there turns the sphere about its centre: the linear ones through the 5 m
// lever, the angular ones directly. Visited one by one, each undid part of the last one's push,
// and ten pgs sweeps let the limits pass by up to 0.85 m and the energy rise from 4.5 J to 7.2 J.
// Each range's nearer end next to the others' (StoreSink::order_limit_ends), pgs solves them
// together as a group, as block and pivoting solve the whole joint. (Jacobi and the global
// solvers, which visit every row alone, still gain: docs/joints.md.)
TEST(Joints, ASixDofsCoupledLimitsFarFromASmallSphereGainNoEnergy) {
  for (const SolverType type : {SolverType::pgs, SolverType::block, SolverType::pivoting}) {
    Scene scene =
        load_scene(std::string(IMPULSE_TEST_DATA_DIR) + "/six_dof_five_limits_far_sphere.json");
    scene.settings.solver.type = type;
    World world = build_world(scene);
    const double start = world.kinetic_energy();
    double most = start, passed = 0;
    for (int i = 0; i < 600; ++i) {
      world.step(world.settings().timestep);
      most = std::max(most, double(world.kinetic_energy()));
      passed = std::max(passed, double(world.joint_state(world.joints().front()).error));
    }
    EXPECT_LE(most, start * (1 + 1e-6)) << solver_type_name(type);
    EXPECT_LT(passed, 0.1) << solver_type_name(type);
  }
}

// A weightless 17.6 kg capsule on a six_dof to the world 5.3 m from its centre, its point held,
// both swings free and its twist limited to [-0.1, 0.1] rad by an undamped 5 Hz spring, started
// spinning: its swing passes the half turn, where the twist is undefined and its reading jumps past
// the limit from one step to the next. Pulling from there (a potential nothing paid for) the
// spring took the capsule from 14 J to 2.8 kJ under pgs, 49 kJ under pivoting. Held as a rigid
// limit from such a jump until back at the limit, it adds nothing under any solver, and the twist
// is held once the swing is back short of 120 degrees.
TEST(Joints, ASoftTwistLimitWithFreeSwingsGainsNoEnergyThroughTheHalfTurn) {
  for (const SolverType type : testing::k_all_solvers) {
    const SceneRun run = run_joint_scene("six_dof_soft_twist_limit_swings_free.json", type, 300);
    EXPECT_LT(run.closest, 0.05) << solver_type_name(type);  // within 6 degrees of the half turn
    EXPECT_LE(run.most, run.start * (1 + 1e-6)) << solver_type_name(type);
    EXPECT_LT(run.twist_held, 0.11) << solver_type_name(type);
  }
}

// A 0.17 kg ball 5 m from a six_dof to the world, turning freely, its point held in two directions
// and on a 5.7 Hz spring in the third (scripts/sweep.py springs, seed 21119): the ball moves the
// point most easily by turning, so the spring's row couples strongly with the two rigid ones.
// jacobi and the global solvers, visiting the rows one by one, left that coupling unsolved in ten
// sweeps and went from 0.48 J to 185-260 J; the spring's row decoupled from the rigid rows as a
// limit's is, the ball gains nothing under any solver.
TEST(Joints, ALinearSpringOnAFarBallTurningFreelyGainsNoEnergy) {
  for (const SolverType type : testing::k_all_solvers) {
    const SceneRun run = run_joint_scene("six_dof_linear_spring_turning_freely.json", type);
    EXPECT_LE(run.most, run.start * (1 + 1e-6)) << solver_type_name(type);
  }
}

// A 1 kg box (0.3 m cube) on a six_dof to the world 1.5 m from its centre, all six axes springs of
// 5 Hz (damping ratio 0.5), released level at rest: it swings down and settles, its energy
// (kinetic and in gravity) never above the start's (the springs' own is >= 0 and their implicit
// Euler dissipative). At rest the linear springs (k = m omega^2, the box's mass) carry its weight,
// its anchor g / omega^2 below the joint's, and the turn about z (k = I omega^2) the weight's
// moment: I omega^2 theta = m g L cos(theta). With each spring sized by its row's J M^-1 J^T,
// stiffened and slackened as the lever turned, every solver threw the box about at 40-55 m/s.
TEST(Joints, ABoxOnSixSpringsFarFromItsCentreSettlesWhereTheySayGainingNoEnergy) {
  const Real half = Real(0.15), arm = Real(1.5), frequency = 5;
  const double omega = 2 * std::numbers::pi * double(frequency);
  const double inertia = 2 * double(half * half) / 3;
  double turn = 0;  // I omega^2 theta = m g L cos(theta), by fixed point
  for (int i = 0; i < 200; ++i)
    turn = double(k_g * arm) * std::cos(turn) / (inertia * omega * omega);
  for (const SolverType type : testing::k_all_solvers) {
    World world(solved_by(no_sleep(), type));
    const BodyId body = world.create_body(box({0, 0, 0}, {half, half, half}));
    JointSettings joint = joint_of(JointType::six_dof, {}, body, {arm, 0, 0});
    for (auto* axes : {&joint.linear, &joint.angular})
      for (AxisMotion& axis : *axes)
        axis.spring = Spring{frequency, Real(0.5)};
    world.create_joint(joint);
    const double start = world.kinetic_energy() + world.potential_energy();
    double most = start;
    for (int i = 0; i < 1800; ++i) {
      world.step(Real(1.0 / 60));
      most = std::max(most, world.kinetic_energy() + world.potential_energy());
    }
    EXPECT_LT(most - start, 1e-3) << solver_type_name(type);
    EXPECT_LT(world.kinetic_energy(), 1e-3) << solver_type_name(type);
    EXPECT_NEAR(angle_about_z(world.orientation(body)), turn, 0.01 * turn)
        << solver_type_name(type);
    const Vec3 anchor = world.position(body) + rotate(world.orientation(body), Vec3{arm, 0, 0});
    EXPECT_LT(length(anchor - Vec3{arm, Real(-k_g / (omega * omega)), 0}), Real(1e-3))
        << solver_type_name(type);
  }
}

TEST(Joints, LockTranslationStopsMotionAlongItsAxis) {
  // Thrown and spun, under gravity along the locked axis: it neither falls nor rises. The axis
  // stays in the world (the preset makes the world body_a) while the body spins.
  World world(rigid());
  BodySettings s = box({0, 1, 0}, {Real(0.3), Real(0.2), Real(0.1)});
  s.linear_velocity = {1, 0, Real(0.5)};
  s.angular_velocity = {Real(0.3), 1, Real(0.7)};
  const BodyId body = world.create_body(s);
  world.create_joint(lock_translation(body, {0, 1, 0}, Vec3::unit_y()));
  Real worst = 0;
  for (int i = 0; i < 120; ++i) {
    world.step(Real(1.0 / 60));
    worst = std::max(worst, std::abs(world.linear_velocity(body).y));
  }
  EXPECT_LT(worst, Real(1e-3));
  EXPECT_NEAR(world.linear_velocity(body).x, 1, 1e-3);  // the other axes are free
}

TEST(Joints, LockRotationStopsRotationAboutItsAxis) {
  WorldSettings settings = rigid();
  settings.gravity = {};
  World world(settings);
  BodySettings s = box({0, 0, 0}, {Real(0.3), Real(0.2), Real(0.1)});
  s.angular_velocity = {0, 2, 0};
  s.linear_velocity = {1, 0, 0};
  const BodyId body = world.create_body(s);
  world.create_joint(lock_rotation(body, {0, 0, 0}, Vec3::unit_y()));
  Real worst = 0;
  for (int i = 0; i < 120; ++i) {
    world.step(Real(1.0 / 60));
    worst = std::max(worst, std::abs(world.angular_velocity(body).y));
  }
  EXPECT_LT(worst, Real(1e-3));
  EXPECT_NEAR(world.linear_velocity(body).x, 1, 1e-3);
}

TEST(Joints, JointedBodiesCollideOnlyWhenCollideConnected) {
  for (const bool collide : {false, true}) {
    World world(weightless());
    const BodyId a = world.create_body(cube({0, 0, 0}));
    const BodyId b = world.create_body(cube({Real(0.8), 0, 0}));
    JointSettings joint = joint_of(JointType::ball, a, b, {Real(0.4), 0, 0});
    joint.collide_connected = collide;
    world.create_joint(joint);
    world.step(Real(1.0 / 60));
    EXPECT_EQ(world.last_step_stats().contact_points > 0, collide);
    EXPECT_EQ(!world.debug_contacts().empty(), collide);
  }
}

// Only the joint's own pair is kept apart: a body made after the joint touching a jointed body,
// and two jointed bodies of different joints touching each other, get contacts.
TEST(Joints, AJointKeepsOnlyItsOwnPairFromContact) {
  World world(weightless());
  const BodyId a = world.create_body(cube({0, 0, 0}));
  const BodyId b = world.create_body(cube({Real(0.8), 0, 0}));
  const BodyId c = world.create_body(cube({0, Real(0.8), 0}));
  const BodyId d = world.create_body(cube({Real(0.8), Real(0.8), 0}));
  world.create_joint(joint_of(JointType::ball, a, b, {Real(0.4), 0, 0}));
  world.create_joint(joint_of(JointType::ball, c, d, {Real(0.4), Real(0.8), 0}));
  const BodyId later = world.create_body(cube({0, -Real(0.8), 0}));
  world.step(Real(1.0 / 60));
  const auto touching = [&](BodyId x, BodyId y) {
    const std::vector<DebugContact> contacts = world.debug_contacts();
    return std::any_of(contacts.begin(), contacts.end(), [&](const DebugContact& k) {
      return (k.body_a == x && k.body_b == y) || (k.body_a == y && k.body_b == x);
    });
  };
  EXPECT_FALSE(touching(a, b));
  EXPECT_FALSE(touching(c, d));
  EXPECT_TRUE(touching(a, c));  // both jointed, not to each other
  EXPECT_TRUE(touching(b, d));
  EXPECT_TRUE(touching(a, later));
}

TEST(Joints, APendulumAtRestSleepsAndWakesWhenItsJointIsRemoved) {
  World world;  // sleeping on
  const BodyId bob = world.create_body(ball({0, -1, 0}));
  const JointId nail = world.create_joint(joint_of(JointType::nail, bob, {}, {0, 0, 0}));
  for (int i = 0; i < 120 && !world.is_asleep(bob); ++i)
    world.step(Real(1.0 / 60));
  ASSERT_TRUE(world.is_asleep(bob));
  world.remove_joint(nail);
  EXPECT_FALSE(world.is_asleep(bob));
  world.step(Real(1.0 / 60));
  EXPECT_NEAR(world.linear_velocity(bob).y, -k_g / 60, 1e-6);  // falling free
}

TEST(Joints, ASleepingHingeWakesWhenItsMotorIsSet) {
  World world;
  const BodyId bob = world.create_body(ball({0, -1, 0}));
  const JointId hinge =
      world.create_joint(joint_of(JointType::hinge, bob, {}, {0, 0, 0}, Vec3::unit_z()));
  for (int i = 0; i < 120 && !world.is_asleep(bob); ++i)
    world.step(Real(1.0 / 60));
  ASSERT_TRUE(world.is_asleep(bob));
  world.set_joint_motor(hinge, Motor{1, 100});
  EXPECT_FALSE(world.is_asleep(bob));
  world.step(Real(1.0 / 60));
  EXPECT_GT(std::abs(world.angular_velocity(bob).z), Real(0.5));
}

// A joint's rows found when a step measures its error are written again by the next step while
// its bodies have not moved since (the same bits); a body moved between steps is held from where it
// is now: Baumgarte's bias, 0.2 / dt of the nail's 0.1 m error, pulls the anchor back at 1.2 m/s
// (with the rows of where the body was, nothing would).
TEST(Joints, ABodyMovedBetweenStepsIsHeldFromWhereItIsNow) {
  World world(rigid());
  const BodyId bob = world.create_body(ball({0, -1, 0}));
  const JointId nail = world.create_joint(joint_of(JointType::nail, bob, {}, {0, 0, 0}));
  world.step(Real(1.0 / 60));
  ASSERT_LT(world.joint_state(nail).error, Real(1e-4));
  world.set_transform(bob, {world.position(bob) + Vec3{Real(0.1), 0, 0}, world.orientation(bob)});
  world.step(Real(1.0 / 60));
  const Vec3 anchor_velocity =
      world.linear_velocity(bob) +
      cross(world.angular_velocity(bob), world.joint_state(nail).anchor_a - world.position(bob));
  EXPECT_NEAR(anchor_velocity.x, Real(-0.2 * 0.1 * 60), Real(0.05));
  EXPECT_NEAR(world.joint_state(nail).error, Real(0.08), Real(0.005));
}

TEST(Joints, RemovingABodyRemovesItsJoints) {
  World world(no_sleep());
  const BodyId a = world.create_body(ball({0, -1, 0}));
  const BodyId b = world.create_body(ball({0, -2, 0}));
  const JointId nail = world.create_joint(joint_of(JointType::nail, a, {}, {0, 0, 0}));
  const JointId link = world.create_joint(joint_of(JointType::ball, a, b, {0, Real(-1.5), 0}));
  world.remove_body(a);
  EXPECT_FALSE(world.is_valid(nail));
  EXPECT_FALSE(world.is_valid(link));
  EXPECT_THROW(world.joint_state(nail), StaleHandle);
  EXPECT_THROW(world.joint_state(link), StaleHandle);
  EXPECT_TRUE(world.joints().empty());
  world.step(Real(1.0 / 60));  // b falls on alone
  EXPECT_NEAR(world.linear_velocity(b).y, -k_g / 60, 1e-6);
}

// A joint reports where its anchors are: the nail's world point, and the body's point, as far
// from it as the error says.
TEST(Joints, StateReportsTheAnchorsWhereTheyAre) {
  World world(no_sleep());
  const BodyId bob = world.create_body(ball({1, 0, 0}));
  JointSettings nail = joint_of(JointType::nail, bob, {}, {0, 0, 0});
  const JointId id = world.create_joint(nail);
  EXPECT_EQ(world.joint_state(id).anchor_a, Vec3(0, 0, 0));  // as created
  for (int i = 0; i < 30; ++i)
    world.step(Real(1.0 / 60));
  const JointState& state = world.joint_state(id);
  EXPECT_EQ(state.anchor_b, Vec3(0, 0, 0));
  EXPECT_NEAR(distance(state.anchor_a, state.anchor_b), state.error, 1e-6);
  // The bob's anchor is 1 m from its centre, toward the nail.
  EXPECT_NEAR(distance(state.anchor_a, world.center_of_mass(bob)), 1, 1e-5);
}

// In a plane world the joints' position projection moves bodies only within their plane, as the
// velocity solve does (both see the plane-projected inverse mass).
TEST(Joints, ProjectionKeepsAPlaneWorldInItsPlane) {
  WorldSettings settings = no_sleep();
  settings.plane_normal = Vec3::unit_z();
  settings.solver.position_iterations = 2;
  World world(settings);
  const BodyId arm = world.create_body(box({1, 0, 0}, {Real(0.5), Real(0.1), Real(0.1)}));
  JointSettings pivot = joint_of(JointType::ball, arm, {}, {0, 0, Real(0.05)});  // off the plane
  world.create_joint(pivot);
  for (int i = 0; i < 120; ++i)
    world.step(Real(1.0 / 60));
  EXPECT_EQ(world.position(arm).z, 0);
  const Quat q = world.orientation(arm);
  EXPECT_NEAR(q.x, 0, 1e-6);
  EXPECT_NEAR(q.y, 0, 1e-6);
  EXPECT_LT(world.position(arm).y, Real(-0.5));  // it swung down
}

}  // namespace
}  // namespace impulse
