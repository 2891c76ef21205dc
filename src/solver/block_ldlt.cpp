#include "solver/block_ldlt.h"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace impulse {
namespace {

// The n x n row-major symmetric positive definite block at d (lower triangle read) replaced by its
// inverse (whole), through its Cholesky factor: false when a pivot is not positive and finite.
template <std::uint32_t N>
bool invert_spd(double* d) {
  double c[N][N] = {};
  for (std::uint32_t j = 0; j < N; ++j) {
    double pivot = d[j * N + j];
    for (std::uint32_t k = 0; k < j; ++k)
      pivot -= c[j][k] * c[j][k];
    if (!(pivot > 0) || !std::isfinite(pivot)) return false;
    c[j][j] = std::sqrt(pivot);
    for (std::uint32_t i = j + 1; i < N; ++i) {
      double v = d[i * N + j];
      for (std::uint32_t k = 0; k < j; ++k)
        v -= c[i][k] * c[j][k];
      c[i][j] = v / c[j][j];
    }
  }
  double inverse[N][N] = {};  // C^-1, lower triangular
  for (std::uint32_t j = 0; j < N; ++j) {
    inverse[j][j] = 1 / c[j][j];
    for (std::uint32_t i = j + 1; i < N; ++i) {
      double v = 0;
      for (std::uint32_t k = j; k < i; ++k)
        v -= c[i][k] * inverse[k][j];
      inverse[i][j] = v / c[i][i];
    }
  }
  for (std::uint32_t i = 0; i < N; ++i) {  // D^-1 = C^-T C^-1
    for (std::uint32_t j = 0; j <= i; ++j) {
      double v = 0;
      for (std::uint32_t k = i; k < N; ++k)
        v += inverse[k][i] * inverse[k][j];
      d[i * N + j] = d[j * N + i] = v;
    }
  }
  return true;
}

// y <- y - block x for an M x N row-major block.
template <std::uint32_t N, std::uint32_t M>
void subtract_product(const double* block, const double* x, double* y) {
  for (std::uint32_t a = 0; a < M; ++a) {
    double sum = 0;
    for (std::uint32_t k = 0; k < N; ++k)
      sum += block[a * N + k] * x[k];
    y[a] -= sum;
  }
}

// y <- y - block^T x for an M x N row-major block.
template <std::uint32_t N, std::uint32_t M>
void subtract_transposed_product(const double* block, const double* x, double* y) {
  for (std::uint32_t a = 0; a < M; ++a) {
    for (std::uint32_t k = 0; k < N; ++k)
      y[k] -= block[a * N + k] * x[a];
  }
}

// f.template operator()<N>() for the node size n (1 to BlockLdlt::k_max_node), so that the
// kernels' inner loops have a size the compiler knows.
template <class F>
auto by_size(std::uint32_t n, const F& f) {
  switch (n) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 3:
      return f.template operator()<3>();
    case 4:
      return f.template operator()<4>();
    case 5:
      return f.template operator()<5>();
    default:
      return f.template operator()<6>();
  }
}

}  // namespace

