// RowStore's two ways in: add (checked, one row at a time) and append_rows + set +
// end_appended_block (the contact rows, written on several threads): the same store either way.

#include "constraints/rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "row_problem.h"

namespace impulse {
namespace {

RowSpec row_of(std::uint32_t k) {
  RowSpec row;
  row.body_a = 1 + k;
  row.body_b = 0;
  row.j_lin_a = {Real(k), 1, 0};
  row.j_ang_a = {0, 0, Real(k) * Real(0.5)};
  row.bias = Real(0.25) * Real(k);
  row.lo = 0;
  row.lambda = Real(k);
  return row;
}

TEST(RowStore, AppendedRowsEqualAddedOnesBlockForBlock) {
  RowStore added, appended;
  // Blocks of 2, 3 and 1 rows, after one row added the checked way to both.
  added.add(row_of(9));
  appended.add(row_of(9));
  const std::uint32_t sizes[] = {2, 3, 1};
  std::uint32_t k = 0;
  for (const std::uint32_t size : sizes) {
    added.begin_block();
    for (std::uint32_t r = 0; r < size; ++r)
      added.add(row_of(k + r));
    added.end_block();
    k += size;
  }
  const std::uint32_t first = appended.append_rows(k);
  EXPECT_EQ(first, 1u);
  for (std::uint32_t r = k; r-- > 0;)  // any order: each row is its own
    appended.set(first + r, row_of(r));
  std::uint32_t end = first;
  for (const std::uint32_t size : sizes)
    appended.end_appended_block(end += size);
  EXPECT_EQ(appended.block_begin, added.block_begin);
  ASSERT_EQ(appended.size(), added.size());
  std::vector<SolverBodyMass> masses(16, {1, Mat33::identity()});  // bodies 0 to 10 are used
  added.prepare(masses);
  appended.prepare(masses);
  for (std::size_t i = 0; i < added.size(); ++i) {
    EXPECT_EQ(appended.body_a[i], added.body_a[i]);
    EXPECT_EQ(appended.j_lin_a(i), added.j_lin_a(i));
    EXPECT_EQ(appended.bias[i], added.bias[i]);
    EXPECT_EQ(appended.lambda[i], added.lambda[i]);
    EXPECT_EQ(appended.inv_eff_mass[i], added.inv_eff_mass[i]);
  }
}

TEST(RowStore, AnAppendedBlockMustEndPastItsStartAndWithinTheRows) {
  RowStore rows;
  rows.append_rows(3);
  rows.end_appended_block(2);
  EXPECT_THROW(rows.end_appended_block(2), std::invalid_argument);
  EXPECT_THROW(rows.end_appended_block(4), std::invalid_argument);
  rows.end_appended_block(3);
  rows.begin_block();
  EXPECT_THROW(rows.append_rows(1), std::invalid_argument);
}

// Rows prepared one at a time (set_prepared, as a joint's are) and a manifold's way
// (set_with_response, then finish_prepared four rows at a time): the same diagonal and inverse
// effective mass, bit for bit, for runs of 1 to 9 rows (short last quartets) with ordinary, zero,
// huge and NaN Jacobians and zero, positive and infinite softness.
TEST(RowStore, RowsPreparedTogetherMatchRowsPreparedOneByOne) {
  std::mt19937 random(11);
  std::uniform_real_distribution<Real> value(Real(-2), Real(2));
  const auto vec = [&] { return Vec3{value(random), value(random), value(random)}; };
  const SolverBodyMass a{Real(0.5), Mat33::diagonal({3, 4, 5})}, b{0, Mat33{}};
  const LaneMass lane_a(a), lane_b(b);
  for (std::size_t count = 1; count <= 9; ++count) {
    RowStore one_by_one, together;
    one_by_one.append_rows(count);
    together.append_rows(count);
    for (std::size_t i = 0; i < count; ++i) {
      std::array<Vec3, 4> j{vec(), vec(), vec(), vec()};
      if (i % 4 == 1) j = {};                     // moves nothing: degenerate
      if (i % 5 == 2) j[1] = {Real(1e30), 0, 0};  // overflows to an infinite diagonal
      if (i % 7 == 3) j[3].x = std::nan("");      // not a number
      RowSpec spec;
      spec.softness = i % 3 == 0 ? Real(0) : (i % 3 == 1 ? Real(0.1) : k_infinity);
      const std::array<Lanes, 4> lanes = to_lanes(j);
      one_by_one.set_prepared(i, spec, lane_row(lanes, lane_a, lane_b));
      together.set_with_response(i, spec, lanes, lane_response(lanes, lane_a, lane_b));
    }
    together.finish_prepared(0, count);
    for (std::size_t i = 0; i < count; ++i) {
      SCOPED_TRACE(::testing::Message() << count << " rows, row " << i);
      const Real d = one_by_one.diagonal[i];
      if (std::isnan(d))
        EXPECT_TRUE(std::isnan(together.diagonal[i]));
      else
        EXPECT_TRUE(testing::same_bits(together.diagonal[i], d));
      EXPECT_TRUE(testing::same_bits(together.inv_eff_mass[i], one_by_one.inv_eff_mass[i]));
      EXPECT_EQ(together.b_ang_a(i), one_by_one.b_ang_a(i));
    }
  }
}

}  // namespace
}  // namespace impulse
