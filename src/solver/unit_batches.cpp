#include "solver/unit_batches.h"

#include "solver/group_solve.h"
#include "solver/pgs_rows.h"
#include "solver/row_visit.h"
#include "solver/visit_arithmetic.h"

#include <algorithm>
#include <optional>

#include <unistd.h>

namespace impulse {
namespace {

constexpr std::size_t k_lanes = UnitBatch::k_units;
// The batches are packed on the pool from this many batches (as PgsSolver::prepare packs its
// rows: the same bits on any count).
constexpr std::size_t k_parallel_batches = 16;
static_assert(UnitBatches::k_pack_chunks >= SweepSchedule::k_max_parts,
              "each part's batches have chunks");
static_assert(sizeof(Lanes) == k_lanes * sizeof(Real), "a batch's unit per lane");

// A batch's data in lanes, lane k being unit k's: per friction row, then the group.
// Where a batch's lanes lie: a friction row's J by components (linear a x y z, angular a, linear
// b, angular b; the compact form without body a's linear part, minus body b's: linear_a), its B
// (whole, or only its angular parts, a's x y z then b's: compact, the linear ones then found from
// J when applied, LinearResponse), then its scalars (mu: the bounds are -mu and mu times the
// normal rows' impulse); then the group, padded to four rows as RowGroup is: J per row (likewise),
// B per row (likewise), the inverse and the matrix by columns (entry c * 4 + r is row r's in
// column c; the regularisation is found from its diagonal), then per row, and for the compact form
// the batch's bodies' inverse masses. A lone normal row's lanes, in place of a group's: its J and B
// (as a friction row's), its scalars, and for the compact form the bodies' inverse masses. The
// compact form is for lanes that do not stay in a core's cache: the tower's sweeps wait on their
// lanes coming from the L3 cache, and what the form finds rather than keeps costs a few operations
// a row (docs/performance.md).
template <bool k_compact>
struct LaneLayout {
  static constexpr std::size_t jacobian_lanes = k_compact ? 9 : 12;
  static constexpr std::size_t response_lanes = k_compact ? 6 : 12;
  static constexpr std::size_t jacobian = 0, response = jacobian_lanes,
                               bias = response + response_lanes, inv_eff_mass = bias + 1,
                               mu = bias + 2, coupling_last = bias + 3,
                               coupling_before_last = bias + 4, friction_row = bias + 5;
  static constexpr std::size_t group_jacobian = 0, group_response = 4 * jacobian_lanes,
                               inverse = group_response + 4 * response_lanes, matrix = inverse + 16,
                               group_bias = matrix + 16, softness = group_bias + 4,
                               factored = softness + 4, inv_mass_a = factored + 1,
                               inv_mass_b = factored + 2,
                               group = k_compact ? factored + 3 : factored + 1;
  static constexpr std::size_t lone_jacobian = 0, lone_response = jacobian_lanes,
                               lone_bias = lone_response + response_lanes,
                               lone_inv_eff_mass = lone_bias + 1, lone_softness = lone_bias + 2,
                               lone_lo = lone_bias + 3, lone_hi = lone_bias + 4,
                               lone_inv_mass_a = lone_bias + 5,
                               lone = k_compact ? lone_bias + 7 : lone_bias + 5;
};
using FullLayout = LaneLayout<false>;
using CompactLayout = LaneLayout<true>;

// A row's J as the compact form keeps it: body a's angular part, body b's linear and angular parts
// by components; body a's linear part is minus body b's, as a contact's is bit for bit (pack checks
// each row's). Body a's linear part by components.
[[gnu::always_inline]] inline std::array<Lanes, 3> linear_a(const Lanes* j) {
  return {-j[3], -j[4], -j[5]};
}

// J v of four units' rows, from J's parts by components (body a's linear and angular, body b's)
// and v by components (or a B whole): packed_velocity's products and sums, lane by lane.
[[gnu::always_inline]] inline Lanes wide_velocity(const Lanes* linear_a, const Lanes* angular_a,
                                                  const Lanes* linear_b, const Lanes* angular_b,
                                                  const Lanes* v) {
  const Lanes a = (linear_a[0] * v[0] + angular_a[0] * v[3]) +
                  (linear_a[1] * v[1] + angular_a[1] * v[4]) +
                  (linear_a[2] * v[2] + angular_a[2] * v[5]);
  const Lanes b = (linear_b[0] * v[6] + angular_b[0] * v[9]) +
                  (linear_b[1] * v[7] + angular_b[1] * v[10]) +
                  (linear_b[2] * v[8] + angular_b[2] * v[11]);
  return a + b;
}
// Of J whole by components.
[[gnu::always_inline]] inline Lanes whole_velocity(const Lanes* j, const Lanes* v) {
  return wide_velocity(j, j + 3, j + 6, j + 9, v);
}
// Of J as the lanes keep it (pack_jacobian).
template <bool k_compact>
[[gnu::always_inline]] inline Lanes lane_velocity(const Lanes* j, const Lanes* v) {
  if constexpr (k_compact) {
    const std::array<Lanes, 3> a_linear = linear_a(j);
    return wide_velocity(a_linear.data(), j, j + 3, j + 6, v);
  } else {
    return whole_velocity(j, v);
  }
}

// Four rows' J (row(k): unit k's) by components into `out` as the lanes' form keeps it; the
// compact form's lacks body a's linear part, which goes to `a_linear` (three lanes). False unless
// that part is minus body b's in every lane, bit for bit (pack then leaves the batch to the
// store).
template <bool k_compact, class Row>
[[gnu::always_inline]] inline bool pack_jacobian(const Row& row, Lanes* out, Lanes* a_linear) {
  const PartsByComponents j(row(0).jacobian, row(1).jacobian, row(2).jacobian, row(3).jacobian);
  if constexpr (!k_compact) {
    for (std::size_t side = 0; side < 4; ++side)
      j.store(side, out + 3 * side);
    return true;
  }
  j.store(0, a_linear);
  for (std::size_t side = 1; side < 4; ++side)
    j.store(side, out + 3 * (side - 1));
  const std::array<Lanes, 3> derived = linear_a(out);
  LaneMask same = Lanes{} == Lanes{};
  for (std::size_t c = 0; c < 3; ++c)
    same &= __builtin_bit_cast(LaneMask, a_linear[c]) == __builtin_bit_cast(LaneMask, derived[c]);
  return lane_bits(same) == (1u << k_lanes) - 1;
}

// Four rows' B (row(k): unit k's) whole by components into `whole` (twelve lanes), and in the
// compact form its angular parts into `angular` as well (six lanes: body a's, then body b's).
template <bool k_compact, class Row>
[[gnu::always_inline]] inline void pack_response(const Row& row, Lanes* whole, Lanes* angular) {
  const PartsByComponents b(row(0).response, row(1).response, row(2).response, row(3).response);
  for (std::size_t side = 0; side < 4; ++side)
    b.store(side, whole + 3 * side);
  if constexpr (k_compact) {
    b.store(1, angular);
    b.store(3, angular + 3);
  }
}

// J's parts (body a's linear and angular parts, body b's) of four rows packed by pack_jacobian,
// each three lanes, with the rows' own body a linear part (the store's, whichever the lanes hold).
template <bool k_compact>
[[gnu::always_inline]] inline std::array<const Lanes*, 4> packed_parts(const Lanes* j,
                                                                       const Lanes* a_linear) {
  if constexpr (k_compact) return {a_linear, j, j + 3, j + 6};
  return {j, j + 3, j + 6, j + 9};
}

// The lanes whose unit's body on one side (moves_bit: row_visit::a_moves or b_moves) moves.
[[gnu::always_inline]] inline LaneMask moving_lanes(const std::array<std::uint8_t, k_lanes>& moves,
                                                    std::uint8_t moves_bit) {
  LaneMask moving{};
  for (std::size_t k = 0; k < k_lanes; ++k)
    moving[k] = (moves[k] & moves_bit) != 0 ? -1 : 0;
  return moving;
}

// Where a compact batch's normal lanes keep its bodies' inverse masses, a's then b's.
constexpr std::size_t inv_masses_at(const UnitShape& shape) {
  static_assert(CompactLayout::inv_mass_b == CompactLayout::inv_mass_a + 1);
  return shape.lone_row ? CompactLayout::lone_inv_mass_a : CompactLayout::inv_mass_a;
}

// B's linear parts from J's: each side's inverse mass times J (LaneMass::linear_response's
// product), zero on a body that does not move (as PgsSolver::prepare zeroes the store's). The same
// bits as the stored B, for a batch's bodies, none of which is held to a plane (pack): its rows
// take a fifth less memory, which the large islands' sweeps wait on (docs/performance.md).
struct LinearResponse {
  LinearResponse() = default;  // the whole form's: not used
  // From a compact batch's normal lanes (where they keep the bodies' inverse masses).
  LinearResponse(const Lanes* normal, const UnitBatch& batch)
      : minus_inv_mass_a(-normal[inv_masses_at(batch.shape)]),
        inv_mass_b(normal[inv_masses_at(batch.shape) + 1]),
        moves_a(moving_lanes(batch.moves, row_visit::a_moves)),
        moves_b(moving_lanes(batch.moves, row_visit::b_moves)) {}
  // From body b's linear J (-j_b * m_a and j_b * -m_a are the same bits: the sign is apart).
  [[gnu::always_inline]] Lanes a(const Lanes& j_b) const {
    return Lanes(LaneMask(j_b * minus_inv_mass_a) & moves_a);
  }
  [[gnu::always_inline]] Lanes b(const Lanes& j) const {
    return Lanes(LaneMask(j * inv_mass_b) & moves_b);
  }
  Lanes minus_inv_mass_a{}, inv_mass_b{};
  LaneMask moves_a{}, moves_b{};
};

// v += delta B, as PairVelocities::apply adds it, for a row of Jacobian `jacobian` and B
// `response` as the layout keeps it (the linear parts from `linear` in the compact form).
template <bool k_compact>
[[gnu::always_inline]] inline void wide_apply(const Lanes* jacobian, const Lanes* response,
                                              const LinearResponse& linear, const Lanes& delta,
                                              Lanes* v) {
  if constexpr (k_compact) {
    for (std::size_t c = 0; c < 3; ++c) {
      v[c] += delta * linear.a(jacobian[c + 3]);
      v[c + 3] += delta * response[c];
      v[c + 6] += delta * linear.b(jacobian[c + 3]);
      v[c + 9] += delta * response[c + 3];
    }
  } else {
    for (std::size_t c = 0; c < 12; ++c)
      v[c] += delta * response[c];
  }
}

// The velocities of one side's four bodies (linear, angular) by components.
[[gnu::always_inline]] inline void gather_side(const Lanes* velocity,
                                               const std::array<std::uint32_t, k_lanes>& bodies,
                                               Lanes* out) {
  const Lanes* b[k_lanes];
  for (std::size_t k = 0; k < k_lanes; ++k)
    b[k] = velocity + 2 * std::size_t(bodies[k]);
  by_components(b[0][0], b[1][0], b[2][0], b[3][0], out);
  by_components(b[0][1], b[1][1], b[2][1], b[3][1], out + 3);
}

// Writes one side's velocities back to the bodies that move.
[[gnu::always_inline]] inline void scatter_side(Lanes* velocity,
                                                const std::array<std::uint32_t, k_lanes>& bodies,
                                                const std::array<std::uint8_t, k_lanes>& moves,
                                                std::uint8_t moves_bit, const Lanes* in) {
  const std::array<Lanes, k_lanes> linear = by_lanes(in), angular = by_lanes(in + 3);
  for (std::size_t k = 0; k < k_lanes; ++k) {
    if (!(moves[k] & moves_bit)) continue;
    Lanes* b = velocity + 2 * std::size_t(bodies[k]);
    b[0] = linear[k];
    b[1] = angular[k];
  }
}

// v's n registers of velocities by components take `earlier`'s values in the lanes of `mask`: a
// lane whose visit is undone keeps the velocities it had.
[[gnu::always_inline]] inline void keep_lanes(const LaneMask& mask, const Lanes* earlier,
                                              std::size_t n, Lanes* v) {
  for (std::size_t c = 0; c < n; ++c)
    v[c] = mask ? earlier[c] : v[c];
}

// One side's velocities read again from the bodies that do not move, in their lanes.
[[gnu::always_inline]] inline void restore_still(const Lanes* velocity,
                                                 const std::array<std::uint32_t, k_lanes>& bodies,
                                                 const std::array<std::uint8_t, k_lanes>& moves,
                                                 std::uint8_t moves_bit, Lanes* v) {
  const LaneMask still = ~moving_lanes(moves, moves_bit);
  if (lane_bits(still) == 0) return;
  Lanes fresh[6];
  gather_side(velocity, bodies, fresh);
  keep_lanes(still, fresh, 6, v);
}

[[gnu::always_inline]] inline Lanes gather_lambda(const Real* lambda, const UnitBatch& batch,
                                                  std::size_t row) {
  return Lanes{lambda[batch.first[0] + row], lambda[batch.first[1] + row],
               lambda[batch.first[2] + row], lambda[batch.first[3] + row]};
}

[[gnu::always_inline]] inline void scatter_lambda(Real* lambda, const UnitBatch& batch,
                                                  std::size_t row, const Lanes& value) {
  for (std::size_t k = 0; k < k_lanes; ++k)
    lambda[batch.first[k] + row] = value[k];
}

// A batch's lone rows' lanes from the rows (pack_row's fields, lane by lane); false if the lanes
// cannot hold their J (pack_jacobian).
template <bool k_compact>
bool pack_lone_row(const RowStore& rows, const UnitBatch& batch, Lanes* out) {
  using L = LaneLayout<k_compact>;
  const std::size_t row = batch.shape.friction_rows;
  const auto coefficients = [&](std::size_t k) -> const RowCoefficients& {
    return rows.coefficients[batch.first[k] + row];
  };
  std::array<Lanes, 3> a_linear;  // the compact form's check
  const bool mirrored =
      pack_jacobian<k_compact>(coefficients, out + L::lone_jacobian, a_linear.data());
  std::array<Lanes, 12> whole;  // the compact form keeps only the angular parts
  pack_response<k_compact>(coefficients, k_compact ? whole.data() : out + L::lone_response,
                           out + L::lone_response);
  const auto column = [&](const RowColumn<Real>& values) {
    return Lanes{values[batch.first[0] + row], values[batch.first[1] + row],
                 values[batch.first[2] + row], values[batch.first[3] + row]};
  };
  out[L::lone_inv_eff_mass] = column(rows.inv_eff_mass);
  out[L::lone_softness] = column(rows.softness);
  out[L::lone_lo] = column(rows.lo);
  out[L::lone_hi] = column(rows.hi);
  return mirrored;
}

// The lone rows of a batch (`lone`: their lanes), each unit's after its friction run, with v the
// units' velocities and `before` the rows' impulses: visit_bounded_row's arithmetic lane by lane
// (the same bits). Returns the rows' changes.
template <bool k_compact>
[[gnu::always_inline]] inline Lanes visit_lone_rows(const UnitBatch& batch, const Lanes* lone,
                                                    const LinearResponse& linear,
                                                    const Lanes& relax, const Lanes& before,
                                                    Lanes* v, Real* lambda) {
  using L = LaneLayout<k_compact>;
  const Lanes step = relax * lone[L::lone_inv_eff_mass];
  const Lanes w = (lane_velocity<k_compact>(lone + L::lone_jacobian, v) - lone[L::lone_bias]) +
                  lone[L::lone_softness] * before;
  const Lanes next = clamped(before - w * step, lone[L::lone_lo], lone[L::lone_hi]);
  const Lanes delta = next - before;
  scatter_lambda(lambda, batch, batch.shape.friction_rows, next);
  // A lane whose impulse is unchanged adds nothing (adding zero turns a -0 to +0).
  const LaneMask unchanged = delta == Lanes{};
  Lanes kept[12];
  if (lane_bits(unchanged) != 0) std::copy(v, v + 12, kept);
  wide_apply<k_compact>(lone + L::lone_jacobian, lone + L::lone_response, linear, delta, v);
  if (lane_bits(unchanged) != 0) keep_lanes(unchanged, kept, 12, v);
  return lane_abs(delta);
}

// The shape of unit [begin, end), none for a unit visited alone.
std::optional<UnitShape> shape_of(const RowStore& rows, std::span<const std::uint8_t> visits,
                                  std::span<const std::uint32_t> group_of,
                                  std::span<const RowGroup> groups, std::uint32_t begin,
                                  std::uint32_t end) {
  const auto kind = [&](std::size_t i) { return visits[i] & row_visit::kind_mask; };
  if (kind(begin) != row_visit::friction_run) return {};
  std::uint32_t friction = 1;
  while (begin + friction < end && kind(begin + friction) == row_visit::friction_more)
    ++friction;
  const std::uint32_t head = begin + friction;
  if (friction > UnitShape::k_max_friction_rows || head >= end) return {};
  UnitShape shape;
  if (kind(head) == row_visit::fixed_bounds && head + 1 == end) {
    shape.lone_row = true;
    shape.group_rows = 1;
  } else {
    if (kind(head) != row_visit::group) return {};
    const RowGroup& group = groups[group_of[head]];
    if (group.first != head || group.first + group.count != end) return {};
    shape.group_rows = std::uint8_t(group.count);
  }
  shape.friction_rows = std::uint8_t(friction);
  shape.normal_count = std::uint8_t(row_visit::normal_count(visits[begin]));
  for (std::uint32_t i = begin; i < end; ++i) {
    if (rows.body_a[i] != rows.body_a[begin] || rows.body_b[i] != rows.body_b[begin]) return {};
  }
  for (std::uint32_t f = 0; f < friction; ++f) {
    const std::int64_t normal = std::int64_t(rows.normal_row[begin + f]) - head;
    if (row_visit::normal_count(visits[begin + f]) != shape.normal_count || normal < 0 ||
        normal + std::int64_t(shape.normal_count) > std::int64_t(shape.group_rows))
      return {};
    shape.normal_of[f] = std::uint8_t(normal);
  }
  return shape;
}

}  // namespace

void UnitBatches::build(const RowStore& rows, const SweepSchedule& schedule,
                        std::span<const std::uint8_t> visits,
                        std::span<const std::uint32_t> group_of, std::span<const RowGroup> groups,
                        std::size_t bodies, bool merge_parts) {
  steps_.clear();
  batches_.clear();
  level_of_body_.assign(bodies, 0);
  parts_merged_ = merge_parts;
  parts_ = schedule.parts();
  // A unit's moving bodies (one may come more than once); every row of a unit with a shape joins
  // the same two.
  const auto for_moving = [&](const RowUnit& unit, bool shaped, const auto& f) {
    for (std::uint32_t i = unit.begin; i < (shaped ? unit.begin + 1 : unit.end); ++i) {
      if (visits[i] & row_visit::a_moves) f(rows.body_a[i]);
      if (visits[i] & row_visit::b_moves) f(rows.body_b[i]);
    }
  };
  segments_ = 0;
  for (std::size_t p = 0; p < schedule.parts(); ++p) {
    begin_segment();
    if (merge_parts && p > 0) continue;
    // The units to order: the part's interior, or every part's (they share no moving body).
    const std::span<const RowUnit> units =
        merge_parts ? schedule.interiors(0, schedule.parts()) : schedule.interior(p);
    // Each unit's level: one past the last level that moves one of its bodies. The units of a
    // level share no moving body, and a unit's level is past those of the units before it that
    // share one, so level by level is an order with the bits of the stored order.
    unit_level_.resize(units.size());
    shapes_.resize(units.size());
    std::uint32_t levels = 0;
    for (std::size_t u = 0; u < units.size(); ++u) {
      shapes_[u] = shape_of(rows, visits, group_of, groups, units[u].begin, units[u].end);
      std::uint32_t level = 0;
      for_moving(units[u], shapes_[u].has_value(),
                 [&](std::uint32_t body) { level = std::max(level, level_of_body_[body]); });
      for_moving(units[u], shapes_[u].has_value(),
                 [&](std::uint32_t body) { level_of_body_[body] = level + 1; });
      unit_level_[u] = level;
      levels = std::max(levels, level + 1);
    }
    delay_into_batches(units, levels, bodies, for_moving);
    // The units by level, each level's in stored order (a counting sort).
    level_end_.assign(levels + 1, 0);
    for (const std::uint32_t level : unit_level_)
      ++level_end_[level + 1];
    for (std::size_t l = 0; l < levels; ++l)
      level_end_[l + 1] += level_end_[l];
    by_level_.resize(units.size());
    for (std::size_t u = 0; u < units.size(); ++u)
      by_level_[level_end_[unit_level_[u]]++] = std::uint32_t(u);
    for (std::size_t l = 0, first = 0; l < levels; first = level_end_[l++])
      add_together(units, std::span(by_level_).subspan(first, level_end_[l] - first));
  }
  // Each colour as one level: its units share no moving body.
  for (std::size_t c = 0; c < schedule.colours(); ++c) {
    begin_segment();
    const std::span<const RowUnit> units = schedule.colour(c);
    shapes_.resize(units.size());
    by_level_.resize(units.size());
    for (std::size_t u = 0; u < units.size(); ++u) {
      shapes_[u] = shape_of(rows, visits, group_of, groups, units[u].begin, units[u].end);
      by_level_[u] = std::uint32_t(u);
    }
    add_together(units, by_level_);
  }
  segment_begin_[segments_] = std::uint32_t(steps_.size());  // the last segment's end
  keep_full_batches();
  std::size_t lanes_size = 0;
  for (UnitBatch& batch : batches_) {
    // A batch of three fills its last lane with its first unit: the two lanes do the same
    // arithmetic on the same values and store the same bits, so the unit is visited once.
    for (std::size_t k = 0; k < k_lanes; ++k) {
      const std::uint32_t begin = batch.first[k < batch.units ? k : 0];
      batch.first[k] = begin;
      batch.body_a[k] = rows.body_a[begin];
      batch.body_b[k] = rows.body_b[begin];
      batch.moves[k] = visits[begin] & (row_visit::a_moves | row_visit::b_moves);
      batch.group[k] = group_of[begin + batch.shape.friction_rows];
    }
  }
  // The compact form where the whole one would not stay in a core's cache from sweep to sweep.
  std::size_t whole_lanes = 0;
  for (const UnitBatch& batch : batches_)
    whole_lanes += batch.shape.friction_rows * FullLayout::friction_row +
                   (batch.shape.lone_row ? FullLayout::lone : FullLayout::group);
  compact_ = whole_lanes * sizeof(Lanes) > compact_above_;
  for (UnitBatch& batch : batches_) {
    batch.lanes_begin = std::uint32_t(lanes_size);
    lanes_size += batch.shape.friction_rows * friction_row_lanes() + normal_lanes(batch.shape);
  }
  lanes_.resize(lanes_size);
  holds_row_.assign(rows.size(), 0);
  for (const UnitBatch& batch : batches_) {
    for (const std::uint32_t first : batch.first)
      std::fill_n(holds_row_.begin() + first, batch.shape.rows(), 1);
  }
  unpacked_.assign(batches_.size(), 0);
  built_ = true;
  visited_in_lanes_.store(false, std::memory_order_relaxed);
  units_ = 0;
  for (const UnitBatch& batch : batches_)
    units_ += batch.units;
  from_store_.assign(batches_.size(), 0);
}

void UnitBatches::reserve(std::size_t rows, std::size_t units, std::size_t bodies) {
  // Doubling where it grows, as a vector's own growth does: a pile's rows grow at most of its
  // layouts while it falls, and reserving each bound exactly reallocated the lanes at each.
  const auto room = [](auto& v, std::size_t n) {
    if (v.capacity() < n) v.reserve(std::max(n, 2 * v.capacity()));
  };
  // Before keep_full_batches a batch may hold one unit; after it, three at least, and each of its
  // friction rows stands for three of the units' rows.
  const std::size_t full = units / UnitBatch::k_min_units + 1;
  room(steps_, units);
  room(kept_steps_, units);
  room(batches_, units);
  room(unit_level_, units);
  room(by_level_, units);
  room(level_end_, units + 1);
  room(shapes_, units);
  room(kind_of_, units);
  room(kind_count_, units * k_reserved_kinds);
  room(kinds_, k_no_kind);
  room(open_, k_no_kind);
  room(level_of_body_, bodies);
  room(holds_row_, rows);
  room(from_store_, full);
  room(unpacked_, full);
  room(lanes_, rows / UnitBatch::k_min_units * FullLayout::friction_row + full * FullLayout::group);
}

template <class ForMoving>
void UnitBatches::delay_into_batches(std::span<const RowUnit> units, std::uint32_t levels,
                                     std::size_t bodies, const ForMoving& for_moving) {
  // Each unit's shape as an index into the shapes met.
  kinds_.clear();
  kind_of_.resize(units.size());
  for (std::size_t u = 0; u < units.size(); ++u) {
    kind_of_[u] = k_no_kind;
    if (!shapes_[u]) continue;
    const auto known = std::find(kinds_.begin(), kinds_.end(), *shapes_[u]);
    if (known == kinds_.end() && kinds_.size() == k_no_kind) continue;  // not moved for a batch
    kind_of_[u] = std::uint8_t(known - kinds_.begin());
    if (known == kinds_.end()) kinds_.push_back(*shapes_[u]);
  }
  const std::size_t kinds = kinds_.size();
  kind_count_.assign(std::size_t(levels) * kinds, 0);
  level_of_body_.assign(bodies, levels);  // now the level of the first later unit that moves it
  for (std::size_t u = units.size(); u-- > 0;) {
    std::uint32_t latest = levels;
    for_moving(units[u], shapes_[u].has_value(),
               [&](std::uint32_t body) { latest = std::min(latest, level_of_body_[body]); });
    --latest;  // at least the unit's own level: a later unit that shares a body is past it
    std::uint32_t level = latest;
    if (kind_of_[u] != k_no_kind) {
      const std::uint32_t earliest =
          std::max(unit_level_[u], latest > k_delay_window ? latest - k_delay_window : 0);
      // The shape's counts level by level, scanned without branches: which level wins is data
      // the predictor cannot learn (with a branch and the counts by level, 2 of 5 of the pile's
      // build samples were the scan's; now 1 of 5).
      std::uint32_t* counts = kind_count_.data() + std::size_t(kind_of_[u]) * levels;
      std::uint32_t filled = 0;  // of the last batch of the unit's shape at `level`
      for (std::uint32_t l = latest + 1; l-- > earliest;) {
        const std::uint32_t at_l = counts[l] % k_lanes;
        const bool fuller = at_l > filled;
        filled = fuller ? at_l : filled;
        level = fuller ? l : level;
      }
      ++counts[level];
    }
    unit_level_[u] = level;
    for_moving(units[u], shapes_[u].has_value(),
               [&](std::uint32_t body) { level_of_body_[body] = level; });
  }
}

std::size_t UnitBatches::default_compact_above() {
  constexpr std::size_t k_unknown_cache = std::size_t(2) << 20;
  long cache = 0;
#ifdef _SC_LEVEL2_CACHE_SIZE
  cache = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  return (cache > 0 ? std::size_t(cache) : k_unknown_cache) / 2;
}

std::size_t UnitBatches::friction_row_lanes() const {
  return compact_ ? CompactLayout::friction_row : FullLayout::friction_row;
}

std::size_t UnitBatches::normal_lanes(const UnitShape& shape) const {
  if (shape.lone_row) return compact_ ? CompactLayout::lone : FullLayout::lone;
  return compact_ ? CompactLayout::group : FullLayout::group;
}

void UnitBatches::add_together(std::span<const RowUnit> units,
                               std::span<const std::uint32_t> together) {
  open_.clear();
  for (const std::uint32_t u : together) {
    const RowUnit& unit = units[u];
    if (!shapes_[u]) {
      steps_.push_back({unit.begin, unit.end, SweepStep::k_alone});
      continue;
    }
    const auto open = std::find_if(open_.begin(), open_.end(),
                                   [&](const OpenBatch& b) { return b.shape == *shapes_[u]; });
    if (open != open_.end()) {
      UnitBatch& batch = batches_[steps_[open->step].batch];
      batch.first[batch.units++] = unit.begin;
      if (batch.units == k_lanes) open_.erase(open);
      continue;
    }
    UnitBatch batch{};
    batch.first[0] = unit.begin;
    batch.units = 1;
    batch.shape = *shapes_[u];
    open_.push_back({batch.shape, std::uint32_t(steps_.size())});
    steps_.push_back({0, 0, std::uint32_t(batches_.size())});
    batches_.push_back(batch);
  }
}

void UnitBatches::keep_full_batches() {
  kept_steps_.clear();
  std::size_t kept = 0;
  for (std::size_t k = 0; k < segments_; ++k) {
    const std::uint32_t begin = segment_begin_[k], end = segment_begin_[k + 1];
    segment_begin_[k] = std::uint32_t(kept_steps_.size());
    for (std::uint32_t s = begin; s < end; ++s) {
      const SweepStep& step = steps_[s];
      if (step.batch == SweepStep::k_alone) {
        kept_steps_.push_back(step);
        continue;
      }
      const UnitBatch& batch = batches_[step.batch];
      if (batch.units >= UnitBatch::k_min_units) {
        kept_steps_.push_back({0, 0, std::uint32_t(kept)});
        batches_[kept++] = batch;  // kept <= step.batch: batches are numbered in step order
        continue;
      }
      const std::uint32_t rows = batch.shape.rows();
      for (std::size_t u = 0; u < batch.units; ++u)
        kept_steps_.push_back({batch.first[u], batch.first[u] + rows, SweepStep::k_alone});
    }
  }
  segment_begin_[segments_] = std::uint32_t(kept_steps_.size());
  batches_.resize(kept);
  steps_.swap(kept_steps_);
  // Each part's first batch (they are numbered in step order); the colours' follow the last part's.
  std::uint32_t batches = 0;
  for (std::size_t p = 0; p < parts_; ++p) {
    part_batches_[p] = batches;
    for (std::uint32_t s = segment_begin_[p]; s < segment_begin_[p + 1]; ++s)
      batches += steps_[s].batch == SweepStep::k_alone ? 0 : 1;
  }
  part_batches_[parts_] = std::uint32_t(batches_.size());
}

template <class Fill>
void UnitBatches::fill_chunk(std::size_t chunk, const Fill& fill) {
  // Each part's batches in its own chunks (the colours' with the last part's): the pool starts
  // each thread on its share of the chunks, so with the parts on several threads the core that
  // packs a part's batches is the one that visits them. Cut evenly, the second part's first few
  // came from the other core's cache at every solve's first sweep (docs/performance.md). One
  // part: an even cut.
  const std::size_t part = chunk * parts_ / k_pack_chunks;
  const auto first_chunk = [&](std::size_t p) { return (p * k_pack_chunks + parts_ - 1) / parts_; };
  const std::size_t c0 = first_chunk(part), chunks = first_chunk(part + 1) - c0;
  const std::size_t b0 = part_batches_[part], batches = part_batches_[part + 1] - b0;
  for (std::size_t b = b0 + batches * (chunk - c0) / chunks;
       b < b0 + batches * (chunk + 1 - c0) / chunks; ++b) {
    const UnitBatch& batch = batches_[b];
    Lanes* out = lanes_.data() + batch.lanes_begin;
    fill(batch, out, out + batch.shape.friction_rows * friction_row_lanes());
  }
}

template <class Fill>
void UnitBatches::for_each_batch(TaskPool* pool, const Fill& fill) {
  run_chunks(pool, batches_.size(), k_pack_chunks, k_parallel_batches,
             [&](std::size_t chunk, std::size_t, std::size_t) { fill_chunk(chunk, fill); });
}

void UnitBatches::pack(const RowStore& rows, std::span<const SolverBodyMass> masses,
                       TaskPool* pool) {
  if (compact_)
    pack_in<true>(rows, masses, pool);
  else
    pack_in<false>(rows, masses, pool);
}

template <bool k_compact>
void UnitBatches::pack_in(const RowStore& rows, std::span<const SolverBodyMass> masses,
                          TaskPool* pool) {
  using L = LaneLayout<k_compact>;
  for_each_batch(pool, [&](const UnitBatch& batch, Lanes* out, Lanes* group_out) {
    const auto of_units = [&](const auto& value) {  // value(k) of each unit k, in lanes
      return Lanes{value(0), value(1), value(2), value(3)};
    };
    // Visited unit by unit from the store: a batch whose rows' J the lanes cannot keep
    // (pack_jacobian), or in the compact form one with a body held to a plane, whose linear
    // response is no multiple of J's (LinearResponse).
    bool from_store = false;
    if constexpr (k_compact) {
      const auto in_plane = [&](std::uint32_t body) {
        return masses[body].plane_normal != Vec3::zero();
      };
      for (std::size_t k = 0; k < k_lanes; ++k)
        from_store = from_store || in_plane(batch.body_a[k]) || in_plane(batch.body_b[k]);
      Lanes* inv_masses = group_out + inv_masses_at(batch.shape);
      inv_masses[0] = of_units([&](std::size_t k) { return masses[batch.body_a[k]].inv_mass; });
      inv_masses[1] = of_units([&](std::size_t k) { return masses[batch.body_b[k]].inv_mass; });
    }
    // Each row's B by components, whole, for the runs' couplings: in its lanes, or for the
    // compact form here.
    std::array<std::array<Lanes, 12>, UnitShape::k_max_friction_rows> compact_response;
    const auto response_of = [&](std::size_t f) {
      return k_compact ? compact_response[f].data() : out + f * L::friction_row + L::response;
    };
    std::array<std::array<Lanes, 3>, UnitShape::k_max_friction_rows> a_linear;  // compact
    for (std::size_t f = 0; f < batch.shape.friction_rows; ++f) {
      Lanes* row = out + f * L::friction_row;
      const auto coefficients = [&](std::size_t k) -> const RowCoefficients& {
        return rows.coefficients[batch.first[k] + f];
      };
      from_store = !pack_jacobian<k_compact>(coefficients, row + L::jacobian, a_linear[f].data()) ||
                   from_store;
      pack_response<k_compact>(coefficients, response_of(f), row + L::response);
      const auto column = [&](const RowColumn<Real>& values) {
        return of_units([&](std::size_t k) { return values[batch.first[k] + f]; });
      };
      // A friction row's bounds per unit of its normal rows' impulse are -mu and mu (pack_row).
      row[L::inv_eff_mass] = column(rows.inv_eff_mass);
      row[L::mu] = column(rows.mu);
      // The run's couplings (RunCoupling: coupling_in_run's products and sums, lane by lane), from
      // the rows' responses, zero on a body that does not move (PgsSolver::prepare).
      const auto coupling = [&](std::size_t earlier) {
        const std::array<const Lanes*, 4> j =
            packed_parts<k_compact>(row + L::jacobian, a_linear[f].data());
        return wide_velocity(j[0], j[1], j[2], j[3], response_of(earlier));
      };
      row[L::coupling_last] = f >= 1 ? coupling(f - 1) : Lanes{};
      row[L::coupling_before_last] = f >= 2 ? coupling(f - 2) : Lanes{};
    }
    const bool normal_packed = batch.shape.lone_row
                                   ? pack_lone_row<k_compact>(rows, batch, group_out)
                                   : pack_group<k_compact>(rows, batch, group_out);
    from_store = !normal_packed || from_store;
    from_store_[std::size_t(&batch - batches_.data())] = from_store ? 1 : 0;
  });
}

// The group's lanes straight from its rows, by assemble_group's and GroupInverter's arithmetic lane
// by lane (the same bits): a batch's groups need no RowGroup unless visited one at a time
// (unpack).
template <bool k_compact>
bool UnitBatches::pack_group(const RowStore& rows, const UnitBatch& batch, Lanes* group_out) {
  using L = LaneLayout<k_compact>;
  const std::size_t friction = batch.shape.friction_rows, group_rows = batch.shape.group_rows;
  const auto row_of = [&](std::size_t k, std::size_t r) { return batch.first[k] + friction + r; };
  // J and B of each row by components (RowGroup::jacobian, transposed), zero past the rows; B
  // whole for the matrix, its angular parts kept.
  std::array<std::array<Lanes, 12>, RowGroup::k_max_rows> compact_response;
  const auto response_of = [&](std::size_t r) {
    return k_compact ? compact_response[r].data() : group_out + L::group_response + 12 * r;
  };
  std::array<std::array<Lanes, 3>, RowGroup::k_max_rows> a_linear{};  // compact; zero past rows
  const auto jacobian_of = [&](std::size_t r) {
    return group_out + L::group_jacobian + L::jacobian_lanes * r;
  };
  const auto angular_of = [&](std::size_t r) {  // the compact form's
    return group_out + L::group_response + L::response_lanes * r;
  };
  bool mirrored = true;
  for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r) {
    if (r >= group_rows) {
      std::fill(jacobian_of(r), jacobian_of(r) + L::jacobian_lanes, Lanes{});
      std::fill(response_of(r), response_of(r) + 12, Lanes{});
      if constexpr (k_compact) std::fill(angular_of(r), angular_of(r) + 6, Lanes{});
    } else {
      const auto coefficients = [&](std::size_t k) -> const RowCoefficients& {
        return rows.coefficients[row_of(k, r)];
      };
      mirrored =
          pack_jacobian<k_compact>(coefficients, jacobian_of(r), a_linear[r].data()) && mirrored;
      pack_response<k_compact>(coefficients, response_of(r), angular_of(r));
    }
  }
  // J M^-1 J^T + softness by columns, each entry summed as group_column sums it.
  GroupMatrices a{};
  std::array<LaneMask, k_g> past{};  // the rows past the group's: every lane's or none
  for (std::size_t c = 0; c < k_g; ++c) {
    past[c] = c >= group_rows ? Lanes{} == Lanes{} : LaneMask{};
    if (c >= group_rows) continue;
    const Lanes* b = response_of(c);
    for (std::size_t r = 0; r < k_g; ++r) {
      const std::array<const Lanes*, 4> j =
          packed_parts<k_compact>(jacobian_of(r), a_linear[r].data());
      const auto dot = [&](std::size_t part) {
        const Lanes* x = j[part];
        const Lanes* y = b + 3 * part;
        return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
      };
      a[c][r] = Lanes{} + (dot(0) + dot(1)) + (dot(2) + dot(3));
    }
    const Lanes softness = Lanes{rows.softness[row_of(0, c)], rows.softness[row_of(1, c)],
                                 rows.softness[row_of(2, c)], rows.softness[row_of(3, c)]};
    a[c][c] += softness;
    group_out[L::softness + c] = softness;
  }
  for (std::size_t c = group_rows; c < k_g; ++c)
    group_out[L::softness + c] = Lanes{};
  GroupMatrices inverse;
  LaneMask factored;
  invert_in_lanes(a, past, inverse, factored);
  for (std::size_t c = 0; c < k_g; ++c) {
    for (std::size_t r = 0; r < k_g; ++r) {
      group_out[L::matrix + 4 * c + r] = a[c][r];
      group_out[L::inverse + 4 * c + r] = inverse[r][c];
    }
  }
  group_out[L::factored] = factored ? splat(1) : Lanes{};
  return mirrored;
}

