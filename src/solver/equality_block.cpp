#include "solver/equality_block.h"

#include <algorithm>

namespace impulse {
namespace {

// A relative regularisation of the diagonal: redundant rows (two joints holding the same freedom)
// make A singular, and this keeps the factorisation from failing on them at a cost of a relative
// yield of 1e-6.
constexpr double k_regularisation = 1e-6;

// A row between a body and itself is left to Gauss-Seidel: the block's visit holds a run's two
// bodies' velocities apart (PairVelocities), and one body's would be stored twice.
bool bilateral(const RowStore& rows, std::size_t i) {
  return rows.inv_eff_mass[i] > 0 && rows.normal_row[i] < 0 && rows.cone[i] == 0 &&
         !rows.disc_second(i) && rows.lo[i] == -k_infinity && rows.hi[i] == k_infinity &&
         rows.body_a[i] != rows.body_b[i];
}

}  // namespace

bool EqualityBlock::prepare(const RowStore& rows, const RowLayout& layout, bool same_layout,
                            TaskPool* pool) {
  // Without a row free both ways (a pile's contacts) no row is sought: the scan took 24 us of
  // each of the 1000-box pile's rebuilds, some 300 us.
  if (!same_layout) {
    rows_.clear();
    if (layout.free_rows()) {
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (bilateral(rows, i)) rows_.push_back(std::uint32_t(i));
      }
    }
  }
  if (rows_.size() < 2) return false;
  sides_.clear();
  for (std::uint32_t k = 0; k < rows_.size(); ++k) {
    const std::size_t i = rows_[k];
    if (rows.b_lin_a(i) != Vec3::zero() || rows.b_ang_a(i) != Vec3::zero())
      sides_.push_back({rows.body_a[i], k, false});
    if (rows.b_lin_b(i) != Vec3::zero() || rows.b_ang_b(i) != Vec3::zero())
      sides_.push_back({rows.body_b[i], k, true});
  }
  // The same sides in the same order as last time: the same terms in the same slots (a scene's
  // joints from step to step), so only their values are computed.
  const bool same_pattern = sides_ == pattern_sides_ && pattern_rows_ == rows_.size();
  if (!same_pattern) analyse(rows);
  if (!same_pattern || !same_layout) {
    if (find_components(rows, layout, !same_pattern)) group_terms();
    find_pair_runs(rows);
  }
  side_vectors_.resize(sides_.size());
  for (std::size_t s = 0; s < sides_.size(); ++s) {
    const std::size_t i = rows_[sides_[s].row];
    const bool b = sides_[s].is_b;
    SideVectors& v = side_vectors_[s];
    const std::size_t side = b ? 2 : 0;  // the lanes of body b's parts follow body a's
    v.j_lin = rows.coefficients[i].jacobian[side];
    v.j_ang = rows.coefficients[i].jacobian[side + 1];
    v.b_lin = rows.coefficients[i].response[side];
    v.b_ang = rows.coefficients[i].response[side + 1];
  }
  const std::span<double> values = ldlt_.values();
  std::fill(values.begin(), values.end(), 0.0);
  // Batches share no entry of A: each is filled and factored on its own, by chunks of runs on
  // the pool's threads (each chunk with its own scratch, doubles and lanes for batches in lanes;
  // one of each on one thread), with the bits of one pass over them all. The ragdolls' ten took
  // 30 us a step on one thread whatever the thread count.
  const bool parallel = runs() > 1 && chunks_in_parallel(pool, rows_.size(), k_parallel_rows);
  const std::size_t chunks = parallel ? k_prepare_chunks : 1, scratch = ldlt_.scratch_size(),
                    lane_scratch = lane_values_.empty() ? 0 : scratch;
  chunk_scratch_.resize(chunks * scratch);
  chunk_lane_scratch_.resize(chunks * lane_scratch);
  std::array<bool, k_prepare_chunks> factored{};
  run_chunks(parallel ? pool : nullptr, runs(), k_prepare_chunks, 0,
             [&](std::size_t chunk, std::size_t begin, std::size_t end) {
               const std::size_t own = parallel ? chunk : 0;
               bool ok = true;
               for (std::uint32_t b = run_begin(begin); ok && b < run_begin(end); ++b)
                 ok = prepare_batch(
                     rows, b, std::span(chunk_scratch_).subspan(own * scratch, scratch),
                     std::span(chunk_lane_scratch_).subspan(own * lane_scratch, lane_scratch));
               factored[chunk] = ok;
             });
  return std::all_of(factored.begin(), factored.end(), [](bool ok) { return ok; });
}

