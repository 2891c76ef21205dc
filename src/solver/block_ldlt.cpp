#include "solver/block_ldlt.h"

#include "solver/spd_inverse.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace impulse {
namespace {

// y <- y - block x for an M x N row-major block. T: double, or BlockLdlt::LaneValue (each lane
// computed as the double is).
template <std::uint32_t N, std::uint32_t M, class T>
[[gnu::always_inline]] inline void subtract_product(const T* block, const T* x, T* y) {
  for (std::uint32_t a = 0; a < M; ++a) {
    T sum{};
    for (std::uint32_t k = 0; k < N; ++k)
      sum += block[a * N + k] * x[k];
    y[a] -= sum;
  }
}

// y <- y - block^T x for an M x N row-major block.
template <std::uint32_t N, std::uint32_t M, class T>
[[gnu::always_inline]] inline void subtract_transposed_product(const T* block, const T* x, T* y) {
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
  order(coupled, n);
  // The blocks' places.
  nodes_.resize(n);
  below_.clear();
  std::uint32_t size = 0;
  for (std::size_t p = 0; p < n; ++p) {
    Node& node = nodes_[p];
    node.first_row = node_begin[node_at_[p]];
    node.rows = node_begin[node_at_[p] + 1] - node.first_row;
    node.diagonal = size;
    size += node.rows * node.rows;
  }
  std::size_t scratch = 0;
  for (std::size_t p = 0; p < n; ++p) {
    Node& node = nodes_[p];
    node.below_begin = std::uint32_t(below_.size());
    std::size_t blocks = 0;
    for (std::uint32_t c = column_begin_[p]; c < column_begin_[p + 1]; ++c) {
      const std::uint32_t q = column_[c];
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
    Node& node = nodes_[p];
    node.update_begin = std::uint32_t(updates_.size());
    for (std::uint32_t i = node.below_begin; i < node.below_end; ++i) {
      const std::uint32_t v = below_[i].node;
      updates_.push_back(nodes_[v].diagonal);
      for (std::uint32_t j = i + 1; j < node.below_end; ++j)
        updates_.push_back(block(v, below_[j].node));
    }
  }
}

// Minimum degree on the elimination graph, kept explicitly: eliminating a node joins its
// neighbours, which are then its factor column. The graphs are joints' (trees with a few loops),
// so the fill is small and exact degrees are cheap. Each connected component is eliminated whole
// before the next, so its positions are consecutive (solve() takes them as a count), and the
// lists live in one pool where a list that outgrows its place moves to the end: a component
// takes the same room whatever else is in the pattern, so a pattern of components seen before
// (islands waking and falling asleep) is ordered without allocating.
void BlockLdlt::order(std::span<const std::pair<std::uint32_t, std::uint32_t>> coupled,
                      std::size_t n) {
  constexpr std::uint32_t k_none = ~std::uint32_t(0);
  // The neighbour lists: counted, placed, sorted and made unique.
  lists_.assign(n, {});
  for (const auto& [a, b] : coupled) {
    if (a == b) continue;
    ++lists_[a].capacity;
    ++lists_[b].capacity;
  }
  std::uint32_t end = 0;
  for (List& list : lists_) {
    list.begin = end;
    end += list.capacity;
  }
  pool_.resize(end);
  for (const auto& [a, b] : coupled) {
    if (a == b) continue;
    pool_[lists_[a].begin + lists_[a].size++] = b;
    pool_[lists_[b].begin + lists_[b].size++] = a;
  }
  const auto neighbours = [&](std::uint32_t v) {
    return std::span(pool_).subspan(lists_[v].begin, lists_[v].size);
  };
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::span<std::uint32_t> list = neighbours(k);
    std::sort(list.begin(), list.end());
    lists_[k].size = std::uint32_t(std::unique(list.begin(), list.end()) - list.begin());
  }
  // Buckets of the component's nodes by degree: doubly linked, the newest first.
  bucket_head_.assign(n, k_none);
  bucket_next_.resize(n);
  bucket_prev_.resize(n);
  const auto insert = [&](std::uint32_t v) {
    const std::uint32_t d = lists_[v].size;
    bucket_prev_[v] = k_none;
    bucket_next_[v] = bucket_head_[d];
    if (bucket_head_[d] != k_none) bucket_prev_[bucket_head_[d]] = v;
    bucket_head_[d] = v;
  };
  const auto remove = [&](std::uint32_t v) {
    if (bucket_prev_[v] != k_none)
      bucket_next_[bucket_prev_[v]] = bucket_next_[v];
    else
      bucket_head_[lists_[v].size] = bucket_next_[v];
    if (bucket_next_[v] != k_none) bucket_prev_[bucket_next_[v]] = bucket_prev_[v];
  };
  constexpr std::uint32_t k_queued = k_none - 1;
  position_of_.assign(n, k_none);
  node_at_.clear();
  column_.clear();
  column_begin_.assign(1, 0);
  for (std::uint32_t seed = 0; seed < n; ++seed) {
    if (position_of_[seed] != k_none) continue;
    component_.assign(1, seed);
    position_of_[seed] = k_queued;
    for (std::size_t i = 0; i < component_.size(); ++i) {
      insert(component_[i]);
      for (const std::uint32_t u : neighbours(component_[i])) {
        if (position_of_[u] != k_none) continue;
        position_of_[u] = k_queued;
        component_.push_back(u);
      }
    }
    std::uint32_t least = 0;
    for (std::size_t left = component_.size(); left > 0; --left) {
      while (bucket_head_[least] == k_none)
        ++least;
      const std::uint32_t v = bucket_head_[least];
      remove(v);
      position_of_[v] = std::uint32_t(node_at_.size());
      node_at_.push_back(v);
      column_.insert(column_.end(), neighbours(v).begin(), neighbours(v).end());
      column_begin_.push_back(std::uint32_t(column_.size()));
      // Each neighbour u loses v and gains v's other neighbours (the column, kept in column_:
      // the pool may move).
      const std::uint32_t first = column_begin_[column_begin_.size() - 2];
      for (std::uint32_t c = first; c < column_.size(); ++c) {
        const std::uint32_t u = column_[c];
        remove(u);
        merged_.clear();
        const std::span<const std::uint32_t> list = neighbours(u);
        std::set_union(list.begin(), list.end(), column_.begin() + first, column_.end(),
                       std::back_inserter(merged_));
        std::erase_if(merged_, [&](std::uint32_t w) { return w == u || w == v; });
        List& place = lists_[u];
        if (merged_.size() > place.capacity) {
          place.capacity = std::max(std::uint32_t(merged_.size()), 2 * place.capacity);
          place.begin = std::uint32_t(pool_.size());
          pool_.resize(pool_.size() + place.capacity);
        }
        place.size = std::uint32_t(merged_.size());
        std::copy(merged_.begin(), merged_.end(), pool_.begin() + place.begin);
        insert(u);
        least = std::min(least, place.size);
      }
      lists_[v].size = 0;
    }
  }
  // The columns by position, ascending.
  for (std::uint32_t& q : column_)
    q = position_of_[q];
  for (std::size_t p = 0; p < n; ++p)
    std::sort(column_.begin() + column_begin_[p], column_.begin() + column_begin_[p + 1]);
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
  return std::all_of(nodes_.begin(), nodes_.end(), [&](const Node& node) {
    return factor(node, scratch_.data(), Values<double>{values_.data()});
  });
}

bool BlockLdlt::factorize_nodes(std::span<const std::uint32_t> positions,
                                std::span<double> scratch) {
  return std::all_of(positions.begin(), positions.end(), [&](std::uint32_t position) {
    return factor(nodes_[position], scratch.data(), Values<double>{values_.data()});
  });
}

bool BlockLdlt::factorize_lanes(std::span<const std::uint32_t> positions,
                                std::span<LaneValue> packed, std::span<LaneValue> scratch) const {
  const LaneValues<LaneValue> at{packed.data(), part_values_of(positions)};
  return std::all_of(positions.begin(), positions.end(), [&](std::uint32_t position) {
    return factor(nodes_[position], scratch.data(), at);
  });
}

template <class T, class At>
bool BlockLdlt::factor(const Node& node, T* scratch, const At& at) const {
  return by_size(node.rows, [&]<std::uint32_t N>() { return factor_node<N>(node, scratch, at); });
}

// Node `node` of the factorisation: its diagonal block inverted, its blocks below become
// L = W D^-1 (W as found), and the later nodes' blocks lose L_w W_v^T (the Schur complement).
template <std::uint32_t N, class T, class At>
bool BlockLdlt::factor_node(const Node& node, T* scratch, const At& at) const {
  const std::uint32_t* update = updates_.data() + node.update_begin;
  T* d_inverse = at.value(node.diagonal);
  if (!invert_spd<N>(d_inverse)) return false;
  std::uint32_t kept = 0;
  for (std::uint32_t b = node.below_begin; b < node.below_end; ++b) {
    const std::uint32_t m = nodes_[below_[b].node].rows;
    T* block = at.value(below_[b].offset);
    std::copy(block, block + m * N, scratch + kept);
    for (std::uint32_t r = 0; r < m; ++r) {
      T* row = block + r * N;
      T w[N];
      std::copy(row, row + N, w);
      for (std::uint32_t c = 0; c < N; ++c) {
        T v{};
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
    const T* wv = scratch + w_v;
    for (std::uint32_t j = i; j < node.below_end; ++j) {
      const std::uint32_t mw = nodes_[below_[j].node].rows;
      const T* lw = at.value(below_[j].offset);
      T* target = at.value(*update++);
      for (std::uint32_t a = 0; a < mw; ++a) {
        for (std::uint32_t b = 0; b < (i == j ? a + 1 : mv); ++b) {
          T sum{};
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
  struct Place : Values<const double> {
    double* x;
    double* at(const Node& node) const { return x + node.first_row; }
  };
  // Consecutive positions (the whole block in one component, a chain) as a count, not a list.
  const std::uint32_t first = positions.front();
  if (positions.back() - first + 1 == positions.size()) {
    struct Consecutive : Place {
      const Node* nodes;
      const Node& node(std::size_t k) const { return nodes[k]; }
    };
    solve_nodes<double>(positions.size(),
                        Consecutive{{{values_.data()}, x.data()}, nodes_.data() + first});
  } else {
    struct Listed : Place {
      const Node* nodes;
      std::span<const std::uint32_t> positions;
      const Node& node(std::size_t k) const { return nodes[positions[k]]; }
    };
    solve_nodes<double>(positions.size(),
                        Listed{{{values_.data()}, x.data()}, nodes_.data(), positions});
  }
}

bool BlockLdlt::same_shape(std::span<const std::uint32_t> a,
                           std::span<const std::uint32_t> b) const {
  const auto consecutive = [](std::span<const std::uint32_t> p) {
    return !p.empty() && p.back() - p.front() + 1 == p.size();
  };
  if (a.size() != b.size() || !consecutive(a) || !consecutive(b)) return false;
  const std::uint32_t a_first = part_rows(a).first, b_first = part_rows(b).first;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const Node &x = nodes_[a.front() + k], &y = nodes_[b.front() + k];
    if (x.rows != y.rows || x.first_row - a_first != y.first_row - b_first ||
        x.below_end - x.below_begin != y.below_end - y.below_begin)
      return false;
    for (std::uint32_t i = 0; i < x.below_end - x.below_begin; ++i) {
      if (below_[x.below_begin + i].node - a.front() != below_[y.below_begin + i].node - b.front())
        return false;
    }
  }
  return true;
}

BlockLdlt::PartValues BlockLdlt::part_values_of(std::span<const std::uint32_t> positions) const {
  const Node &first = nodes_[positions.front()], &last = nodes_[positions.back()];
  PartValues v{first.diagonal, last.diagonal + last.rows * last.rows, 0, 0};
  for (const std::uint32_t p : positions) {
    const Node& node = nodes_[p];
    if (node.below_begin == node.below_end) continue;
    const Below& end = below_[node.below_end - 1];
    if (v.below_begin == v.below_end) v.below_begin = below_[node.below_begin].offset;
    v.below_end = end.offset + nodes_[end.node].rows * node.rows;
  }
  return v;
}

std::size_t BlockLdlt::part_values(std::span<const std::uint32_t> positions) const {
  const PartValues v = part_values_of(positions);
  return (v.diagonal_end - v.diagonal_begin) + (v.below_end - v.below_begin);
}

std::pair<std::uint32_t, std::uint32_t> BlockLdlt::part_rows(
    std::span<const std::uint32_t> positions) const {
  std::uint32_t begin = ~std::uint32_t(0), end = 0;
  for (const std::uint32_t p : positions) {
    begin = std::min(begin, nodes_[p].first_row);
    end = std::max(end, nodes_[p].first_row + nodes_[p].rows);
  }
  return {begin, end - begin};
}

void BlockLdlt::pack_lanes(std::span<const std::span<const std::uint32_t>> lanes,
                           std::span<LaneValue> out) const {
  for (std::size_t l = 0; l < k_lanes; ++l) {
    const PartValues v = part_values_of(lanes[l < lanes.size() ? l : 0]);
    std::size_t o = 0;
    for (std::uint32_t i = v.diagonal_begin; i < v.diagonal_end; ++i)
      out[o++][l] = values_[i];
    for (std::uint32_t i = v.below_begin; i < v.below_end; ++i)
      out[o++][l] = values_[i];
  }
}

void BlockLdlt::solve_lanes(std::span<LaneValue> x, std::span<const std::uint32_t> positions,
                            std::span<const LaneValue> packed) const {
  // The part's rows from its first, its values as packed.
  struct Place : LaneValues<const LaneValue> {
    const Node* nodes;
    LaneValue* x;
    std::uint32_t first_row;
    const Node& node(std::size_t k) const { return nodes[k]; }
    LaneValue* at(const Node& node) const { return x + (node.first_row - first_row); }
  };
  solve_nodes<LaneValue>(positions.size(), Place{{packed.data(), part_values_of(positions)},
                                                 nodes_.data() + positions.front(),
                                                 x.data(),
                                                 part_rows(positions).first});
}

template <class T, class Place>
void BlockLdlt::solve_nodes(std::size_t count, const Place& place) const {
  // L y = x, and z = D^-1 y node by node: a node's y is final once the nodes before it are
  // done (only they reach it), and it has then given the later nodes their share.
  for (std::size_t n = 0; n < count; ++n) {
    const Node& node = place.node(n);
    by_size(node.rows, [&]<std::uint32_t N>() {
      T* y = place.at(node);
      for (std::uint32_t b = node.below_begin; b < node.below_end; ++b) {
        const Node& later = nodes_[below_[b].node];
        by_size(later.rows, [&]<std::uint32_t M>() {
          subtract_product<N, M>(place.value(below_[b].offset), y, place.at(later));
        });
      }
      T z[N];
      std::copy(y, y + N, z);
      const T* d_inverse = place.value(node.diagonal);
      for (std::uint32_t i = 0; i < N; ++i) {
        T v{};
        for (std::uint32_t k = 0; k < N; ++k)
          v += d_inverse[i * N + k] * z[k];
        y[i] = v;
      }
    });
  }
  for (std::size_t n = count; n-- > 0;) {  // L^T x = z
    const Node& node = place.node(n);
    by_size(node.rows, [&]<std::uint32_t N>() {
      T* xp = place.at(node);
      for (std::uint32_t b = node.below_begin; b < node.below_end; ++b) {
        const Node& later = nodes_[below_[b].node];
        by_size(later.rows, [&]<std::uint32_t M>() {
          subtract_transposed_product<N, M>(place.value(below_[b].offset), place.at(later), xp);
        });
      }
    });
  }
}

}  // namespace impulse
