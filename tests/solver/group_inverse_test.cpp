// A group's inverse (GroupInverter): four groups at a time in lanes, each with the bits it gets
// alone, the inverse of its regularised matrix, and a failed factorisation its own.

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "solver/group_solve.h"
#include "solver/random_group.h"

namespace impulse {
namespace {

// A group of `count` rows whose matrix is random_group_matrix's, zero past count.
RowGroup random_group(std::mt19937& rng, std::uint32_t count) {
  const GroupDense a = random_group_matrix(rng, count);
  RowGroup group(0, count);
  group.a = {};
  for (std::uint32_t c = 0; c < count; ++c)
    for (std::uint32_t r = 0; r < count; ++r)
      group.a[c][r] = a(r, c);
  return group;
}

void invert(std::span<RowGroup> groups) {
  GroupInverter inverter;
  for (RowGroup& group : groups)
    inverter.add(group);
  inverter.flush();
}

bool same_bits(const std::array<Lanes, k_g>& x, const std::array<Lanes, k_g>& y) {
  return std::memcmp(x.data(), y.data(), sizeof(x)) == 0;
}

TEST(GroupInverse, EachGroupGetsItsOwnBitsAndTheInverseOfItsRegularisedMatrix) {
  std::mt19937 rng(11);
  // Nine groups: two whole fours in lanes and one alone, of every count.
  std::vector<RowGroup> groups;
  for (const std::uint32_t count : {4u, 3u, 2u, 1u, 4u, 2u, 3u, 4u, 1u})
    groups.push_back(random_group(rng, count));
  std::vector<RowGroup> alone = groups;
  invert(groups);
  for (RowGroup& group : alone)
    invert(std::span(&group, 1));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    SCOPED_TRACE(g);
    const RowGroup& group = groups[g];
    ASSERT_TRUE(group.factored);
    EXPECT_TRUE(same_bits(group.inverse, alone[g].inverse));
    // (A + 1e-5 diag(A)) inverse = I on the group's rows; the identity past them.
    const auto n = Eigen::Index(group.count);
    Eigen::MatrixXf a(n, n);
    for (Eigen::Index c = 0; c < n; ++c)
      for (Eigen::Index r = 0; r < n; ++r)
        a(r, c) = group.a[std::size_t(c)][std::size_t(r)] *
                  (r == c ? 1 + k_group_regularisation : Real(1));
    Eigen::MatrixXf inverse(n, n);
    for (Eigen::Index c = 0; c < n; ++c)
      for (Eigen::Index r = 0; r < n; ++r)
        inverse(r, c) = group.inverse[std::size_t(c)][std::size_t(r)];
    const Eigen::MatrixXf expected = a.inverse();
    EXPECT_LE((inverse - expected).cwiseAbs().maxCoeff(), 2e-3f * expected.cwiseAbs().maxCoeff());
    for (std::size_t c = 0; c < k_g; ++c)
      for (std::size_t r = group.count; r < k_g; ++r) {
        EXPECT_EQ(group.inverse[c][r], r == c ? 1 : 0);
        EXPECT_EQ(group.inverse[r][c], r == c ? 1 : 0);
      }
  }
}

TEST(GroupInverse, AFailedFactorisationIsTheGroupsAlone) {
  std::mt19937 rng(5);
  std::vector<RowGroup> groups;
  for (const std::uint32_t count : {3u, 4u, 2u, 4u})
    groups.push_back(random_group(rng, count));
  // The second's third row repeats its second (two contact points at one place): the regularised
  // pivot is still positive. The fourth's last row is zero (a row with no effect): not.
  groups[1].a[2] = groups[1].a[1];
  for (std::size_t c = 0; c < k_g; ++c)
    groups[1].a[c][2] = groups[1].a[c][1];
  for (std::size_t c = 0; c < k_g; ++c)
    groups[3].a[c][3] = 0;
  groups[3].a[3] = Lanes{};
  std::vector<RowGroup> alone = groups;
  invert(groups);
  for (RowGroup& group : alone)
    invert(std::span(&group, 1));
  EXPECT_TRUE(groups[0].factored);
  EXPECT_TRUE(groups[1].factored);
  EXPECT_TRUE(groups[2].factored);
  EXPECT_FALSE(groups[3].factored);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(groups[g].factored, alone[g].factored);
    EXPECT_TRUE(same_bits(groups[g].inverse, alone[g].inverse));
  }
}

}  // namespace
}  // namespace impulse
