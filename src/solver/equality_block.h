#pragma once
// The bilateral rows of a solve (lo = -inf, hi = +inf: the joints' equality rows, springs and
// custom equalities), solved together and exactly through a sparse LDL^T factorisation of their
// A = J M^-1 J^T + diag(softness). Gauss-Seidel moves a load along a chain about one link per row
// visit, so ten sweeps leave a hanging chain of 100 links stretched like a spring, and Baumgarte's
// bias, warm-started, makes the spring grow; the direct solve carries the load through the whole
// chain at once. The matrix of a tree of joints factors with little fill (Baraff 1996, "Linear-time
// dynamics using Lagrange multipliers"), so for joints the factorisation costs about as much as a
// few sweeps.

#include "constraints/rows.h"
#include "core/island_sets.h"
#include "core/lanes.h"
#include "core/task_pool.h"

#include "solver/block_ldlt.h"
#include "solver/row_layout.h"

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace impulse {

class EqualityBlock {
 public:
  /// Collects the prepared rows' usable bilateral rows and factors their matrix. False when there
  /// are fewer than two, or the factorisation fails: the rows then stay with Gauss-Seidel.
  /// layout: the rows' RowLayout, taken; same_layout: it is the last prepare's, so the same rows
  /// are bilateral (the layout holds every condition of it) and they are not sought again.
  /// Components are prepared on the pool's threads when given (the same bits).
  bool prepare(const RowStore& rows, const RowLayout& layout, bool same_layout = false,
               TaskPool* pool = nullptr);
  /// The rows of the block, in the order of solve_batch's x.
  const std::vector<std::uint32_t>& rows() const { return rows_; }
  /// The block's components: its rows joined through the bodies they move, so that no row shares a
  /// moving body (or an entry of A) with another component's. Each component is solved on its own,
  /// on any thread, with the bits of the whole block's solve: ten ragdolls are ten components.
  std::size_t components() const { return component_begin_.size() - 1; }
  /// Component c's rows, as indices into rows(), ascending.
  std::span<const std::uint32_t> component_rows(std::size_t c) const {
    return std::span(component_rows_)
        .subspan(component_begin_[c], component_begin_[c + 1] - component_begin_[c]);
  }
  /// Component c's rows cut where their bodies change (a joint's rows, or those of consecutive
  /// joints between the same two bodies): the positions in component_rows(c) where each such run
  /// begins, then its size.
  std::span<const std::uint32_t> pair_runs(std::size_t c) const {
    return std::span(pair_run_begin_)
        .subspan(pair_runs_begin_[c], pair_runs_begin_[c + 1] - pair_runs_begin_[c]);
  }
  /// The components in batches: consecutive components that factor alike (a scene's identical
  /// ragdolls), up to BlockLdlt::k_lanes of them, solved at once in lanes (solve_batch); any other
  /// component is a batch of its own. Batch b holds components [batch_begin(b), batch_begin(b +
  /// 1)).
  std::size_t batches() const { return batch_begin_.size() - 1; }
  std::uint32_t batch_begin(std::size_t b) const { return batch_begin_[b]; }
  /// The batches cut into runs of consecutive batches of at least k_min_run_rows rows (the last
  /// may have fewer): what pgs shares among its threads, a pendulum's three rows being too little
  /// for a claim of their own and a ragdoll's 38 enough. Run r holds batches
  /// [run_begin(r), run_begin(r + 1)).
  static constexpr std::size_t k_min_run_rows = 32;
  std::size_t runs() const { return run_begin_.size() - 1; }
  std::uint32_t run_begin(std::size_t r) const { return run_begin_[r]; }
  /// Whether components that factor alike share batches (the default); false leaves every
  /// component a batch of its own, with the same bits: for tests and measurements. The batches
  /// are cut again at once (the next prepare fills them).
  void set_lanes(bool lanes);
  /// Whether batch b is solved in lanes (it holds more than one component).
  bool in_lanes(std::size_t b) const { return batch_begin(b + 1) - batch_begin(b) > 1; }
  /// A batch in lanes' x (below): component batch_begin(b) + l's row k (an index into rows()) in
  /// lane l of entry k - first_row(c); the lanes past its components repeat the first's.
  std::span<BlockLdlt::LaneValue> lane_rows(std::size_t b) {
    return std::span(lane_rows_)
        .subspan(batch_rows_begin_[b], batch_rows_begin_[b + 1] - batch_rows_begin_[b]);
  }
  std::uint32_t first_row(std::size_t c) const { return component_first_row_[c]; }
  /// x <- A^-1 x for batch b's components' rows: with x = -w, w = J v - bias + softness lambda
  /// their velocity errors given the others, the change of their impulses that zeroes them. x is
  /// rows().size() long, and only the component's rows' entries are read and written; a batch in
  /// lanes solves its lane_rows instead, each component with the bits of its solve alone. Batches
  /// may be solved on several threads at once.
  void solve_batch(std::size_t b, std::span<double> x);

 private:
  // A side of a block row on a body that moves: rows sharing a body couple through it.
  struct Side {
    std::uint32_t body, row;  // row: the index in the block
    bool is_b;
    friend bool operator==(const Side&, const Side&) = default;
  };
  // A term of A: side p_side's row times side q_side's row through their body (indices into
  // sides_), added into the factor's value `slot`.
  struct Term {
    std::uint32_t p_side, q_side, slot;
  };
  // A side's part of its row's Jacobian and response, gathered once per prepare for its terms:
  // a side serves several terms, and reading the store's lanes through sides_ and rows_ for each
  // cost chain100 1.4% more instructions.
  struct SideVectors {
    Lanes j_lin, j_ang, b_lin, b_ang;
  };
  void analyse(const RowStore& rows);
  // The components (components()) of the rows, and each component's nodes in the factor's order,
  // unless neither the pattern (new_pattern) nor the rows' moving bodies changed; returns whether
  // it found them anew.
  bool find_components(const RowStore& rows, const RowLayout& layout, bool new_pattern);
  void find_pair_runs(const RowStore& rows);
  /// component_terms_: terms_ by component (the rows of a term's two sides share a moving body),
  /// in terms_'s order within each.
  void group_terms();
  /// Batch b's components' values (their terms, then their rows' softness) and their
  /// factorisation, in lanes for a batch in lanes; false if that fails. Touches no other batch's
  /// values. scratch, lane_scratch: the factorisation's (BlockLdlt::scratch_size each).
  bool prepare_batch(const RowStore& rows, std::size_t b, std::span<double> scratch,
                     std::span<BlockLdlt::LaneValue> lane_scratch);
  /// batch_begin_ and the runs from the components, and the batches' room in lanes.
  void find_batches();
  /// A batch in lanes' factor values (BlockLdlt::pack_lanes, factorize_lanes).
  std::span<BlockLdlt::LaneValue> lane_values(std::size_t b);
  /// Component c's nodes' positions in the factor's order, ascending.
  std::span<const std::uint32_t> component_positions(std::size_t c) const {
    return std::span(component_positions_)
        .subspan(positions_begin_[c], positions_begin_[c + 1] - positions_begin_[c]);
  }

  std::vector<std::uint32_t> rows_;
  std::vector<Side> sides_;
  // The pattern of the last analysis (the sides as found, and the row count) and its terms:
  // while the rows couple the same way (a scene's joints from step to step), only the terms'
  // values are computed and factored again, not the factor's structure or its order.
  std::vector<Side> pattern_sides_;
  std::size_t pattern_rows_ = 0;
  std::vector<Term> terms_;
  std::vector<Term> component_terms_;                    // group_terms
  std::vector<std::uint32_t> component_terms_begin_{0};  // per component, then the end
  // prepare's chunks of runs, each with its factorisation's scratch.
  static constexpr std::size_t k_prepare_chunks = 16;
  static constexpr std::size_t k_parallel_rows = 256;
  std::vector<double> chunk_scratch_;
  std::vector<BlockLdlt::LaneValue> chunk_lane_scratch_;
  std::vector<std::uint32_t> diagonal_slots_;  // per row: the slot of its softness
  // analyse's scratch, kept so that a pattern seen before (islands waking and falling asleep)
  // allocates nothing: the sides sorted by body, the nodes' first rows, each row's node, the
  // coupled pairs of nodes.
  std::vector<std::uint32_t> sides_by_body_, node_begin_, node_of_row_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> coupled_;
  std::vector<SideVectors> side_vectors_;  // per side
  BlockLdlt ldlt_;
  // components() as ranges of rows, and of node positions in the factor's order.
  std::vector<std::uint32_t> component_rows_, component_begin_{0};
  std::vector<std::uint32_t> component_positions_, positions_begin_{0};
  // Per row, its bodies that move (~0 for one that does not) when the components were last found;
  // and find_components' scratch for the same now.
  std::vector<std::array<std::uint32_t, 2>> found_moving_bodies_, moving_bodies_;
  bool lanes_ = true;
  std::vector<std::uint32_t> batch_begin_{0}, run_begin_{0};
  // Per batch of more than one component, where its factor's values and its rows start in lanes
  // (BlockLdlt::pack_lanes, solve_lanes), then the ends.
  std::vector<std::uint32_t> batch_values_begin_{0}, batch_rows_begin_{0};
  std::vector<BlockLdlt::LaneValue> lane_values_, lane_rows_;
  std::vector<std::uint32_t> component_first_row_;  // per component: first_row
  // pair_runs(c) for each component c, one after another, and where each component's begin.
  std::vector<std::uint32_t> pair_run_begin_, pair_runs_begin_{0};
  // find_components' scratch: the rows' sets, each row's component, per body the last row that
  // moves it.
  IslandSets row_sets_;
  std::vector<std::uint32_t> component_of_, last_row_of_body_;
};

}  // namespace impulse
