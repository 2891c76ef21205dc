// BlockLdlt (solver/block_ldlt.h): the solve of A x = b for a sparse SPD matrix in dense blocks
// matches a dense factorisation, with fill (a loop of nodes) and every node size from 1 to 6; trees
// factor with no fill; a part that no entry couples with the rest factors and solves alone with
// the whole's bits, and parts that factor alike solve in lanes with those bits; a block that is
// not positive definite is refused, and so is a node of no rows or more than 6.

#include "solver/block_ldlt.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cstring>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace impulse {
namespace {

struct Problem {
  std::vector<std::uint32_t> node_begin{0};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> coupled;
  Eigen::MatrixXd a;
};

// A = I + the sum over the coupled pairs of C C^T, C a random column over the two nodes' rows:
// SPD, and non-zero only inside coupled blocks.
Eigen::MatrixXd spd_matrix_of(const Problem& p, std::mt19937& random) {
  const auto n = Eigen::Index(p.node_begin.back());
  std::uniform_real_distribution<double> value(-1, 1);
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(n, n);
  for (const auto& [x, y] : p.coupled) {
    Eigen::VectorXd c = Eigen::VectorXd::Zero(n);
    for (const std::uint32_t node : {x, y}) {
      for (std::uint32_t i = p.node_begin[node]; i < p.node_begin[node + 1]; ++i)
        c[i] = value(random);
    }
    a += c * c.transpose();
  }
  return a;
}

// Nodes of sizes 1 to 6 (twice over); each coupled with the next, the last with the first (a
// loop: the factor fills in), and node 2 with node 7. A = B B^T + I over the coupled blocks only.
Problem loop_of_nodes() {
  Problem p;
  const std::vector<std::uint32_t> sizes{3, 1, 6, 2, 5, 4, 3, 6, 1, 2};
  for (const std::uint32_t size : sizes)
    p.node_begin.push_back(p.node_begin.back() + size);
  const auto nodes = std::uint32_t(sizes.size());
  for (std::uint32_t k = 0; k < nodes; ++k)
    p.coupled.emplace_back(k, (k + 1) % nodes);
  p.coupled.emplace_back(2, 7);
  std::mt19937 random(5);
  p.a = spd_matrix_of(p, random);
  return p;
}

void fill(BlockLdlt& ldlt, const Problem& p) {
  for (Eigen::Index i = 0; i < p.a.rows(); ++i) {
    for (Eigen::Index j = 0; j <= i; ++j) {
      if (p.a(i, j) != 0) ldlt.values()[ldlt.slot(std::uint32_t(i), std::uint32_t(j))] += p.a(i, j);
    }
  }
}

// The positions of the nodes holding rows [begin, end), ascending.
std::vector<std::uint32_t> positions_of_rows(const BlockLdlt& ldlt, std::uint32_t begin,
                                             std::uint32_t end) {
  std::vector<std::uint32_t> positions;
  for (std::uint32_t i = begin; i < end; ++i)
    positions.push_back(ldlt.position_of_row(i));
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  return positions;
}

TEST(BlockLdlt, SolvesAsADenseFactorisationDoesWithFillAndEveryNodeSize) {
  const Problem p = loop_of_nodes();
  BlockLdlt ldlt;
  ldlt.analyse(p.node_begin, p.coupled);
  for (int round = 0; round < 2; ++round) {  // a second factorisation on the same structure
    std::fill(ldlt.values().begin(), ldlt.values().end(), 0.0);
    fill(ldlt, p);
    ASSERT_TRUE(ldlt.factorize());
    Eigen::VectorXd b(p.a.rows());
    for (Eigen::Index i = 0; i < b.size(); ++i)
      b[i] = double(i % 5) - 2 + 0.1 * round;
    const Eigen::VectorXd expected = p.a.ldlt().solve(b);
    std::vector<double> x(b.data(), b.data() + b.size());
    ldlt.solve(x, positions_of_rows(ldlt, 0, std::uint32_t(b.size())));
    for (Eigen::Index i = 0; i < b.size(); ++i)
      EXPECT_NEAR(x[std::size_t(i)], expected[i], 1e-9) << "row " << i;
  }
}

constexpr std::uint32_t k_loops = 3;

// k_loops loops of nodes side by side (loop l's nodes and rows after loop l - 1's), no entry
// coupling them, loop l's matrix 1 + l times loop_of_nodes()'s.
Problem loops_side_by_side() {
  const Problem loop = loop_of_nodes();
  const auto nodes = std::uint32_t(loop.node_begin.size() - 1);
  const auto rows = std::uint32_t(loop.a.rows());
  Problem p;
  p.a = Eigen::MatrixXd::Zero(k_loops * rows, k_loops * rows);
  for (std::uint32_t l = 0; l < k_loops; ++l) {
    for (std::uint32_t k = 1; k <= nodes; ++k)
      p.node_begin.push_back(l * rows + loop.node_begin[k]);
    for (const auto& [x, y] : loop.coupled)
      p.coupled.emplace_back(x + l * nodes, y + l * nodes);
    p.a.block(l * rows, l * rows, rows, rows) = (1.0 + l) * loop.a;
  }
  return p;
}

// Each loop factored alone (the last first, each with its own scratch, as the equality block's
// components are on several threads) gives every value the bits of the factorisation of the whole.
TEST(BlockLdlt, APartCoupledWithNoOtherNodeFactorsAloneWithTheBitsOfTheWholeFactorisation) {
  const Problem p = loops_side_by_side();
  const auto rows = std::uint32_t(loop_of_nodes().a.rows());
  BlockLdlt whole, parts;
  whole.analyse(p.node_begin, p.coupled);
  parts.analyse(p.node_begin, p.coupled);
  fill(whole, p);
  fill(parts, p);
  ASSERT_TRUE(whole.factorize());
  for (std::uint32_t l = k_loops; l-- > 0;) {
    std::vector<double> scratch(parts.scratch_size());
    ASSERT_TRUE(parts.factorize_nodes(positions_of_rows(parts, l * rows, (l + 1) * rows), scratch));
  }
  ASSERT_EQ(whole.values().size(), parts.values().size());
  for (std::size_t v = 0; v < whole.values().size(); ++v)
    EXPECT_EQ(std::memcmp(&whole.values()[v], &parts.values()[v], sizeof(double)), 0) << v;
}

// Each loop solved alone, over its own nodes' positions (consecutive), and the first and last
// together (positions with a gap), get the bits of the solve over every node and leave the other
// rows as they were.
TEST(BlockLdlt, APartCoupledWithNoOtherNodeSolvesAloneWithTheBitsOfTheWholeSolve) {
  const Problem p = loops_side_by_side();
  const auto rows = std::uint32_t(loop_of_nodes().a.rows());
  BlockLdlt ldlt;
  ldlt.analyse(p.node_begin, p.coupled);
  fill(ldlt, p);
  ASSERT_TRUE(ldlt.factorize());
  std::vector<double> b(k_loops * rows);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = double(i % 7) - 3;
  std::vector<double> whole = b;
  ldlt.solve(whole, positions_of_rows(ldlt, 0, k_loops * rows));
  const auto loop_positions = [&](std::uint32_t l) {
    return positions_of_rows(ldlt, l * rows, (l + 1) * rows);
  };
  std::vector<std::uint32_t> first_and_last = loop_positions(0);
  for (const std::uint32_t position : loop_positions(2))
    first_and_last.push_back(position);
  std::sort(first_and_last.begin(), first_and_last.end());
  const std::vector<std::pair<std::vector<std::uint32_t>, std::vector<bool>>> cases{
      {loop_positions(0), {true, false, false}},
      {loop_positions(1), {false, true, false}},
      {loop_positions(2), {false, false, true}},
      {first_and_last, {true, false, true}}};
  for (const auto& [positions, solved] : cases) {
    std::vector<double> x = b;
    ldlt.solve(x, positions);
    for (std::uint32_t i = 0; i < k_loops * rows; ++i) {
      const double expected = solved[i / rows] ? whole[i] : b[i];
      EXPECT_EQ(std::memcmp(&x[i], &expected, sizeof(double)), 0)
          << positions.size() << " nodes from " << positions.front() << ", row " << i;
    }
  }
  // The first and last loops' nodes are not consecutive: the list, not a count, is walked.
  EXPECT_NE(first_and_last.back() - first_and_last.front() + 1, first_and_last.size());
}

// Two random trees of nodes of 1 to 6 rows, their nodes interleaved (node k in tree k % 2): the
// minimum degree order eliminates leaves first, so the factor holds A's blocks and no more (a
// tree of joints factors with no fill), each tree's nodes take consecutive positions, and the solve
// matches a dense one.
TEST(BlockLdlt, TreesFactorWithNoFillEachInConsecutivePositions) {
  std::mt19937 random(11);
  Problem p;
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t k = 0; k < 40; ++k) {
    sizes.push_back(1 + std::uint32_t(random() % 6));
    p.node_begin.push_back(p.node_begin.back() + sizes.back());
    if (k >= 2) p.coupled.emplace_back(k, k % 2 + 2 * std::uint32_t(random() % (k / 2)));
  }
  for (std::uint32_t k = 0; k < sizes.size(); ++k)
    p.coupled.emplace_back(k, k);
  std::size_t blocks = 0;
  for (const auto& [x, y] : p.coupled)
    blocks += sizes[x] * sizes[y];
  const auto n = Eigen::Index(p.node_begin.back());
  p.a = spd_matrix_of(p, random);
  BlockLdlt ldlt;
  ldlt.analyse(p.node_begin, p.coupled);
  EXPECT_EQ(ldlt.values().size(), blocks);
  for (std::uint32_t tree = 0; tree < 2; ++tree) {
    std::vector<std::uint32_t> positions;
    for (std::uint32_t k = tree; k < sizes.size(); k += 2)
      positions.push_back(ldlt.position_of_row(p.node_begin[k]));
    std::sort(positions.begin(), positions.end());
    EXPECT_EQ(positions.back() - positions.front() + 1, positions.size()) << "tree " << tree;
  }
  fill(ldlt, p);
  ASSERT_TRUE(ldlt.factorize());
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i)
    b[i] = double(i % 3) - 1;
  const Eigen::VectorXd expected = p.a.ldlt().solve(b);
  std::vector<double> x(b.data(), b.data() + n);
  ldlt.solve(x, positions_of_rows(ldlt, 0, std::uint32_t(n)));
  for (Eigen::Index i = 0; i < n; ++i)
    EXPECT_NEAR(x[std::size_t(i)], expected[i], 1e-9) << "row " << i;
}