bool EqualityBlock::prepare_batch(const RowStore& rows, std::size_t b, std::span<double> scratch,
                                  std::span<BlockLdlt::LaneValue> lane_scratch) {
  const std::span<double> values = ldlt_.values();
  for (std::uint32_t c = batch_begin(b); c < batch_begin(b + 1); ++c) {
    // Row p's side times row q's through their body: J_p's part on it times B_q's part.
    for (std::uint32_t t = component_terms_begin_[c]; t < component_terms_begin_[c + 1]; ++t) {
      const Term& term = component_terms_[t];
      const SideVectors &p = side_vectors_[term.p_side], &q = side_vectors_[term.q_side];
      values[term.slot] += double(dot3(p.j_lin, q.b_lin)) + double(dot3(p.j_ang, q.b_ang));
    }
    for (const std::uint32_t k : component_rows(c)) {
      const std::size_t i = rows_[k];
      values[diagonal_slots_[k]] += double(rows.softness[i]) + k_regularisation * rows.diagonal[i];
    }
  }
  const std::span<const std::uint32_t> shape = component_positions(batch_begin(b));
  if (!in_lanes(b)) return ldlt_.factorize_nodes(shape, scratch);
  // A's values into the lanes, factored there (values() keeps the batch's A).
  std::array<std::span<const std::uint32_t>, BlockLdlt::k_lanes> lanes;
  for (std::uint32_t c = batch_begin(b); c < batch_begin(b + 1); ++c)
    lanes[c - batch_begin(b)] = component_positions(c);
  ldlt_.pack_lanes(std::span(lanes).first(batch_begin(b + 1) - batch_begin(b)), lane_values(b));
  return ldlt_.factorize_lanes(shape, lane_values(b), lane_scratch);
}

void EqualityBlock::group_terms() {
  const std::size_t components = this->components();
  const auto component_of_term = [&](const Term& t) { return component_of_[sides_[t.p_side].row]; };
  component_terms_begin_.assign(components + 1, 0);
  for (const Term& t : terms_)
    ++component_terms_begin_[component_of_term(t) + 1];
  for (std::size_t c = 0; c < components; ++c)
    component_terms_begin_[c + 1] += component_terms_begin_[c];
  component_terms_.resize(terms_.size());
  for (const Term& t : terms_)
    component_terms_[component_terms_begin_[component_of_term(t)]++] = t;
  for (std::size_t c = components; c > 0; --c)
    component_terms_begin_[c] = component_terms_begin_[c - 1];
  component_terms_begin_[0] = 0;
}