void BlockLdlt::analyse(std::span<const std::uint32_t> node_begin,
                        std::span<const std::pair<std::uint32_t, std::uint32_t>> coupled) {
  const std::size_t n = node_begin.size() - 1;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t rows = node_begin[k + 1] - node_begin[k];
    if (rows == 0 || rows > k_max_node)
      throw std::invalid_argument("BlockLdlt: a node holds 1 to k_max_node rows");
  }
  node_of_row_.resize(node_begin.back());
  for (std::uint32_t k = 0; k < n; ++k)
    std::fill(node_of_row_.begin() + node_begin[k], node_of_row_.begin() + node_begin[k + 1], k);
  // The order AMD finds on the graph of nodes.
  std::vector<Eigen::Triplet<double>> pattern;
  pattern.reserve(coupled.size() + n);
  for (std::uint32_t k = 0; k < n; ++k)
    pattern.emplace_back(k, k, 1.0);
  for (const auto& [a, b] : coupled) {
    if (a != b) pattern.emplace_back(std::max(a, b), std::min(a, b), 1.0);
  }
  const auto nodes = Eigen::Index(n);
  Eigen::SparseMatrix<double> graph(nodes, nodes);
  graph.setFromTriplets(pattern.begin(), pattern.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> inverse;
  Eigen::AMDOrdering<int>()(graph.selfadjointView<Eigen::Lower>(), inverse);
  const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> order = inverse.inverse();
  position_of_.assign(order.indices().data(), order.indices().data() + n);
  // Each position's later neighbours, then the fill: eliminating a node couples all of them.
  std::vector<std::vector<std::uint32_t>> later(n);
  for (const auto& [a, b] : coupled) {
    const std::uint32_t p = position_of_[a], q = position_of_[b];
    if (p != q) later[std::min(p, q)].push_back(std::max(p, q));
  }
  std::vector<std::uint32_t> merged;
  for (std::size_t p = 0; p < n; ++p) {
    std::sort(later[p].begin(), later[p].end());
    later[p].erase(std::unique(later[p].begin(), later[p].end()), later[p].end());
    for (std::size_t i = 0; i < later[p].size(); ++i) {
      std::vector<std::uint32_t>& target = later[later[p][i]];
      std::sort(target.begin(), target.end());
      merged.clear();
      std::set_union(target.begin(), target.end(), later[p].begin() + std::ptrdiff_t(i) + 1,
                     later[p].end(), std::back_inserter(merged));
      target.swap(merged);
    }
  }
  // The blocks' places.
  std::vector<std::uint32_t> node_at(n);
  for (std::uint32_t k = 0; k < n; ++k)
    node_at[position_of_[k]] = k;
  nodes_.resize(n);
  below_.clear();
  std::uint32_t size = 0;
  for (std::size_t p = 0; p < n; ++p) {
    Node& node = nodes_[p];
    node.first_row = node_begin[node_at[p]];
    node.rows = node_begin[node_at[p] + 1] - node.first_row;
    node.diagonal = size;
    size += node.rows * node.rows;
  }
  std::size_t scratch = 0;
  for (std::size_t p = 0; p < n; ++p) {
    Node& node = nodes_[p];
    node.below_begin = std::uint32_t(below_.size());
    std::size_t blocks = 0;
    for (const std::uint32_t q : later[p]) {
      below_.push_back({q, size});
      size += nodes_[q].rows * node.rows;
      blocks += nodes_[q].rows * node.rows;
    }
    node.below_end = std::uint32_t(below_.size());
    scratch = std::max(scratch, blocks);
  }
  values_.assign(size, 0.0);
  scratch_.resize(scratch);
  // Each Schur update's target: block (w, v) for v before w (or v's diagonal) below each node.
  const auto block = [&](std::uint32_t column, std::uint32_t row) {
    const Node& c = nodes_[column];
    const auto at =
        std::lower_bound(below_.begin() + c.below_begin, below_.begin() + c.below_end, row,
                         [](const Below& b, std::uint32_t r) { return b.node < r; });
    return at->offset;
  };
  updates_.clear();
  for (std::size_t p = 0; p < n; ++p) {
    const Node& node = nodes_[p];
    for (std::uint32_t i = node.below_begin; i < node.below_end; ++i) {
      const std::uint32_t v = below_[i].node;
      updates_.push_back(nodes_[v].diagonal);
      for (std::uint32_t j = i + 1; j < node.below_end; ++j)
        updates_.push_back(block(v, below_[j].node));
    }
  }
}

std::uint32_t BlockLdlt::slot(std::uint32_t i, std::uint32_t j) const {
  const std::uint32_t p = position_of_[node_of_row_[i]], q = position_of_[node_of_row_[j]];
  const Node &np = nodes_[p], &nq = nodes_[q];
  const std::uint32_t li = i - np.first_row, lj = j - nq.first_row;
  if (p == q) return np.diagonal + std::max(li, lj) * np.rows + std::min(li, lj);
  // Block (later, earlier): the later node's rows by the earlier's.
  const Node& earlier = p < q ? np : nq;
  const std::uint32_t later = std::max(p, q);
  const auto at =
      std::lower_bound(below_.begin() + earlier.below_begin, below_.begin() + earlier.below_end,
                       later, [](const Below& b, std::uint32_t r) { return b.node < r; });
  return p > q ? at->offset + li * nq.rows + lj : at->offset + lj * np.rows + li;
}

bool BlockLdlt::factorize() {
  const std::uint32_t* update = updates_.data();
  for (const Node& node : nodes_) {
    if (!by_size(node.rows, [&]<std::uint32_t N>() { return factor_node<N>(node, update); }))
      return false;
  }
  return true;
}