void UnitBatches::unpack(std::size_t k, const RowStore& rows, std::span<RowGroup> groups,
                         std::span<RunCoupling> couplings, std::span<PackedRow> packed) {
  if (compact_)
    unpack_in<true>(k, rows, groups, couplings, packed);
  else
    unpack_in<false>(k, rows, groups, couplings, packed);
}

template <bool k_compact>
void UnitBatches::unpack_in(std::size_t k, const RowStore& rows, std::span<RowGroup> groups,
                            std::span<RunCoupling> couplings, std::span<PackedRow> packed) {
  using L = LaneLayout<k_compact>;
  if (unpacked_[k] & k_unpacked_whole) return;
  const std::uint8_t groups_unpacked = unpacked_[k];
  unpacked_[k] = k_unpacked_whole | ((1u << k_lanes) - 1);
  const UnitBatch& batch = batches_[k];
  // The biases too, this solve's (PgsSolver::pack_solve_chunk leaves a batch's to its unpack).
  for (std::size_t u = 0; u < batch.units; ++u) {
    for (std::uint32_t i = batch.first[u]; i < batch.first[u] + batch.shape.friction_rows; ++i) {
      pack_row(rows, i, packed[i]);
      packed[i].bias = rows.bias[i];
    }
  }
  for (std::size_t f = 0; f < batch.shape.friction_rows; ++f) {
    const Lanes* row = lanes_.data() + batch.lanes_begin + f * L::friction_row;
    for (std::size_t u = 0; u < batch.units; ++u)
      couplings[batch.first[u] + f] = {row[L::coupling_last][u], row[L::coupling_before_last][u]};
  }
  for (std::size_t u = 0; u < batch.units; ++u) {
    if (!(groups_unpacked & (1u << u))) unpack_group_in<k_compact>(batch, u, rows, groups, packed);
  }
}

