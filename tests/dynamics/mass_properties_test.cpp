// Mass and inertia of every dynamic shape against their closed forms.

#include <impulse/body.h>
#include <impulse/error.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include "support/geometry.h"

namespace impulse {
namespace {

using testing::box_corners;

constexpr double k_rel = 1e-5;

void expect_relative(double actual, double expected, double rel = k_rel) {
  EXPECT_NEAR(actual, expected, rel * std::abs(expected));
}

void expect_diagonal(const Mat33& inertia, const Vec3& expected, double rel = k_rel) {
  for (int i = 0; i < 3; ++i)
    expect_relative(inertia(i, i), expected[i], rel);
  const double scale = std::abs(expected.x) + std::abs(expected.y) + std::abs(expected.z);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      if (r != c) {
        EXPECT_NEAR(inertia(r, c), 0, rel * scale);
      }
    }
  }
}

TEST(MassProperties, SphereIsTwoFifthsMRSquared) {
  const MassProperties mp = compute_mass_properties(Sphere{Real(0.3)}, 500);
  const double m = 4.0 / 3.0 * M_PI * 0.027 * 500;
  expect_relative(mp.mass, m);
  expect_diagonal(mp.inertia, Vec3::splat(Real(0.4 * m * 0.09)));
}

TEST(MassProperties, BoxIsMOverTwelveTimesSumOfSquaredEdges) {
  const MassProperties mp = compute_mass_properties(Box{{Real(0.5), 1, Real(1.5)}}, 7);
  const double m = 1 * 2 * 3 * 7;
  expect_relative(mp.mass, m);
  expect_diagonal(mp.inertia,
                  Vec3{Real(m / 12 * (4 + 9)), Real(m / 12 * (1 + 9)), Real(m / 12 * (1 + 4))});
}

// Capsule of radius r and cylinder length l = 2h along y (cylinder plus two hemispheres).
TEST(MassProperties, CapsuleMatchesCylinderPlusHemispheres) {
  const double r = 0.3, h = 0.6, rho = 1000;
  const MassProperties mp = compute_mass_properties(Capsule{Real(r), Real(h)}, Real(rho));
  const double m_cyl = M_PI * r * r * 2 * h * rho;
  const double m_hemi = 2.0 / 3.0 * M_PI * r * r * r * rho;
  expect_relative(mp.mass, m_cyl + 2 * m_hemi);
  const double axial = m_cyl * r * r / 2 + 2 * (0.4 * m_hemi * r * r);
  // Each hemisphere: 83/320 m r^2 about its own centre of mass, which lies 3r/8 beyond the end.
  const double d = h + 3 * r / 8;
  const double lateral = m_cyl * (r * r / 4 + (2 * h) * (2 * h) / 12) +
                         2 * (83.0 / 320.0 * m_hemi * r * r + m_hemi * d * d);
  expect_diagonal(mp.inertia, Vec3{Real(lateral), Real(axial), Real(lateral)});
}

TEST(MassProperties, ConvexHullOfBoxCornersEqualsTheBox) {
  const Vec3 h{Real(0.5), 1, Real(1.5)};
  const ConvexHull hull{box_corners(h)};
  const MassProperties from_hull = compute_mass_properties(hull, 7);
  const MassProperties from_box = compute_mass_properties(Box{h}, 7);
  expect_relative(from_hull.mass, from_box.mass);
  EXPECT_NEAR(length(from_hull.center), 0, 1e-6);
  expect_diagonal(from_hull.inertia,
                  {from_box.inertia(0, 0), from_box.inertia(1, 1), from_box.inertia(2, 2)});
}