// The pattern's terms (for each body, the products of its sides' rows; then each row's
// softness, in its diagonal slot), its nodes (a joint's consecutive rows between the same two
// bodies) and the factor's structure, and where each term's value goes in it.
void EqualityBlock::analyse(const RowStore& rows) {
  pattern_sides_ = sides_;
  pattern_rows_ = rows_.size();
  // The sides by body (as indices, sorted as the sides themselves would be).
  sides_by_body_.resize(sides_.size());
  for (std::uint32_t s = 0; s < sides_by_body_.size(); ++s)
    sides_by_body_[s] = s;
  std::sort(sides_by_body_.begin(), sides_by_body_.end(),
            [&](std::uint32_t x, std::uint32_t y) { return sides_[x].body < sides_[y].body; });
  terms_.clear();
  for (std::size_t first = 0; first < sides_by_body_.size();) {
    std::size_t end = first;
    while (end < sides_by_body_.size() &&
           sides_[sides_by_body_[end]].body == sides_[sides_by_body_[first]].body)
      ++end;
    for (std::size_t p = first; p < end; ++p) {
      for (std::size_t q = first; q < end; ++q) {
        if (sides_[sides_by_body_[p]].row < sides_[sides_by_body_[q]].row)
          continue;  // one triangle
        terms_.push_back({sides_by_body_[p], sides_by_body_[q], 0});
      }
    }
    first = end;
  }
  node_begin_.assign(1, 0);
  node_of_row_.resize(rows_.size());
  for (std::uint32_t k = 0; k < rows_.size(); ++k) {
    const std::size_t i = rows_[k], first = rows_[node_begin_.back()];
    const bool same_bodies =
        rows.body_a[i] == rows.body_a[first] && rows.body_b[i] == rows.body_b[first];
    if (k > node_begin_.back() && (!same_bodies || k - node_begin_.back() == BlockLdlt::k_max_node))
      node_begin_.push_back(k);
    node_of_row_[k] = std::uint32_t(node_begin_.size() - 1);
  }
  node_begin_.push_back(std::uint32_t(rows_.size()));
  coupled_.clear();
  for (const Term& t : terms_)
    coupled_.emplace_back(node_of_row_[sides_[t.p_side].row], node_of_row_[sides_[t.q_side].row]);
  for (std::uint32_t k = 0; k < rows_.size(); ++k)
    coupled_.emplace_back(node_of_row_[k], node_of_row_[k]);
  ldlt_.analyse(node_begin_, coupled_);
  for (Term& t : terms_)
    t.slot = ldlt_.slot(sides_[t.p_side].row, sides_[t.q_side].row);
  diagonal_slots_.resize(rows_.size());
  for (std::uint32_t k = 0; k < rows_.size(); ++k)
    diagonal_slots_[k] = ldlt_.slot(k, k);
}

bool EqualityBlock::find_components(const RowStore& rows, const RowLayout& layout,
                                    bool new_pattern) {
  constexpr std::uint32_t k_none = ~std::uint32_t(0);
  // What the components follow from: the rows' moving bodies, and the factor's order (its
  // pattern). A chain whose links touch changes the layout every step, not these.
  moving_bodies_.resize(rows_.size());
  for (std::size_t k = 0; k < rows_.size(); ++k) {
    const std::uint32_t a = rows.body_a[rows_[k]], b = rows.body_b[rows_[k]];
    moving_bodies_[k] = {layout.movable(a) ? a : k_none, layout.movable(b) ? b : k_none};
  }
  if (!new_pattern && moving_bodies_ == found_moving_bodies_) return false;
  found_moving_bodies_ = moving_bodies_;  // a copy: each keeps its capacity
  const auto n = std::uint32_t(rows_.size());
  row_sets_.reset(n);
  last_row_of_body_.assign(layout.bodies(), k_none);
  for (std::uint32_t k = 0; k < n; ++k) {
    for (const std::uint32_t body : found_moving_bodies_[k]) {
      if (body == k_none) continue;
      std::uint32_t& last = last_row_of_body_[body];
      if (last != k_none) row_sets_.join(k, last);
      last = k;
    }
  }
  // Each row's component, numbered in the order of the components' first rows (a set's root is its
  // first row, numbered before the rows after it).
  component_of_.resize(n);
  std::uint32_t components = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t root = row_sets_.find(k);
    component_of_[k] = root == k ? components++ : component_of_[root];
  }
  // The rows by component, in order: each component's count, its end as the rows are placed, its
  // begin.
  component_begin_.assign(components + 1, 0);
  for (std::uint32_t k = 0; k < n; ++k)
    ++component_begin_[component_of_[k] + 1];
  for (std::uint32_t c = 0; c < components; ++c)
    component_begin_[c + 1] += component_begin_[c];
  component_rows_.resize(n);
  for (std::uint32_t k = 0; k < n; ++k)
    component_rows_[component_begin_[component_of_[k]]++] = k;
  for (std::uint32_t c = components; c > 0; --c)
    component_begin_[c] = component_begin_[c - 1];
  component_begin_[0] = 0;
  // Each component's nodes (a node's rows are consecutive, between the same bodies: one component),
  // in the factor's order.
  component_positions_.clear();
  positions_begin_.resize(components + 1);
  for (std::uint32_t c = 0; c < components; ++c) {
    positions_begin_[c] = std::uint32_t(component_positions_.size());
    for (const std::uint32_t k : component_rows(c)) {
      const std::uint32_t position = ldlt_.position_of_row(k);
      if (component_positions_.size() == positions_begin_[c] ||
          component_positions_.back() != position)
        component_positions_.push_back(position);
    }
    std::sort(component_positions_.begin() + positions_begin_[c], component_positions_.end());
  }
  positions_begin_[components] = std::uint32_t(component_positions_.size());
  find_batches();
  return true;
}