void UnitBatches::unpack_group(std::size_t k, std::size_t u, const RowStore& rows,
                               std::span<RowGroup> groups, std::span<PackedRow> packed) {
  if (unpacked_[k] & (1u << u)) return;
  unpacked_[k] |= std::uint8_t(1u << u);
  if (compact_)
    unpack_group_in<true>(batches_[k], u, rows, groups, packed);
  else
    unpack_group_in<false>(batches_[k], u, rows, groups, packed);
}

template <bool k_compact>
void UnitBatches::unpack_group_in(const UnitBatch& batch, std::size_t u, const RowStore& rows,
                                  std::span<RowGroup> groups, std::span<PackedRow> packed) const {
  using L = LaneLayout<k_compact>;
  const std::uint32_t head = batch.first[u] + batch.shape.friction_rows;
  for (std::uint32_t i = head; i < head + batch.shape.group_rows; ++i) {
    pack_row(rows, i, packed[i]);
    packed[i].bias = rows.bias[i];
  }
  if (batch.shape.lone_row) return;  // its packed row is all a lone row's visit reads
  const Lanes* group_in =
      lanes_.data() + batch.lanes_begin + batch.shape.friction_rows * L::friction_row;
  // A RowGroup's field runs over its rows, the batch's lanes over its units: lane u of four
  // entries from `at` on.
  const auto of_unit = [&](std::size_t at) {
    return Lanes{group_in[at][u], group_in[at + 1][u], group_in[at + 2][u], group_in[at + 3][u]};
  };
  RowGroup& group = groups[batch.group[u]];
  assemble_jacobian(rows, group);
  for (std::size_t c = 0; c < k_g; ++c) {
    group.a[c] = of_unit(L::matrix + 4 * c);
    group.inverse[c] = of_unit(L::inverse + 4 * c);
  }
  group.softness = of_unit(L::softness);
  group.regularisation = group_regularisation(group.a);
  group.factored = group_in[L::factored][u] > 0;
  group.bias = biases_of(group.first, group.count, rows.bias.data());
}

