// The lane products (core/lanes.h), a row's response in lanes (lane_row) and a body's world inverse
// inertia give the bits of the scalar Vec3, Quat and Mat33 operations they stand for: the contact
// and joint writers, the contact cache and the integrator rely on it for the same results as
// before they computed in lanes.

#include "core/lanes.h"
#include "constraints/rows.h"
#include "dynamics/body_storage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

namespace impulse {
namespace {

bool same_bits(Real x, Real y) {
  return std::memcmp(&x, &y, sizeof(Real)) == 0;
}

bool same_bits(const Vec3& x, const Lanes& y) {
  return same_bits(x.x, y[0]) && same_bits(x.y, y[1]) && same_bits(x.z, y[2]);
}

class Random {
 public:
  Vec3 vec() { return {value_(rng_), value_(rng_), value_(rng_)}; }
  Mat33 mat() { return {vec(), vec(), vec()}; }

 private:
  std::mt19937 rng_{7};
  std::uniform_real_distribution<Real> value_{Real(-3), Real(3)};
};

// Where the compiler may fuse a multiply and an add (a processor with FMA), the scalar products may
// round once where the lanes round twice: the claim holds for builds without it, as the default.
#ifdef __FP_FAST_FMAF
#define SKIP_WHERE_PRODUCTS_FUSE() GTEST_SKIP() << "this build may fuse multiply-adds"
#else
#define SKIP_WHERE_PRODUCTS_FUSE() (void)0
#endif

TEST(Lanes, CrossDotAndMatrixProductsHaveTheScalarBits) {
  SKIP_WHERE_PRODUCTS_FUSE();
  Random random;
  for (int trial = 0; trial < 1000; ++trial) {
    const Vec3 a = random.vec(), b = random.vec();
    const Mat33 m = random.mat();
    EXPECT_TRUE(same_bits(cross(a, b), cross3(lanes_of(a), lanes_of(b)))) << trial;
    EXPECT_TRUE(same_bits(dot(a, b), dot3(lanes_of(a), lanes_of(b)))) << trial;
    EXPECT_TRUE(same_bits(m * a, times(to_lanes(m), lanes_of(a)))) << trial;
    const Real s = std::abs(b.x) + Real(0.5);
    EXPECT_TRUE(same_bits(a / s, lanes_of(a) / splat(s))) << trial;
    const Quat q = normalize(Quat(a.x, a.y, a.z, b.x));
    EXPECT_TRUE(same_bits(rotate(q, b), rotated(lanes_of(q.vec()), splat(q.w), lanes_of(b))))
        << trial;
  }
}

// A body's world inverse inertia is refreshed in lanes (BodyMotion::refresh_world_inertia) with
// the bits of the Mat33 products R I^-1 R^T.
TEST(Lanes, AWorldInverseInertiaHasTheScalarBits) {
  SKIP_WHERE_PRODUCTS_FUSE();
  Random random;
  for (int trial = 0; trial < 500; ++trial) {
    BodyMotion m;
    const Vec3 axis = random.vec();
    m.orientation = normalize(Quat(axis.x, axis.y, axis.z, Real(trial % 7) - 3));
    m.inv_inertia_local = random.mat();
    m.refresh_world_inertia();
    const Mat33 r = to_matrix(m.orientation);
    const Mat33 expected = r * m.inv_inertia_local * transpose(r);
    for (int c = 0; c < 3; ++c)
      EXPECT_TRUE(same_bits(expected.col(c), lanes_of(m.inv_inertia_world.col(c))))
          << trial << " column " << c;
  }
}

// The response as RowStore::prepare computed it before it went through lanes, spelled out.
TEST(Lanes, ARowsResponseHasTheScalarBitsOnFreeAndPlaneBodies) {
  SKIP_WHERE_PRODUCTS_FUSE();
  Random random;
  for (int trial = 0; trial < 500; ++trial) {
    const std::array<Vec3, 4> j{random.vec(), random.vec(), random.vec(), random.vec()};
    SolverBodyMass a{Real(0.7), random.mat(), Vec3::zero()};
    SolverBodyMass b{Real(1.3), random.mat(), normalize(random.vec())};  // held to a plane
    if (trial % 2 == 1) std::swap(a, b);
    const std::array<Vec3, 4> response{a.linear_response(j[0]), a.inv_inertia * j[1],
                                       b.linear_response(j[2]), b.inv_inertia * j[3]};
    const Real diagonal = dot(j[0], response[0]) + dot(j[1], response[1]) + dot(j[2], response[2]) +
                          dot(j[3], response[3]);
    const LaneRow row = lane_row(to_lanes(j), LaneMass(a), LaneMass(b));
    for (std::size_t k = 0; k < 4; ++k) {
      EXPECT_TRUE(same_bits(j[k], row.j[k])) << trial << " part " << k;
      EXPECT_TRUE(same_bits(response[k], row.b[k])) << trial << " part " << k;
    }
    EXPECT_TRUE(same_bits(diagonal, row.diagonal)) << trial;
  }
}

// Four rows' parts by components at once (a batch's packing) put each lane where by_components of
// that part alone does.
TEST(Lanes, PartsByComponentsPlaceEachRowsPartsAsByComponentsDoes) {
  Random random;
  for (int trial = 0; trial < 100; ++trial) {
    std::array<std::array<Lanes, 4>, 4> rows;
    for (auto& row : rows) {
      for (Lanes& part : row) {
        const Vec3 v = random.vec();
        part = Lanes{v.x, v.y, v.z, random.vec().x};  // a padding lane that is not 0: not stored
      }
    }
    const PartsByComponents wide(rows[0], rows[1], rows[2], rows[3]);
    for (std::size_t p = 0; p < 4; ++p) {
      Lanes expected[3], stored[3];
      by_components(rows[0][p], rows[1][p], rows[2][p], rows[3][p], expected);
      wide.store(p, stored);
      for (std::size_t c = 0; c < 3; ++c) {
        for (std::size_t k = 0; k < 4; ++k)
          EXPECT_TRUE(same_bits(expected[c][k], stored[c][k])) << trial << " part " << p;
      }
    }
  }
}

}  // namespace
}  // namespace impulse
