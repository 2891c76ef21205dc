// BlockLdlt (solver/block_ldlt.h): the solve of A x = b for a sparse SPD matrix in dense blocks
// matches a dense factorisation, with fill (a loop of nodes) and every node size from 1 to 6; a
// part that no entry couples with the rest solves alone with the whole solve's bits; a block that
// is not positive definite is refused, and so is a node of no rows or more than 6.

#include "solver/block_ldlt.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cstring>
#include <random>
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
  const auto n = Eigen::Index(p.node_begin.back());
  std::mt19937 random(5);
  std::uniform_real_distribution<double> value(-1, 1);
  p.a = Eigen::MatrixXd::Identity(n, n);
  // Each coupling adds C C^T of a random column block C over the two nodes' rows: SPD, and
  // non-zero only inside coupled blocks.
  for (const auto& [x, y] : p.coupled) {
    Eigen::VectorXd c = Eigen::VectorXd::Zero(n);
    for (const std::uint32_t node : {x, y}) {
      for (std::uint32_t i = p.node_begin[node]; i < p.node_begin[node + 1]; ++i)
        c[i] = value(random);
    }
    p.a += c * c.transpose();
  }
  return p;
}

void fill(BlockLdlt& ldlt, const Problem& p) {
  for (Eigen::Index i = 0; i < p.a.rows(); ++i) {
    for (Eigen::Index j = 0; j <= i; ++j) {
      if (p.a(i, j) != 0) ldlt.values()[ldlt.slot(std::uint32_t(i), std::uint32_t(j))] += p.a(i, j);
    }
  }
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
    ldlt.solve(x);
    for (Eigen::Index i = 0; i < b.size(); ++i)
      EXPECT_NEAR(x[std::size_t(i)], expected[i], 1e-9) << "row " << i;
  }
}

// Two loops of nodes side by side, no entry coupling them: each solved alone, over its own nodes'
// positions, gets the bits of the whole solve and leaves the other's rows as they were.
TEST(BlockLdlt, APartCoupledWithNoOtherNodeSolvesAloneWithTheBitsOfTheWholeSolve) {
  const Problem loop = loop_of_nodes();
  const auto nodes = std::uint32_t(loop.node_begin.size() - 1);
  const auto rows = std::uint32_t(loop.a.rows());
  Problem p;  // the loop twice, the second's nodes and rows after the first's
  p.node_begin = loop.node_begin;
  for (std::uint32_t k = 1; k <= nodes; ++k)
    p.node_begin.push_back(rows + loop.node_begin[k]);
  for (const auto& [x, y] : loop.coupled) {
    p.coupled.emplace_back(x, y);
    p.coupled.emplace_back(x + nodes, y + nodes);
  }
  p.a = Eigen::MatrixXd::Zero(2 * rows, 2 * rows);
  p.a.topLeftCorner(rows, rows) = loop.a;
  p.a.bottomRightCorner(rows, rows) = 2 * loop.a;
  BlockLdlt ldlt;
  ldlt.analyse(p.node_begin, p.coupled);
  fill(ldlt, p);
  ASSERT_TRUE(ldlt.factorize());
  std::vector<double> b(2 * rows);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = double(i % 7) - 3;
  std::vector<double> whole = b;
  ldlt.solve(whole);
  for (std::uint32_t part = 0; part < 2; ++part) {
    std::vector<std::uint32_t> positions;
    for (std::uint32_t i = part * rows; i < (part + 1) * rows; ++i)
      positions.push_back(ldlt.position_of_row(i));
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    ASSERT_EQ(positions.size(), nodes);
    std::vector<double> x = b;
    ldlt.solve(x, positions);
    for (std::uint32_t i = 0; i < 2 * rows; ++i) {
      const double expected = i / rows == part ? whole[i] : b[i];
      EXPECT_EQ(std::memcmp(&x[i], &expected, sizeof(double)), 0)
          << "part " << part << " row " << i;
    }
  }
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