void UnitBatches::pack_biases(std::size_t chunk, const Real* bias) {
  if (compact_)
    pack_biases_in<true>(chunk, bias);
  else
    pack_biases_in<false>(chunk, bias);
}

template <bool k_compact>
void UnitBatches::pack_biases_in(std::size_t chunk, const Real* bias) {
  using L = LaneLayout<k_compact>;
  fill_chunk(chunk, [&](const UnitBatch& batch, Lanes* out, Lanes* group_out) {
    const auto biases = [&](std::size_t row) {  // each unit's row `row`, in lanes
      return Lanes{bias[batch.first[0] + row], bias[batch.first[1] + row],
                   bias[batch.first[2] + row], bias[batch.first[3] + row]};
    };
    for (std::size_t f = 0; f < batch.shape.friction_rows; ++f)
      out[f * L::friction_row + L::bias] = biases(f);
    if (batch.shape.lone_row) {
      group_out[L::lone_bias] = biases(batch.shape.friction_rows);
      return;
    }
    // Each unit's group from its own rows (as the batch holds them: the group's lines are not
    // read).
    const auto group_bias = [&](std::size_t k) {
      return biases_of(batch.first[k] + batch.shape.friction_rows, batch.shape.group_rows, bias);
    };
    const std::array<Lanes, 4> t =
        transposed(group_bias(0), group_bias(1), group_bias(2), group_bias(3));
    for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r)
      group_out[L::group_bias + r] = t[r];
  });
}

