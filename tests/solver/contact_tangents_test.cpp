// The first friction direction of each contact of a manifold under the point models, as the
// engine's own writer (write_manifold_rows) finds it: along the contact's slip while it slides,
// else along the friction impulse it carries (its part in the contact plane), else along a fixed
// perpendicular of the normal. The writer finds a manifold's four at once; each must follow its
// own contact's state whatever the others' are, and a manifold of fewer points must not take a
// missing point's state.

#include <gtest/gtest.h>

#include <array>

#include "solver/manifold_rows.h"

namespace impulse {
namespace {

using testing::RowProblem;

constexpr Real k_half = Real(0.5);  // m, half the cube's side
constexpr Real k_spin = Real(0.2);  // rad/s about the vertical: every slip here is 0 or >= 0.1 m/s

struct Contact {
  Vec3 position;          // on the ground's top face
  Vec3 friction_impulse;  // carried from the last step
};

// The first friction direction of each contact of a 1 kg cube (body 1) on static ground (body 0),
// turning at k_spin about the vertical through `pivot` (a point of the ground plane, where the
// cube's bottom does not slip).
template <std::size_t N>
std::array<Vec3, N> first_directions(const std::array<Contact, N>& contacts, const Vec3& pivot) {
  RowProblem p;
  p.add_body(0);
  const Vec3 center{0, k_half, 0};
  const Vec3 spin{0, k_spin, 0};
  const std::uint32_t box = p.add_body(1, -cross(spin, pivot - center));
  p.velocities[box].angular = spin;
  std::vector<BodyMotion> motions(2);
  motions[1].center = center;
  motions[1].inv_mass = 1;
  ContactManifold manifold;
  manifold.body_a = 0;
  manifold.body_b = box;
  manifold.normal = Vec3::unit_y();
  manifold.count = int(N);
  for (std::size_t k = 0; k < N; ++k) {
    manifold.points[k].point.position = contacts[k].position;
    manifold.points[k].point.depth = Real(0.001);
    manifold.points[k].friction_impulse = contacts[k].friction_impulse;
  }
  SolverSettings solver;
  solver.friction_model = FrictionModel::coulomb;
  const ContactRowSettings settings{Real(1) / 60, 1, Real(9.81), &solver, {}};
  std::vector<ContactManifold> manifolds{manifold};
  std::vector<ManifoldRows> where(1);
  testing::write_contact_rows_with(Real(0.5), manifolds, motions, p.masses, p.velocities, settings,
                                   p.rows, where);
  std::array<Vec3, N> directions;
  for (std::size_t k = 0; k < N; ++k)  // contact k's rows are 2k (its first direction) and 2k + 1
    directions[k] = where[0].friction_directions[2 * k];
  return directions;
}

void expect_direction(const Vec3& found, const Vec3& expected, const char* what) {
  EXPECT_NEAR(found.x, expected.x, 1e-6) << what;
  EXPECT_NEAR(found.y, expected.y, 1e-6) << what;
  EXPECT_NEAR(found.z, expected.z, 1e-6) << what;
}

TEST(ContactTangents, EachContactFollowsItsOwnSlipOrCarriedImpulse) {
  // Turning about the vertical through the first contact: it does not slip, and follows the
  // impulse it carries (less its normal part); the others slide along spin x (p - pivot).
  const Vec3 pivot{-k_half, 0, k_half};
  const std::array<Contact, 4> contacts{{{pivot, {Real(0.3), Real(0.2), Real(-0.4)}},
                                         {{k_half, 0, k_half}, {}},
                                         {{-k_half, 0, -k_half}, {Real(0.1), 0, 0}},
                                         {{k_half, 0, -k_half}, {0, 0, Real(0.1)}}}};
  const std::array<Vec3, 4> found = first_directions(contacts, pivot);
  expect_direction(found[0], {Real(0.6), 0, Real(-0.8)}, "no slip: the carried impulse");
  expect_direction(found[1], {0, 0, -1}, "sliding along -z");
  expect_direction(found[2], {-1, 0, 0}, "sliding along -x, against its carried impulse");
  expect_direction(found[3], normalize(Vec3{-1, 0, -1}), "sliding along -x - z");
}

TEST(ContactTangents, AContactWithNeitherSlipNorImpulseTakesTheNormalsPerpendicular) {
  // Three contacts, the others sliding: the first (the pivot, carrying nothing) takes the fixed
  // perpendicular of the normal (1, 0, 0 for +y), whatever the last contact's state that the
  // writer's fourth lane repeats.
  const Vec3 pivot{k_half, 0, k_half};
  const std::array<Contact, 3> contacts{
      {{pivot, {}}, {{-k_half, 0, k_half}, {0, 0, Real(-0.2)}}, {{-k_half, 0, -k_half}, {}}}};
  const std::array<Vec3, 3> found = first_directions(contacts, pivot);
  expect_direction(found[0], {1, 0, 0}, "idle: the perpendicular");
  expect_direction(found[1], {0, 0, 1}, "sliding along +z, against its carried impulse");
  expect_direction(found[2], normalize(Vec3{-1, 0, 1}), "sliding along -x + z");
}

}  // namespace
}  // namespace impulse