// `parts` copies of one random tree of 12 nodes of 1 to 6 rows side by side (part p's nodes and
// rows after part p - 1's), then a part of another shape (the tree's first node one row larger):
// no entry couples two parts, and each coupled pair gets its own random values.
Problem trees_side_by_side(std::uint32_t parts) {
  std::mt19937 random(17);
  constexpr std::uint32_t k_nodes = 12;
  std::vector<std::uint32_t> sizes, parent;
  for (std::uint32_t k = 0; k < k_nodes; ++k) {
    sizes.push_back(1 + std::uint32_t(random() % 6));
    parent.push_back(k == 0 ? 0 : std::uint32_t(random() % k));
  }
  Problem p;
  for (std::uint32_t part = 0; part <= parts; ++part) {
    const auto first = std::uint32_t(p.node_begin.size() - 1);
    for (std::uint32_t k = 0; k < k_nodes; ++k) {
      const std::uint32_t size = sizes[k] + (part == parts && k == 0 ? 1 : 0);
      p.node_begin.push_back(p.node_begin.back() + std::min(size, BlockLdlt::k_max_node));
      p.coupled.emplace_back(first + k, first + k);
      if (k > 0) p.coupled.emplace_back(first + k, first + parent[k]);
    }
  }
  p.a = spd_matrix_of(p, random);
  return p;
}