void UnitBatches::warm_start(std::size_t index, Lanes* velocity, Real* lambda) const {
  if (compact_)
    warm_start_in<true>(index, velocity, lambda);
  else
    warm_start_in<false>(index, velocity, lambda);
}

template <bool k_compact>
void UnitBatches::warm_start_in(std::size_t index, Lanes* velocity, Real* lambda) const {
  using L = LaneLayout<k_compact>;
  const UnitBatch& batch = batches_[index];
  const Lanes* batch_lanes = lanes_.data() + batch.lanes_begin;
  const std::size_t friction = batch.shape.friction_rows;
  const Lanes* g = batch_lanes + friction * L::friction_row;
  const LinearResponse linear = k_compact ? LinearResponse(g, batch) : LinearResponse();
  Lanes v[12];
  gather_side(velocity, batch.body_a, v);
  gather_side(velocity, batch.body_b, v + 6);
  // Row `row` (of each unit) of J and B `jacobian` and `response`, a friction row or a lone row.
  const auto start_row = [&](std::size_t row, const Lanes* jacobian, const Lanes* response,
                             const Lanes& inv_eff_mass) {
    const LaneMask usable = inv_eff_mass != Lanes{};
    if (lane_bits(usable) == (1u << k_lanes) - 1) {
      wide_apply<k_compact>(jacobian, response, linear, gather_lambda(lambda, batch, row), v);
      return;
    }
    // An inert row (J M^-1 J^T zero or not finite) drops its impulse and its lane keeps its
    // velocities: zero times a B that is not finite is NaN, and adding zero turns a -0 to +0.
    const Lanes impulse = usable ? gather_lambda(lambda, batch, row) : Lanes{};
    scatter_lambda(lambda, batch, row, impulse);
    Lanes kept[12];
    std::copy(v, v + 12, kept);
    wide_apply<k_compact>(jacobian, response, linear, impulse, v);
    keep_lanes(~usable, kept, 12, v);
  };
  for (std::size_t f = 0; f < friction; ++f) {
    const Lanes* r = batch_lanes + f * L::friction_row;
    start_row(f, r + L::jacobian, r + L::response, r[L::inv_eff_mass]);
  }
  if (batch.shape.lone_row)
    start_row(friction, g + L::lone_jacobian, g + L::lone_response, g[L::lone_inv_eff_mass]);
  // A group's rows are usable (groupable).
  for (std::size_t r = 0; !batch.shape.lone_row && r < batch.shape.group_rows; ++r) {
    wide_apply<k_compact>(g + L::group_jacobian + L::jacobian_lanes * r,
                          g + L::group_response + L::response_lanes * r, linear,
                          gather_lambda(lambda, batch, friction + r), v);
  }
  scatter_side(velocity, batch.body_a, batch.moves, row_visit::a_moves, v);
  scatter_side(velocity, batch.body_b, batch.moves, row_visit::b_moves, v + 6);
}

