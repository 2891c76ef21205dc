#pragma once
// A sparse symmetric positive definite matrix in small dense blocks (a joint's rows: 1 to 6), its
// block factorisation A = L D L^T (D's blocks kept inverted: a solve multiplies) and solves with
// it, for the equality block (equality_block.h). The fill-reducing order (minimum degree, on the
// graph of blocks) and the factor's structure are found once per pattern; a factorisation is then
// a fixed sequence of small dense products with no index search, and a solve three passes over the
// blocks. A tree of joints factors with no fill (Baraff 1996). Parts that factor alike (identical
// ragdolls) are factored and solved k_lanes at once in lanes of doubles, each lane with the bits of
// its part alone.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace impulse {

class BlockLdlt {
 public:
  /// The pattern: node k holds rows [node_begin[k], node_begin[k + 1]) (at most k_max_node rows),
  /// and the nodes of each pair in `coupled` share entries of A. Finds the order and the factor's
  /// structure; values() is then sized for them. Throws std::invalid_argument for a node of no
  /// rows or more than k_max_node.
  void analyse(std::span<const std::uint32_t> node_begin,
               std::span<const std::pair<std::uint32_t, std::uint32_t>> coupled);
  /// Where entry (i, j) of A is kept in values(), i >= j, their nodes coupled or the same.
  std::uint32_t slot(std::uint32_t i, std::uint32_t j) const;
  /// A's entries (set through slot; every other value zero), then the factor's after factorize.
  std::span<double> values() { return values_; }
  /// Factors A in place; false when a pivot block is not positive definite (Eigen's LDL^T, used
  /// before, went on past a negative pivot; the equality block now leaves its rows to
  /// Gauss-Seidel).
  bool factorize();
  /// factorize for the nodes at `positions` (strictly ascending) when no entry of A couples them
  /// with any other node (a component of the block, as for solve): their values get the bits
  /// factorize gives them, and no other value is read or written. scratch: scratch_size() doubles
  /// of the caller's, so that components are factored on several threads at once.
  bool factorize_nodes(std::span<const std::uint32_t> positions, std::span<double> scratch);
  std::size_t scratch_size() const { return scratch_.size(); }
  /// x <- A^-1 x for the rows of the nodes at `positions` (strictly ascending), when no entry of
  /// A couples them with any other node (every node, or a component of the block: EqualityBlock):
  /// x's other rows are neither read nor written, and these get the bits a solve over every node
  /// gives them.
  void solve(std::span<double> x, std::span<const std::uint32_t> positions) const;
  /// Parts solved k_lanes at once: lane l of each value is part l's. Four also where the build has
  /// AVX-512: eight did not measure faster on the peers' ten ragdolls (docs/performance.md).
  static constexpr std::size_t k_lanes = 4;
  using LaneValue = double __attribute__((vector_size(k_lanes * sizeof(double))));
  /// Whether the nodes at positions a and those at b (each a part that no entry of A couples with
  /// another node, as for solve) are consecutive and factor and lie alike: node by node the same
  /// sizes, the same blocks below and the same rows counted from the part's first, so that
  /// solve_lanes takes them together.
  bool same_shape(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) const;
  /// The values of such a part's factor (pack_lanes' out, per lane), and its rows: the first, and
  /// how many from it to its last (solve_lanes' x, per lane).
  std::size_t part_values(std::span<const std::uint32_t> positions) const;
  std::pair<std::uint32_t, std::uint32_t> part_rows(std::span<const std::uint32_t> positions) const;
  /// The values of parts of one shape (same_shape) in lanes, lane l holding part l's (lanes[l]):
  /// A's, for factorize_lanes, or the factor's. With fewer than k_lanes parts the last lanes
  /// repeat the first part's.
  void pack_lanes(std::span<const std::span<const std::uint32_t>> lanes,
                  std::span<LaneValue> out) const;
  /// factorize_nodes for parts of the shape of the part at `positions`, in lanes, from A's values
  /// as pack_lanes left them: each lane gets the bits factorize_nodes gives its part; false when
  /// a pivot block of some lane is not positive definite. scratch: scratch_size() of the caller's.
  bool factorize_lanes(std::span<const std::uint32_t> positions, std::span<LaneValue> packed,
                       std::span<LaneValue> scratch) const;
  /// solve for parts of the shape of the part at `positions`, in lanes: x's lane l holds part l's
  /// rows counted from its first (part_rows), packed its values (pack_lanes). Each lane gets the
  /// bits solve gives its part.
  void solve_lanes(std::span<LaneValue> x, std::span<const std::uint32_t> positions,
                   std::span<const LaneValue> packed) const;
  /// The position in the elimination order of the node holding row i.
  std::uint32_t position_of_row(std::uint32_t i) const { return position_of_[node_of_row_[i]]; }