// Node `node` of the factorisation: its diagonal block inverted, its blocks below become
// L = W D^-1 (W as found), and the later nodes' blocks lose L_w W_v^T (the Schur complement).
template <std::uint32_t N>
bool BlockLdlt::factor_node(const Node& node, const std::uint32_t*& update) {
  double* values = values_.data();
  double* d_inverse = values + node.diagonal;
  if (!invert_spd<N>(d_inverse)) return false;
  std::uint32_t kept = 0;
  for (std::uint32_t b = node.below_begin; b < node.below_end; ++b) {
    const std::uint32_t m = nodes_[below_[b].node].rows;
    double* block = values + below_[b].offset;
    std::copy(block, block + m * N, scratch_.data() + kept);
    for (std::uint32_t r = 0; r < m; ++r) {
      double* row = block + r * N;
      double w[N];
      std::copy(row, row + N, w);
      for (std::uint32_t c = 0; c < N; ++c) {
        double v = 0;
        for (std::uint32_t k = 0; k < N; ++k)
          v += w[k] * d_inverse[k * N + c];
        row[c] = v;
      }
    }
    kept += m * N;
  }
  std::uint32_t w_v = 0;
  for (std::uint32_t i = node.below_begin; i < node.below_end; ++i) {
    const std::uint32_t mv = nodes_[below_[i].node].rows;
    const double* wv = scratch_.data() + w_v;
    for (std::uint32_t j = i; j < node.below_end; ++j) {
      const std::uint32_t mw = nodes_[below_[j].node].rows;
      const double* lw = values + below_[j].offset;
      double* target = values + *update++;
      for (std::uint32_t a = 0; a < mw; ++a) {
        for (std::uint32_t b = 0; b < (i == j ? a + 1 : mv); ++b) {
          double sum = 0;
          for (std::uint32_t k = 0; k < N; ++k)
            sum += lw[a * N + k] * wv[b * N + k];
          target[a * mv + b] -= sum;
        }
      }
    }
    w_v += mv * N;
  }
  return true;
}

void BlockLdlt::solve(std::span<double> x, std::span<const std::uint32_t> positions) const {
  if (positions.empty()) return;
  // Consecutive positions (the whole block in one component, a chain) as a count, not a list.
  const std::uint32_t first = positions.front();
  if (positions.back() - first + 1 == positions.size())
    solve_nodes(x.data(), positions.size(),
                [nodes = nodes_.data() + first](std::size_t k) -> const Node& { return nodes[k]; });
  else
    solve_nodes(x.data(), positions.size(),
                [&](std::size_t k) -> const Node& { return nodes_[positions[k]]; });
}

template <class NthNode>
void BlockLdlt::solve_nodes(double* x, std::size_t count, const NthNode& nth_node) const {
  const double* values = values_.data();
  for (std::size_t n = 0; n < count; ++n) {  // L y = x
    const Node& node = nth_node(n);
    by_size(node.rows, [&]<std::uint32_t N>() {
      const double* y = x + node.first_row;
      for (std::uint32_t b = node.below_begin; b < node.below_end; ++b) {
        const Node& later = nodes_[below_[b].node];
        by_size(later.rows, [&]<std::uint32_t M>() {
          subtract_product<N, M>(values + below_[b].offset, y, x + later.first_row);
        });
      }
    });
  }
  for (std::size_t n = 0; n < count; ++n) {  // z = D^-1 y
    const Node& node = nth_node(n);
    by_size(node.rows, [&]<std::uint32_t N>() {
      double* y = x + node.first_row;
      double z[N];
      std::copy(y, y + N, z);
      const double* d_inverse = values + node.diagonal;
      for (std::uint32_t i = 0; i < N; ++i) {
        double v = 0;
        for (std::uint32_t k = 0; k < N; ++k)
          v += d_inverse[i * N + k] * z[k];
        y[i] = v;
      }
    });
  }
  for (std::size_t n = count; n-- > 0;) {  // L^T x = z
    const Node& node = nth_node(n);
    by_size(node.rows, [&]<std::uint32_t N>() {
      double* xp = x + node.first_row;
      for (std::uint32_t b = node.below_begin; b < node.below_end; ++b) {
        const Node& later = nodes_[below_[b].node];
        by_size(later.rows, [&]<std::uint32_t M>() {
          subtract_transposed_product<N, M>(values + below_[b].offset, x + later.first_row, xp);
        });
      }
    });
  }
}

}  // namespace impulse