BatchVisit UnitBatches::visit(std::size_t index, Lanes* velocity, Real* lambda, Real sor,
                              bool changes) {
  if (changes) {
    return compact_ ? visit_in<true, true>(index, velocity, lambda, sor)
                    : visit_in<false, true>(index, velocity, lambda, sor);
  }
  return compact_ ? visit_in<true, false>(index, velocity, lambda, sor)
                  : visit_in<false, false>(index, velocity, lambda, sor);
}

template <bool k_compact, bool k_changes>
BatchVisit UnitBatches::visit_in(std::size_t index, Lanes* velocity, Real* lambda, Real sor) {
  using L = LaneLayout<k_compact>;
  const UnitBatch& batch = batches_[index];
  const Lanes* batch_lanes = lanes_.data() + batch.lanes_begin;
  const std::size_t friction = batch.shape.friction_rows, group_rows = batch.shape.group_rows;
  const Lanes* g = batch_lanes + friction * L::friction_row;
  const LinearResponse linear = k_compact ? LinearResponse(g, batch) : LinearResponse();
  const Lanes relax = splat(sor);
  const LaneMask all = Lanes{} == Lanes{};
  Lanes v[12];
  gather_side(velocity, batch.body_a, v);
  gather_side(velocity, batch.body_b, v + 6);
  // The groups' impulses, padded with zeros (group_lambdas); the friction bounds read them.
  Lanes before[RowGroup::k_max_rows] = {};
  for (std::size_t r = 0; r < group_rows; ++r)
    before[r] = gather_lambda(lambda, batch, friction + r);
  Lanes largest{};

  // The friction runs (visit_friction_run), lane by lane the same arithmetic.
  {
    Lanes lambdas[UnitShape::k_max_friction_rows], normal[UnitShape::k_max_friction_rows];
    LaneMask idle = all;
    for (std::size_t f = 0; f < friction; ++f) {
      lambdas[f] = gather_lambda(lambda, batch, f);
      const Lanes* first = before + batch.shape.normal_of[f];
      Lanes load = first[0];  // sum_normal_impulses
      for (std::size_t n = 1; n < batch.shape.normal_count; ++n)
        load += first[n];
      normal[f] = load;
      idle &= (lambdas[f] == Lanes{}) & (load == Lanes{});
    }
    // Lanes with nothing to do keep their velocities (kept only when some lane has nothing to do).
    const unsigned idle_lanes = lane_bits(idle);
    Lanes start[12];
    if (idle_lanes != 0) std::copy(v, v + 12, start);
    const auto row = [&](std::size_t f) { return batch_lanes + f * L::friction_row; };
    const auto unclamped = [&](std::size_t f) {
      const Lanes* r = row(f);
      return unclamped_impulse(lambdas[f], lane_velocity<k_compact>(r + L::jacobian, v), r[L::bias],
                               relax * r[L::inv_eff_mass]);
    };
    Lanes u = unclamped(0), u_next = unclamped(1);
    Lanes delta_last{}, delta_before{}, changed{};
    for (std::size_t f = 0;; ++f) {
      const Lanes* r = row(f);
      const Lanes next = run_row_impulse(u, relax * r[L::inv_eff_mass], r[L::coupling_before_last],
                                         r[L::coupling_last], delta_before, delta_last,
                                         -(r[L::mu] * normal[f]), r[L::mu] * normal[f]);
      const Lanes delta = next - lambdas[f];
      scatter_lambda(lambda, batch, f, idle ? lambdas[f] : next);
      if constexpr (k_changes) changed = lane_max(changed, lane_abs(delta));
      const Lanes u_after_next = f + 2 < friction ? unclamped(f + 2) : Lanes{};
      wide_apply<k_compact>(r + L::jacobian, r + L::response, linear, delta, v);
      if (f + 1 == friction) break;
      u = u_next;
      u_next = u_after_next;
      delta_before = delta_last;
      delta_last = delta;
    }
    // A run with no impulse on any row nor on its normal rows is not visited.
    if (idle_lanes != 0) keep_lanes(idle, start, 12, v);
    largest = idle ? Lanes{} : changed;
  }

  // A body that does not move is not stored after the runs, and visit_group or a lone row's visit
  // reads it afresh (the runs added zero times its response, which may have turned a -0 to +0).
  restore_still(velocity, batch.body_a, batch.moves, row_visit::a_moves, v);
  restore_still(velocity, batch.body_b, batch.moves, row_visit::b_moves, v + 6);
  // The velocities stored, and the largest change and `left`, the units whose group is to be
  // visited alone, returned.
  const auto finish = [&](const Lanes& changes, unsigned left) {
    scatter_side(velocity, batch.body_a, batch.moves, row_visit::a_moves, v);
    scatter_side(velocity, batch.body_b, batch.moves, row_visit::b_moves, v + 6);
    Real largest_change = 0;
    for (std::size_t k = 0; k < k_lanes; ++k)
      largest_change = std::max(largest_change, changes[k]);
    if (!visited_in_lanes_.load(std::memory_order_relaxed))
      visited_in_lanes_.store(true, std::memory_order_relaxed);
    return BatchVisit{largest_change, std::uint8_t(left)};
  };
  if (batch.shape.lone_row) {
    const Lanes change = visit_lone_rows<k_compact>(batch, g, linear, relax, before[0], v, lambda);
    return finish(k_changes ? lane_max(largest, change) : Lanes{}, 0);
  }
  // The groups (visit_group): the all-rows solve with its refinement, kept where every row or
  // none pushed before the visit and every row pushes now; where some rows pushed and the others
  // carried nothing, the guess that those rows push (solve_active). The others are visited
  // alone afterwards (visit_group tries the all-rows solve after a failed guess).
  // A row past the group's has J zero whole (+0 in every part, as RowGroup::jacobian), which the
  // compact form cannot keep (its body a linear part would be -0).
  const std::array<Lanes, 12> none{};
  Lanes errors[RowGroup::k_max_rows];
  for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r) {
    const Lanes jv =
        r < group_rows ? lane_velocity<k_compact>(g + L::group_jacobian + L::jacobian_lanes * r, v)
                       : whole_velocity(none.data(), v);
    errors[r] = (jv - g[L::group_bias + r]) + g[L::softness + r] * before[r];
  }
  LaneMask idle = all, none_pushed = all, all_pushed = all;
  for (std::size_t r = 0; r < group_rows; ++r) {
    idle &= (before[r] == Lanes{}) & (errors[r] >= Lanes{});
    none_pushed &= ~(before[r] > Lanes{});
    all_pushed &= before[r] > Lanes{};
  }
  const auto entry = [&](std::size_t at, std::size_t c, std::size_t r) {
    return g[at + 4 * c + r];
  };
  const auto solve = [&](const Lanes* x, Lanes* out) {
    for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r) {
      out[r] = entry(L::inverse, 0, r) * x[0] + entry(L::inverse, 1, r) * x[1] +
               entry(L::inverse, 2, r) * x[2] + entry(L::inverse, 3, r) * x[3];
    }
  };
  Lanes negated[RowGroup::k_max_rows], change[RowGroup::k_max_rows];
  for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r)
    negated[r] = -errors[r];
  solve(negated, change);
  Lanes rest[RowGroup::k_max_rows], refined[RowGroup::k_max_rows];
  for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r) {
    // The regularisation as RowGroup keeps it (group_regularisation): the diagonal times 1e-5.
    const Lanes moved = entry(L::matrix, 0, r) * change[0] + entry(L::matrix, 1, r) * change[1] +
                        entry(L::matrix, 2, r) * change[2] + entry(L::matrix, 3, r) * change[3] +
                        entry(L::matrix, r, r) * splat(k_group_regularisation) * change[r];
    rest[r] = negated[r] - moved;
  }
  solve(rest, refined);
  const LaneMask factored = g[L::factored] > Lanes{};
  LaneMask solved = factored & (none_pushed | all_pushed);
  Lanes target[RowGroup::k_max_rows];
  for (std::size_t r = 0; r < RowGroup::k_max_rows; ++r) {
    target[r] = before[r] + (change[r] + refined[r]);
    solved &= target[r] >= Lanes{};
  }
  // The guess of the rows that pushed, on each such lane's group as visit_group holds it (the
  // same function, the same bits); a lane whose guess fails is left to visit_group, which tries
  // the all-rows solve next. Each lane's matrix, impulses and errors come by transposes (lane k
  // of the result is group k's).
  const LaneMask some_pushed = factored & ~none_pushed & ~all_pushed;
  if (lane_bits(some_pushed) != 0) {
    std::array<GroupMatrix, k_lanes> a;
    for (std::size_t c = 0; c < k_g; ++c) {
      const std::array<Lanes, 4> column =
          transposed(entry(L::matrix, c, 0), entry(L::matrix, c, 1), entry(L::matrix, c, 2),
                     entry(L::matrix, c, 3));
      for (std::size_t k = 0; k < k_lanes; ++k)
        a[k][c] = column[k];
    }
    std::array<Lanes, 4> impulses = transposed(before[0], before[1], before[2], before[3]);
    const std::array<Lanes, 4> w = transposed(errors[0], errors[1], errors[2], errors[3]);
    for (std::size_t k = 0; k < k_lanes; ++k) {
      if (some_pushed[k] == 0) continue;
      std::array<bool, k_g> pushed{};
      for (std::size_t r = 0; r < group_rows; ++r)
        pushed[r] = impulses[k][r] > 0;
      if (!solve_active(a[k], group_rows, pushed, impulses[k], w[k])) continue;
      solved[k] = -1;
      for (std::size_t r = 0; r < group_rows; ++r)
        target[r][k] = impulses[k][r];
    }
  }
  const LaneMask settled = solved & ~idle;
  const bool all_settled = lane_bits(settled) == (1u << k_lanes) - 1;
  Lanes kept[12];
  if (!all_settled) std::copy(v, v + 12, kept);
  for (std::size_t r = 0; r < group_rows; ++r) {
    const Lanes next = relaxed_impulse(before[r], target[r], relax);
    const Lanes delta = next - before[r];
    scatter_lambda(lambda, batch, friction + r, settled ? next : before[r]);
    wide_apply<k_compact>(g + L::group_jacobian + L::jacobian_lanes * r,
                          g + L::group_response + L::response_lanes * r, linear, delta, v);
    if constexpr (k_changes) largest = lane_max(largest, settled ? lane_abs(delta) : Lanes{});
  }
  if (!all_settled) keep_lanes(~settled, kept, 12, v);
  const unsigned units = (1u << batch.units) - 1;  // not a padding lane
  return finish(largest, lane_bits(~idle & ~settled) & units);
}

}  // namespace impulse