  static constexpr std::uint32_t k_max_node = 6;

 private:
  // A node in elimination order: its rows, its dense diagonal block, and the off-diagonal blocks
  // of the later nodes it couples with (L's column), kept row-major (their rows by its rows).
  struct Node {
    std::uint32_t first_row = 0, rows = 0;
    std::uint32_t diagonal = 0;  // offset of its rows x rows block (lower triangle)
    std::uint32_t below_begin = 0, below_end = 0;  // its range in below_
    std::uint32_t update_begin = 0;                // its Schur updates' first target in updates_
  };
  struct Below {
    std::uint32_t node;    // a later node (position)
    std::uint32_t offset;  // of its rows x this node's rows block
  };

  // The elimination order (position_of_, node_at_) by minimum degree, and each position's factor
  // column (column_, column_begin_: the later positions it couples with, ascending).
  void order(std::span<const std::pair<std::uint32_t, std::uint32_t>> coupled, std::size_t n);
  // The values of a part (its nodes' positions consecutive): its diagonal blocks, then its blocks
  // below, each range consecutive (analyse places every diagonal block, then every block below,
  // in position order).
  struct PartValues {
    std::uint32_t diagonal_begin, diagonal_end, below_begin, below_end;
  };
  PartValues part_values_of(std::span<const std::uint32_t> positions) const;
  // Where values_[offset] is: in values_ itself, or in a part's lanes (pack_lanes). V: double or
  // LaneValue, const for a solve.
  template <class V>
  struct Values {
    V* values;
    V* value(std::uint32_t offset) const { return values + offset; }
  };
  template <class V>
  struct LaneValues {
    V* values;
    PartValues part;
    V* value(std::uint32_t offset) const {
      return values + (offset >= part.diagonal_end
                           ? offset - part.below_begin + (part.diagonal_end - part.diagonal_begin)
                           : offset - part.diagonal_begin);
    }
  };
  // Node `node` factored (factor_node of its size), its values where at.value(offset) puts them
  // (Values or LaneValues, T their type).
  template <class T, class At>
  bool factor(const Node& node, T* scratch, const At& at) const;
  template <std::uint32_t N, class T, class At>
  bool factor_node(const Node& node, T* scratch, const At& at) const;
  // The solve over the nodes place.node(0), ..., place.node(count - 1), in the factor's order:
  // place.at(node) is where the node's rows are, place.value(offset) where values_[offset] is,
  // both of type T (double, or LaneValue for parts in lanes).
  template <class T, class Place>
  void solve_nodes(std::size_t count, const Place& place) const;

  std::vector<Node> nodes_;  // by position in the elimination order
  std::vector<Below> below_;
  std::vector<std::uint32_t> position_of_;  // per caller's node: its position
  std::vector<std::uint32_t> node_of_row_;  // per row: the caller's node
  std::vector<std::uint32_t> node_at_;      // per position: the caller's node
  std::vector<std::uint32_t> column_, column_begin_;
  std::vector<std::uint32_t> updates_;  // per Schur update, node by node: target
  // order()'s scratch, kept: per node its neighbours in the elimination graph (a place in pool_),
  // the degree buckets, a component, a merged list.
  struct List {
    std::uint32_t begin = 0, size = 0, capacity = 0;
  };
  std::vector<List> lists_;
  std::vector<std::uint32_t> pool_, bucket_head_, bucket_next_, bucket_prev_, component_, merged_;
  std::vector<double> values_;
  std::vector<double> scratch_;  // factorize: a node's off-diagonal blocks as found
};

}  // namespace impulse