// Parts that factor alike (the scene's identical ragdolls) are found so, and factored and solved
// two to k_lanes at a time in lanes each get the bits of their factorisation and solve alone
// (the lanes past the parts repeating the first); a part of another shape, or one whose nodes are
// not consecutive, is not taken for them, and a lane whose block is not positive definite fails
// the factorisation.
TEST(BlockLdlt, PartsThatFactorAlikeFactorAndSolveInLanesWithTheBitsOfEachAlone) {
  constexpr auto k_parts = std::uint32_t(BlockLdlt::k_lanes);
  const Problem p = trees_side_by_side(k_parts);
  const std::uint32_t part_rows = p.node_begin[12];
  BlockLdlt ldlt;
  ldlt.analyse(p.node_begin, p.coupled);
  fill(ldlt, p);
  BlockLdlt factored = ldlt;
  ASSERT_TRUE(factored.factorize());
  std::vector<std::vector<std::uint32_t>> positions;
  for (std::uint32_t part = 0; part <= k_parts; ++part)
    positions.push_back(
        positions_of_rows(ldlt, p.node_begin[12 * part], p.node_begin[12 * (part + 1)]));
  for (std::uint32_t part = 1; part < k_parts; ++part)
    EXPECT_TRUE(ldlt.same_shape(positions[0], positions[part])) << "part " << part;
  EXPECT_FALSE(ldlt.same_shape(positions[0], positions[k_parts]));
  std::vector<std::uint32_t> gapped = positions[1];
  gapped.back() = positions[2].back();
  EXPECT_FALSE(ldlt.same_shape(positions[0], gapped));
  EXPECT_EQ(ldlt.part_rows(positions[2]), std::make_pair(2 * part_rows, part_rows));

  std::vector<double> b(p.node_begin.back());
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = double(i % 7) - 3 + 0.01 * double(i);
  std::vector<double> alone = b;
  for (std::uint32_t part = 0; part < k_parts; ++part)
    factored.solve(alone, positions[part]);
  const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof(double)) == 0; };
  std::vector<BlockLdlt::LaneValue> scratch(ldlt.scratch_size());
  for (std::uint32_t count = 2; count <= k_parts; ++count) {
    std::vector<std::span<const std::uint32_t>> lanes;
    for (std::uint32_t part = k_parts - count; part < k_parts; ++part)
      lanes.emplace_back(positions[part]);
    const auto part_in = [&](std::uint32_t l) { return k_parts - count + (l < count ? l : 0); };
    std::vector<BlockLdlt::LaneValue> packed(ldlt.part_values(lanes[0])), expected(packed.size());
    ldlt.pack_lanes(lanes, packed);  // A's values
    ASSERT_TRUE(ldlt.factorize_lanes(lanes[0], packed, scratch));
    factored.pack_lanes(lanes, expected);  // the factor's
    for (std::size_t v = 0; v < packed.size(); ++v) {
      for (std::uint32_t l = 0; l < BlockLdlt::k_lanes; ++l)
        EXPECT_TRUE(same(packed[v][l], expected[v][l])) << count << " lanes: value " << v;
    }
    std::vector<BlockLdlt::LaneValue> x(part_rows);
    for (std::uint32_t r = 0; r < part_rows; ++r) {
      for (std::uint32_t l = 0; l < BlockLdlt::k_lanes; ++l)
        x[r][l] = b[part_in(l) * part_rows + r];
    }
    ldlt.solve_lanes(x, lanes[0], packed);
    for (std::uint32_t l = 0; l < BlockLdlt::k_lanes; ++l) {
      for (std::uint32_t r = 0; r < part_rows; ++r)
        EXPECT_TRUE(same(x[r][l], alone[part_in(l) * part_rows + r]))
            << count << " lanes, lane " << l << ", row " << r;
    }
  }
  // Part 2's first diagonal entry made negative: its lane fails, the others' would not.
  std::vector<std::span<const std::uint32_t>> lanes(positions.begin(), positions.begin() + k_parts);
  std::vector<BlockLdlt::LaneValue> packed(ldlt.part_values(lanes[0]));
  ldlt.values()[ldlt.slot(2 * part_rows, 2 * part_rows)] = -1;
  ldlt.pack_lanes(lanes, packed);
  EXPECT_FALSE(ldlt.factorize_lanes(lanes[0], packed, scratch));
}

TEST(BlockLdlt, RefusesAMatrixThatIsNotPositiveDefinite) {
  Problem p = loop_of_nodes();
  p.a(4, 4) = -1;  // in node 2's diagonal block
  BlockLdlt ldlt;
  ldlt.analyse(p.node_begin, p.coupled);
  fill(ldlt, p);
  EXPECT_FALSE(ldlt.factorize());
}

TEST(BlockLdlt, RefusesANodeOfNoRowsOrMoreThanSix) {
  BlockLdlt ldlt;
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> coupled{{0, 1}};
  const std::vector<std::uint32_t> seven{0, 3, 10}, empty{0, 3, 3}, six{0, 3, 9};
  EXPECT_THROW(ldlt.analyse(seven, coupled), std::invalid_argument);
  EXPECT_THROW(ldlt.analyse(empty, coupled), std::invalid_argument);
  EXPECT_NO_THROW(ldlt.analyse(six, coupled));
}

}  // namespace
}  // namespace impulse