void EqualityBlock::set_lanes(bool lanes) {
  lanes_ = lanes;
  if (components() > 0) find_batches();
}

void EqualityBlock::find_batches() {
  const auto components = std::uint32_t(this->components());
  batch_begin_.assign(1, 0);
  for (std::uint32_t c = 1; c < components; ++c) {
    const std::uint32_t first = batch_begin_.back();
    const bool joins = lanes_ && c - first < BlockLdlt::k_lanes &&
                       ldlt_.same_shape(component_positions(first), component_positions(c));
    if (!joins) batch_begin_.push_back(c);
  }
  batch_begin_.push_back(components);
  component_first_row_.resize(components);
  for (std::uint32_t c = 0; c < components; ++c)
    component_first_row_[c] = ldlt_.part_rows(component_positions(c)).first;
  run_begin_.assign(1, 0);
  batch_values_begin_.assign(1, 0);
  batch_rows_begin_.assign(1, 0);
  std::size_t run_rows = 0;
  for (std::uint32_t b = 0; b < batches(); ++b) {
    const std::span<const std::uint32_t> shape = component_positions(batch_begin(b));
    batch_values_begin_.push_back(batch_values_begin_.back() +
                                  (in_lanes(b) ? std::uint32_t(ldlt_.part_values(shape)) : 0));
    batch_rows_begin_.push_back(batch_rows_begin_.back() +
                                (in_lanes(b) ? ldlt_.part_rows(shape).second : 0));
    run_rows += component_begin_[batch_begin(b + 1)] - component_begin_[batch_begin(b)];
    if (run_rows >= k_min_run_rows || b + 1 == batches()) {
      run_begin_.push_back(b + 1);
      run_rows = 0;
    }
  }
  lane_values_.resize(batch_values_begin_.back());
  lane_rows_.resize(batch_rows_begin_.back());
}

std::span<BlockLdlt::LaneValue> EqualityBlock::lane_values(std::size_t b) {
  return std::span(lane_values_)
      .subspan(batch_values_begin_[b], batch_values_begin_[b + 1] - batch_values_begin_[b]);
}

// pair_runs from the rows' bodies, moving or not: a run holds both bodies' velocities, so a change
// of a partner that does not move (a kinematic one swapped for another) cuts it anew too.
void EqualityBlock::find_pair_runs(const RowStore& rows) {
  const std::size_t components = this->components();
  pair_run_begin_.clear();
  pair_runs_begin_.resize(components + 1);
  for (std::uint32_t c = 0; c < components; ++c) {
    pair_runs_begin_[c] = std::uint32_t(pair_run_begin_.size());
    const std::span<const std::uint32_t> component = component_rows(c);
    for (std::uint32_t r = 0; r < component.size(); ++r) {
      const std::size_t i = rows_[component[r]], last = rows_[component[r == 0 ? 0 : r - 1]];
      if (r == 0 || rows.body_a[i] != rows.body_a[last] || rows.body_b[i] != rows.body_b[last])
        pair_run_begin_.push_back(r);
    }
    pair_run_begin_.push_back(std::uint32_t(component.size()));
  }
  pair_runs_begin_[components] = std::uint32_t(pair_run_begin_.size());
}

void EqualityBlock::solve_batch(std::size_t b, std::span<double> x) {
  const std::span<const std::uint32_t> positions = component_positions(batch_begin(b));
  if (in_lanes(b))
    ldlt_.solve_lanes(lane_rows(b), positions, lane_values(b));
  else
    ldlt_.solve(x, positions);
}

}  // namespace impulse