// Two unit cubes side by side along x form a 2 x 1 x 1 box: the parallel-axis theorem in action.
TEST(MassProperties, CompoundOfTwoBoxesMatchesParallelAxisTheorem) {
  const Real rho = 1000;
  std::vector<ShapeSettings> shapes = {
      {Box{Vec3::splat(Real(0.5))}, {{Real(-0.5), 1, 0}, Quat::identity()}},
      {Box{Vec3::splat(Real(0.5))}, {{Real(0.5), 1, 0}, Quat::identity()}},
  };
  const MassProperties mp = compute_mass_properties(shapes, rho);
  expect_relative(mp.mass, 2000);
  EXPECT_NEAR(mp.center.x, 0, 1e-6);
  EXPECT_NEAR(mp.center.y, 1, 1e-6);
  // Each cube: m/6 about its centre, plus m d^2 (d = 0.5) about the y and z axes.
  const double own = 1000.0 / 6.0, shift = 1000.0 * 0.25;
  expect_diagonal(mp.inertia, {Real(2 * own), Real(2 * (own + shift)), Real(2 * (own + shift))});
  // Equivalent single box 2 x 1 x 1.
  const MassProperties box = compute_mass_properties(Box{{1, Real(0.5), Real(0.5)}}, rho);
  expect_diagonal(mp.inertia, {box.inertia(0, 0), box.inertia(1, 1), box.inertia(2, 2)});
}

TEST(MassProperties, RotatedShapeInertiaIsRIRTranspose) {
  const Quat q = Quat::from_axis_angle(normalize(Vec3{1, 2, 3}), Real(0.8));
  const MassProperties mp =
      compute_mass_properties({ShapeSettings{Box{{Real(0.2), Real(0.5), 1}}, {{}, q}}}, 100);
  const MassProperties local = compute_mass_properties(Box{{Real(0.2), Real(0.5), 1}}, 100);
  const Mat33 expected = to_matrix(q) * local.inertia * transpose(to_matrix(q));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(mp.inertia(r, c), expected(r, c), 1e-5 * trace(expected));
}

TEST(MassProperties, GivenMassScalesTheInertiaOfTheShape) {
  World world;
  BodySettings body;
  body.shapes = {ShapeSettings{Sphere{Real(0.5)}, {}}};
  body.mass = 2;
  const BodyId id = world.create_body(body);
  expect_relative(world.mass_properties(id).mass, 2);
  expect_diagonal(world.mass_properties(id).inertia, Vec3::splat(Real(0.4 * 2 * 0.25)));
}

TEST(MassProperties, WorldInverseInertiaIsRotatedLocalInverse) {
  World world;
  BodySettings body;
  body.shapes = {ShapeSettings{Box{{Real(0.2), Real(0.5), 1}}, {}}};
  body.orientation = Quat::from_axis_angle(Vec3::unit_z(), k_pi / 2);
  const BodyId id = world.create_body(body);
  const Mat33 inv_world = world.inverse_inertia_world(id);
  const Mat33& inertia = world.mass_properties(id).inertia;
  // A quarter turn about z swaps the x and y moments.
  EXPECT_NEAR(inv_world(0, 0), 1 / inertia(1, 1), 1e-4 / inertia(1, 1));
  EXPECT_NEAR(inv_world(1, 1), 1 / inertia(0, 0), 1e-4 / inertia(0, 0));
}

TEST(MassProperties, OffsetCompoundRotatesAboutItsCentreOfMass) {
  WorldSettings settings;
  settings.gravity = Vec3::zero();
  World world(settings);
  BodySettings body;
  body.shapes = {ShapeSettings{Sphere{Real(0.5)}, {{2, 0, 0}, Quat::identity()}}};
  body.angular_velocity = {0, 0, 1};
  const BodyId id = world.create_body(body);
  EXPECT_NEAR(world.center_of_mass(id).x, 2, 1e-6);
  for (int i = 0; i < 100; ++i)
    world.step(Real(1.0 / 60));
  // The centre of mass stays put while the body origin circles around it.
  EXPECT_NEAR(world.center_of_mass(id).x, 2, 1e-5);
  EXPECT_NEAR(length(world.position(id) - world.center_of_mass(id)), 2, 1e-4);
}

}  // namespace
}  // namespace impulse
