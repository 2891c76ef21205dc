// Projected Gauss-Seidel on the sparse rows (seed 001 algorithm 4), which is the sequential-impulse
// method of seeds 003 and 004: each row in turn gets the impulse that zeroes its velocity error,
// the accumulated impulse (not the increment) is clamped to the bounds, and the velocities are
// updated at once so the next row sees them. A disc pair (cone friction) is visited as one: both
// tangent rows step from the same velocities with the pair's one step, the accumulated impulse
// vector is clamped to the disc (seed 003), and the change is applied. A manifold's normal rows
// are visited as one small LCP (RowGroup), and the bilateral rows as one exact sparse solve at the
// start of each sweep (EqualityBlock): docs/solvers.md.

#include "solver/pgs_solver.h"

#include "core/buffer_turns.h"
#include "core/byte_flags.h"
#include "core/lanes.h"
#include "solver/group_solve.h"
#include "solver/residual.h"
#include "solver/row_visit.h"
#include "solver/visit_arithmetic.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <type_traits>
#include <utility>

namespace impulse {
namespace {

// How a visit reads a row's velocity error and applies an impulse: straight from the RowStore
// and the bodies' velocities (pgs_visit_row, for the block solver), or from PGS's packed rows
// beside the store's coefficients (PackedAccess).
struct StoreAccess {
  RowStore& rows;
  std::span<BodyVelocity> v;
  Real error(std::size_t i) const { return row_error(rows, i, v); }
  void apply(std::size_t i, Real delta) const { apply_row_impulse(rows, i, delta, v); }
  Real& lambda(std::size_t i) const { return rows.lambda[i]; }
  Real inv_eff_mass(std::size_t i) const { return rows.inv_eff_mass[i]; }
  std::pair<Real, Real> friction_bounds(std::size_t i) const {
    const Real bound = rows.mu[i] * rows.normal_load(i);
    return {-bound, bound};
  }
};

}  // namespace

// J v of a packed row given its bodies' velocity lanes: summed lane by lane per body, then across
// the lanes. One sum across all four products instead rounds a row between two bodies moving
// together away from zero: seed 001's ten-stack (metre-scale numbers in a 100-unit world) fell.
[[gnu::always_inline]] inline Real packed_velocity(const RowCoefficients& row, const Lanes& a0,
                                                   const Lanes& a1, const Lanes& b0,
                                                   const Lanes& b1) {
  const std::array<Lanes, 4>& j = row.jacobian;
  return sum3(j[0] * a0 + j[1] * a1) + sum3(j[2] * b0 + j[3] * b1);
}

// The packed rows (PackedRow) beside the store's coefficients, and the velocities padded to lanes,
// contiguous per body: one load per 3-vector, and J v as a sum across the lanes per body (two
// bodies moving together give exactly zero). The impulses stay in the RowStore.
struct PackedAccess {
  const PackedRow* rows;
  const RowCoefficients* coefficients;
  Real* lambdas;
  Lanes* velocity;                  // 2 per body: linear, angular
  const std::uint8_t* visits;       // per row: row_visit
  const RunCoupling* run_coupling;  // per row: PgsSolver::run_coupling_
  [[gnu::always_inline]] const PackedRow& row(std::size_t i) const { return rows[i]; }
  [[gnu::always_inline]] const RowCoefficients& coefficients_of(std::size_t i) const {
    return coefficients[i];
  }
  [[gnu::always_inline]] Real& lambda(std::size_t i) const { return lambdas[i]; }
  [[gnu::always_inline]] Real inv_eff_mass(std::size_t i) const { return rows[i].inv_eff_mass; }
  // J v of row i.
  [[gnu::always_inline]] Real row_velocity(std::size_t i) const {
    const PackedRow& row = rows[i];
    const Lanes* a = velocity + 2 * std::size_t(row.body_a);
    const Lanes* b = velocity + 2 * std::size_t(row.body_b);
    return packed_velocity(coefficients[i], a[0], a[1], b[0], b[1]);
  }
  [[gnu::always_inline]] Real error(std::size_t i) const {
    const PackedRow& row = rows[i];
    return row_velocity(i) - row.bias + row.softness * lambdas[i];
  }
  [[gnu::always_inline]] void apply(std::size_t i, Real delta) const {
    const PackedRow& row = rows[i];
    const std::array<Lanes, 4>& r = coefficients[i].response;
    if (visits[i] & row_visit::a_moves) {
      Lanes* a = velocity + 2 * std::size_t(row.body_a);
      a[0] += delta * r[0];
      a[1] += delta * r[1];
    }
    if (visits[i] & row_visit::b_moves) {
      Lanes* b = velocity + 2 * std::size_t(row.body_b);
      b[0] += delta * r[2];
      b[1] += delta * r[3];
    }
  }
  // The impulse of row i's normal rows (RowStore::normal_load), given their count.
  [[gnu::always_inline]] Real normal_load(std::size_t i, std::size_t count) const {
    return sum_normal_impulses(lambdas + rows[i].normal_row, count);
  }
  [[gnu::always_inline]] std::pair<Real, Real> friction_bounds(std::size_t i,
                                                               std::size_t count) const {
    const PackedRow& row = rows[i];
    const Real normal = normal_load(i, count);
    return {row.lo * normal, row.hi * normal};  // -(mu n) and mu n exactly
  }
  [[gnu::always_inline]] std::pair<Real, Real> friction_bounds(std::size_t i) const {
    return friction_bounds(i, row_visit::normal_count(visits[i]));
  }
};

namespace {

// Row i alone, its impulse clamped to [lo, hi].
template <class Access>
[[gnu::always_inline]] inline Real visit_bounded_row(const Access& access, std::size_t i, Real sor,
                                                     Real lo, Real hi) {
  // The step first, off the chain of operations that waits for the velocities (with sor 1 the
  // same bits as sor * w * m).
  const Real step = sor * access.inv_eff_mass(i);
  const Real w = access.error(i);
  Real& lambda = access.lambda(i);
  const Real old_lambda = lambda;
  const Real new_lambda = std::clamp(old_lambda - w * step, lo, hi);
  const Real delta = new_lambda - old_lambda;
  lambda = new_lambda;
  if (delta != 0) access.apply(i, delta);
  return std::abs(delta);
}

// A friction row's bounds: mu times its normal rows' impulse, read once.
template <class Access>
[[gnu::always_inline]] inline Real visit_friction_row(const Access& access, std::size_t i,
                                                      Real sor) {
  const auto [lo, hi] = access.friction_bounds(i);
  return visit_bounded_row(access, i, sor, lo, hi);
}

template <class Access>
[[gnu::always_inline]] inline Real visit_row(RowStore& rows, const Access& access, std::size_t i,
                                             Real sor) {
  return rows.normal_row[i] < 0 ? visit_bounded_row(access, i, sor, rows.lo[i], rows.hi[i])
                                : visit_friction_row(access, i, sor);
}

template <class Access>
[[gnu::always_inline]] inline Real visit_disc_pair(RowStore& rows, const Access& access,
                                                   std::size_t i, Real sor) {
  const Real step = sor * rows.disc_step[i];
  const Real old1 = access.lambda(i), old2 = access.lambda(i + 1);
  const TangentPair next = project_to_disc(
      {old1 - step * access.error(i), old2 - step * access.error(i + 1)}, rows.disc_radius(i));
  access.lambda(i) = next.t1;
  access.lambda(i + 1) = next.t2;
  access.apply(i, next.t1 - old1);
  access.apply(i + 1, next.t2 - old2);
  return std::max(std::abs(next.t1 - old1), std::abs(next.t2 - old2));
}

// The velocities of the two bodies that consecutive rows join (a manifold's friction rows, a
// group's rows), held in registers from the first row to the last: loaded once, each row's
// impulse added, stored once (to a body that moves). A body that does not move has a zero
// response (PgsSolver::prepare), so the impulses are added to both without a test.
class PairVelocities {
 public:
  [[gnu::always_inline]] PairVelocities(const PackedAccess& access, std::size_t first)
      : PairVelocities(access, first, access.row(first).body_a, access.row(first).body_b) {}
  // Row `first` joins bodies a and b (as its packed row says).
  [[gnu::always_inline]] PairVelocities(const PackedAccess& access, std::size_t first,
                                        std::uint32_t a, std::uint32_t b)
      : moves_(access.visits[first]),
        a_(access.velocity + 2 * std::size_t(a)),
        b_(access.velocity + 2 * std::size_t(b)),
        a0_(a_[0]),
        a1_(a_[1]),
        b0_(b_[0]),
        b1_(b_[1]) {}
  [[gnu::always_inline]] Real velocity(const RowCoefficients& row) const {
    return packed_velocity(row, a0_, a1_, b0_, b1_);
  }
  [[gnu::always_inline]] void apply(const RowCoefficients& row, Real delta) {
    const std::array<Lanes, 4>& r = row.response;
    const Lanes d = splat(delta);
    a0_ += d * r[0];
    a1_ += d * r[1];
    b0_ += d * r[2];
    b1_ += d * r[3];
  }
  [[gnu::always_inline]] void store() const {
    if (moves_ & row_visit::a_moves) {
      a_[0] = a0_;
      a_[1] = a1_;
    }
    if (moves_ & row_visit::b_moves) {
      b_[0] = b0_;
      b_[1] = b1_;
    }
  }

 private:
  std::uint8_t moves_;
  Lanes *a_, *b_;
  Lanes a0_, a1_, b0_, b1_;
};

// J v of a group's rows, lane r being row r: the products and sums of PackedAccess::error, four
// rows at a time (the same bits).
[[gnu::always_inline]] inline Lanes group_velocities(const PackedAccess& access,
                                                     const RowGroup& group) {
  const std::array<Lanes, 12>& j = group.jacobian;
  const PackedRow& head = access.row(group.first);
  const auto side = [&](std::uint32_t body, std::size_t c) {
    const Lanes* v = access.velocity + 2 * std::size_t(body);
    const Lanes x = j[c] * splat(v[0][0]) + j[c + 3] * splat(v[1][0]);
    const Lanes y = j[c + 1] * splat(v[0][1]) + j[c + 4] * splat(v[1][1]);
    const Lanes z = j[c + 2] * splat(v[0][2]) + j[c + 5] * splat(v[1][2]);
    return x + y + z;
  };
  return side(head.body_a, 0) + side(head.body_b, 6);
}

// The impulses of a group's rows, lane r being row r (zero past count): a group of four in one
// load; a smaller one row by row, since the rows after it are another unit's, which another
// thread may be writing.
[[gnu::always_inline]] inline Lanes group_lambdas(const PackedAccess& access,
                                                  const RowGroup& group) {
  const Real* lambdas = &access.lambda(group.first);
  Lanes loaded{};
  if (group.count == RowGroup::k_max_rows) {
    __builtin_memcpy(&loaded, lambdas, sizeof(Lanes));
    return loaded;
  }
  for (std::size_t r = 0; r < group.count; ++r)
    loaded[r] = lambdas[r];
  return loaded;
}

// The group's impulses that zero its rows' velocity errors given everything else: the direct
// solve, kept if every row still pushes (a box resting flat: the common case), and the same with
// only the rows that pushed before the visit (a box resting on an edge stays on it), that one
// first when some rows pushed and others carried nothing; then with only the rows the direct
// solve left pushing; else projected Gauss-Seidel within the group on its own matrix until the
// impulses settle (a few sweeps of k^2 flops each). The change is applied once. Returns the
// largest impulse change where k_changes asks for it (a solve that reads it), else 0.
template <bool k_changes>
[[gnu::always_inline]] inline Real visit_group(const PackedAccess& access, const RowGroup& group,
                                               Real sor) {
  constexpr int k_max_sweeps = 32;
  const std::size_t first = group.first, k = group.count;
  const Lanes before = group_lambdas(access, group);
  const Lanes errors_before =
      group_velocities(access, group) - group.bias + group.softness * before;
  // Carrying nothing and separating everywhere (a speculative contact, a box lifting off): zero
  // impulses solve the group's LCP, which has one solution, and nothing changes.
  bool idle = true;
  for (std::size_t r = 0; r < k; ++r)
    idle = idle && before[r] == 0 && errors_before[r] >= 0;
  if (idle) return 0;
  Lanes lambda = before;
  Lanes target{};  // the impulses the visit moves to (sor 1), zero past count
  bool solved = false, all_rows = false;
  // The rows that pushed before the visit. When only some did, most visits find the same rows
  // pushing (an edge's two points), and the all-rows solve would have been wasted on them. Where
  // both guesses hold (three of four coplanar points pushed: their zero velocities fix the
  // fourth's, so it separates or not by rounding), this keeps the three-point split of the load
  // that the all-rows solve would have spread over four, the same velocities.
  std::array<bool, k_g> pushed{};
  std::size_t pushed_rows = 0;
  for (std::size_t r = 0; r < k; ++r) {
    pushed[r] = lambda[r] > 0;
    pushed_rows += pushed[r] ? 1 : 0;
  }
  const bool some_pushed = pushed_rows > 0 && pushed_rows < k;
  if (group.factored && some_pushed)
    solved = solve_active(group.a, group.count, pushed, lambda, errors_before);
  if (group.factored && !solved) {
    const std::array<Lanes, k_g>& inverse = group.inverse;
    const auto solve = [&](const Lanes& v) {
      return inverse[0] * splat(v[0]) + inverse[1] * splat(v[1]) + inverse[2] * splat(v[2]) +
             inverse[3] * splat(v[3]);
    };
    const std::array<Lanes, k_g>& a = group.a;
    // One step of iterative refinement: the inverse of a nearly singular group (four coplanar
    // points) is accurate only to its condition number times the rounding, and what is left of
    // the error then pushes a box's corners unevenly (a resting column walked sideways, a dragged
    // box bumped); the refined change zeroes the errors as a substitution would.
    const Lanes change = solve(-errors_before);
    const Lanes moved = a[0] * splat(change[0]) + a[1] * splat(change[1]) +
                        a[2] * splat(change[2]) + a[3] * splat(change[3]) +
                        group.regularisation * change;
    const Lanes all = before + (change + solve(-errors_before - moved));
    const SmallVector step = to_array(all);
    // lo is 0 for every groupable row; the padding lanes stay 0.
    solved = std::all_of(step.begin(), step.end(), [](Real x) { return x >= 0; });
    if (solved) {
      target = all;
      all_rows = true;
    } else {
      // The rows the all-rows solve left pushing (a contact coming off one edge).
      std::array<bool, k_g> pushing{};
      for (std::size_t r = 0; r < k; ++r)
        pushing[r] = step[r] > 0;
      solved =
          pushing != pushed && solve_active(group.a, group.count, pushing, lambda, errors_before);
    }
  }
  Lanes errors = errors_before;
  Real scale = 0;  // of the impulses, for the fallback's stop
  for (std::size_t r = 0; r < k && !solved; ++r)
    scale = std::max(scale, std::abs(lambda[r]));
  for (int sweep = 0; sweep < k_max_sweeps && !solved; ++sweep) {
    Real largest = 0;
    for (std::size_t r = 0; r < k; ++r) {
      const PackedRow& row = access.row(first + r);
      const Real next = std::clamp(lambda[r] - errors[r] * row.inv_eff_mass, row.lo, row.hi);
      const Real delta = next - lambda[r];
      if (delta == 0) continue;
      lambda[r] = next;
      errors += group.a[r] * delta;
      largest = std::max(largest, std::abs(delta));
      scale = std::max(scale, std::abs(next));
    }
    if (largest <= Real(1e-6) * scale) break;
  }
  if (!all_rows) target = lambda;
  // The change over-relaxed and clamped, in lanes; applied row by row.
  const Lanes next = relaxed_impulse(before, target, splat(sor));
  const Lanes delta = next - before;
  Real largest = 0;
  PairVelocities v(access, first);
  for (std::size_t r = 0; r < k; ++r) {
    access.lambda(first + r) = next[r];
    v.apply(access.coefficients_of(first + r), delta[r]);
    if constexpr (k_changes) largest = std::max(largest, std::abs(delta[r]));
  }
  v.store();
  return largest;
}

// A row that may join a group: one-sided with fixed bounds, usable, not friction, between two
// bodies.
bool groupable(const RowStore& rows, std::size_t i) {
  return rows.normal_row[i] < 0 && rows.cone[i] == 0 && !rows.disc_second(i) &&
         rows.inv_eff_mass[i] > 0 && rows.lo[i] == 0 && rows.hi[i] == k_infinity &&
         rows.body_a[i] != rows.body_b[i];
}

// Whether rows i and j are the two ends of one range (a joint's limits on one coordinate:
// J_j = -J_i). They never push at once, and together they make a group's matrix singular, so
// every visit that was not idle left the direct solve for the active-set one; in a group with
// the range's other end left out, the two ends were treated unlike.
[[gnu::always_inline]] inline bool opposed(const RowStore& rows, std::size_t i, std::size_t j) {
  // J M^-1 J^T is the same for J and -J, bit for bit: a test that turns most rows away at once.
  if (rows.diagonal[i] != rows.diagonal[j]) return false;
  const std::array<Lanes, 4>& a = rows.coefficients[i].jacobian;
  const std::array<Lanes, 4>& b = rows.coefficients[j].jacobian;
  for (std::size_t side = 0; side < 4; ++side) {
    if (lane_bits(a[side] == -b[side]) != (1u << 4) - 1) return false;
  }
  return true;
}

// Column c of a group's matrix, J_r M^-1 J_c^T for every row r (lane r) from the group's Jacobian
// by components and row c's B: RowStore::coupling's products summed in its order (body a's two,
// then body b's two; the rows of a group join two different bodies).
Lanes group_column(const std::array<Lanes, 12>& j, const RowCoefficients& column) {
  const std::array<Lanes, 4>& b = column.response;
  const auto dot = [&](std::size_t c, const Lanes& v) {
    return j[c] * splat(v[0]) + j[c + 1] * splat(v[1]) + j[c + 2] * splat(v[2]);
  };
  return Lanes{} + (dot(0, b[0]) + dot(3, b[1])) + (dot(6, b[2]) + dot(9, b[3]));
}

template <class Access>
[[gnu::always_inline]] inline Real visit(RowStore& rows, const Access& access, std::size_t i,
                                         Real sor) {
  if (rows.disc_second(i)) return 0;  // visited with its first row
  return rows.disc_first(i) ? visit_disc_pair(rows, access, i, sor)
                            : visit_row(rows, access, i, sor);
}

// The friction rows of the run that starts at row i (row_visit::friction_run); returns the largest
// impulse change and sets `next` past the run. A row's new impulse before clamping,
// u = lambda - step (J v - bias), is found two rows ahead, from the velocities before the changes
// of the two rows in between, and corrected by those changes times the rows' couplings
// (RunCoupling): the dot products run beside the clamps, and the chain from one row to the next is
// a multiply-add and a clamp (the same iteration; only the rounding differs). k_one_normal: each
// row has one normal row (the per-point models' runs), known at compile time; else the run's rows
// share their count (find_friction_runs). k_changes: as visit_group's.
template <bool k_one_normal, bool k_changes>
[[gnu::always_inline]] inline Real visit_friction_run(const PackedAccess& access, std::uint32_t i,
                                                      std::uint32_t& next, Real sor) {
  const std::size_t normals = k_one_normal ? 1 : row_visit::normal_count(access.visits[i]);
  const auto idle = [&](std::uint32_t k) {
    return access.lambda(k) == 0 && access.normal_load(k, normals) == 0;
  };
  const auto later_in_run = [&](std::uint32_t k) {
    return row_visit::later_in_run(access.visits[k]);
  };
  if (idle(i)) {
    // No impulse on any row and none on their normal rows (a speculative contact): every bound
    // is zero, so every row stays at zero and nothing changes.
    std::uint32_t end = i + 1;
    bool all_idle = true;
    for (; later_in_run(end); ++end)
      all_idle = all_idle && idle(end);
    if (all_idle) {
      next = end;
      return 0;
    }
  }
  PairVelocities v(access, i);
  Real largest = 0;
  const auto step_of = [&](std::uint32_t r) { return sor * access.row(r).inv_eff_mass; };
  // Row r's u from the velocities so far (friction rows are never soft: RowStore::add).
  const auto unclamped = [&](std::uint32_t r) {
    return unclamped_impulse(access.lambda(r), v.velocity(access.coefficients_of(r)),
                             access.row(r).bias, step_of(r));
  };
  std::uint32_t k = i;
  bool more = later_in_run(k + 1);
  Real u = unclamped(k), u_next = more ? unclamped(k + 1) : 0;
  Real delta_last = 0, delta_before = 0;  // the changes of the last row and of the one before it
  for (;;) {
    const RunCoupling& coupling = access.run_coupling[k];
    Real& lambda = access.lambda(k);
    const auto [lo, hi] = access.friction_bounds(k, normals);
    const Real new_lambda = run_row_impulse(u, step_of(k), coupling.before_last, coupling.last,
                                            delta_before, delta_last, lo, hi);
    const Real delta = new_lambda - lambda;
    lambda = new_lambda;
    if constexpr (k_changes) largest = std::max(largest, std::abs(delta));
    const bool after_next = more && later_in_run(k + 2);
    const Real u_after_next = after_next ? unclamped(k + 2) : 0;  // before this row's change
    v.apply(access.coefficients_of(k), delta);
    if (!more) break;
    u = u_next;
    u_next = u_after_next;
    more = after_next;
    delta_before = delta_last;
    delta_last = delta;
    ++k;
  }
  v.store();
  next = k + 1;
  return largest;
}

// Row i as a sweep visits it (row_visit): alone, with its disc partner, as the first of its group
// or friction run (all of it; a shuffled sweep, k_runs false, visits a run's rows one by one), or
// not at all. `next` is set past the rows the visit took. k_changes: as visit_group's (the groups'
// and runs' changes; a row alone still gives its own).
template <bool k_runs, bool k_changes>
[[gnu::always_inline]] inline Real visit_packed(RowStore& rows, const PackedAccess& access,
                                                std::uint32_t i, std::uint32_t& next,
                                                const std::uint32_t* group_of,
                                                const RowGroup* groups, Real sor) {
  switch (access.visits[i] & row_visit::kind_mask) {
    case row_visit::fixed_bounds: {
      next = i + 1;
      const PackedRow& row = access.row(i);
      return visit_bounded_row(access, i, sor, row.lo, row.hi);
    }
    case row_visit::friction_run:
      if constexpr (k_runs) {
        return row_visit::normal_count(access.visits[i]) == 1
                   ? visit_friction_run<true, k_changes>(access, i, next, sor)
                   : visit_friction_run<false, k_changes>(access, i, next, sor);
      }
      [[fallthrough]];
    case row_visit::friction_more:
    case row_visit::friction:
      next = i + 1;
      return visit_friction_row(access, i, sor);
    case row_visit::disc_pair:
      next = i + 2;
      return visit_disc_pair(rows, access, i, sor);
    case row_visit::group: {
      const RowGroup& group = groups[group_of[i]];
      next = i + group.count;
      return visit_group<k_changes>(access, group, sor);
    }
    default:
      next = i + 1;
      return 0;
  }
}

// The residual measure (measure_rows) from the packed velocities, which stay packed until the end
// of a solve.
ResidualMeasure measure_packed(const RowStore& rows, const PackedAccess& access, Real b_norm,
                               TaskPool* pool) {
  return measure_rows(
      rows, [&](std::size_t i) { return access.error(i); }, b_norm, pool);
}

// PgsSolver::prepare's passes over the rows, and the packing of a solve's inputs
// (pack_solve_chunk), run in this many chunks, on the pool from this many rows (each row's or
// group's result depends on it alone: the same bits on any count).
constexpr std::size_t k_prepare_chunks = 16;
constexpr std::size_t k_parallel_rows = 2048;
constexpr std::size_t k_parallel_groups = 128;  // a group's factorisation is a few hundred flops

// J_row M^-1 J_earlier^T over the bodies that move (`moves`, row_visit's bits): what an impulse
// change on `earlier` does to row's J v, for two rows between the same bodies. It must not read a
// response on a body that does not move (PgsSolver::prepare zeroes those meanwhile).
Real coupling_in_run(const RowCoefficients& row, const RowCoefficients& earlier,
                     std::uint8_t moves) {
  const std::array<Lanes, 4>& b = earlier.response;
  const Lanes none{};
  return packed_velocity(
      row, moves & row_visit::a_moves ? b[0] : none, moves & row_visit::a_moves ? b[1] : none,
      moves & row_visit::b_moves ? b[2] : none, moves & row_visit::b_moves ? b[3] : none);
}

// Below this many rows per thread a sweep stays on one thread: the phases would cost more than
// the thread saves. Rows, not units: a net's units are a row each, and its 220 units (232 rows,
// about a microsecond a sweep) took 0.13 ms a step on two threads against 0.09 on one.
constexpr std::size_t k_min_rows_per_member = 512;
static_assert(SweepSchedule::k_max_parts <= 64, "parts are claimed by bits (run_preferring)");
// A colour's units are shared out in even slices of at least this many, one to
// k_items_per_member slices per member: a small colour (a pyramid's boundary) is still shared, a
// large one is not claimed unit by unit, and each member has as many slices (three slices of a
// pyramid's 15-unit colour made one member visit two while the other waited).
constexpr std::size_t k_min_units_per_item = 4;
constexpr std::size_t k_items_per_member = 2;
// A sweep shares a colour of at least this many units; a smaller one (about a microsecond's
// visits) costs less on one thread than the phase every member waits out: the ragdolls' nine
// colours of 4 to 12 units took 3% of their step on two threads (docs/performance.md).
constexpr std::size_t k_min_units_per_shared_colour = 16;
// The equality block's runs are shared out in at most this many slices.
constexpr std::size_t k_block_items = 64;
static_assert(k_items_per_member * SweepSchedule::k_max_parts <= 64 && k_prepare_chunks <= 64 &&
                  k_block_items <= 64,
              "slices and chunks are claimed by bits (run_preferring)");

}  // namespace

Real pgs_visit_row(RowStore& rows, std::size_t i, std::span<BodyVelocity> v, Real sor) {
  return visit(rows, StoreAccess{rows, v}, i, sor);
}

bool PgsSolver::prepare(RowStore& rows, std::span<const SolverBodyMass> masses, TaskPool* pool,
                        bool in_order) {
  const bool same_layout = layout_.update(rows, masses, pool);
  const bool direct = equalities_.prepare(rows, layout_, same_layout, pool);
  if (!same_layout || direct != direct_) {
    direct_ = direct;
    find_structure(rows);
  }
  // Batches for every structure, the one found in this solve too: a tower still settling changes
  // its layout at every step of its first hundred, and its sweeps in lanes take a quarter less
  // time than unit by unit ones from the layout's first solve. Groups the lanes leave unsettled
  // (uneven loads: a pile's, the ragdolls') are visited alone after their batch; batches pay
  // even there (docs/performance.md). A shuffled solve never visits them.
  // One member visits every part: their interiors are batched together (UnitBatches::build).
  const bool one_member = members_for(pool) == 1;
  if (batches_.built() && (batches_.parts_merged() != one_member || !batching_)) batches_.clear();
  if (in_order && batching_ && !batches_.built())
    batches_.build(rows, schedule_, visits_, group_of_, groups_, layout_.bodies(), one_member);
  batched_ = in_order && batches_.built();
  if (direct_) {
    block_delta_.resize(equalities_.rows().size());
  }
  packed_.resize(rows.size());
  run_coupling_.resize(rows.size());
  const auto later_in_run = [&](std::size_t i) { return row_visit::later_in_run(visits_[i]); };
  // The response on a body that does not move is made zero in the store, even where the row's is
  // not finite (a zero inverse mass gives zero otherwise), so that PairVelocities adds it without a
  // test; then the packed row and the runs' couplings. coupling_in_run reads the earlier rows'
  // responses on moving bodies only: those rows may be another chunk's, whose other responses are
  // being zeroed at the same time.
  run_ranges(pool, rows.size(), k_prepare_chunks, k_parallel_rows,
             [&](std::size_t begin, std::size_t end) {
               for (std::size_t i = begin; i < end; ++i) {
                 // Eight rows at once that batches hold and whose bodies all move: nothing to
                 // zero or pack (a pyramid's rows but its ground contacts).
                 while (batched_ && end - i >= k_flag_bytes && batches_.holds_eight_rows(i) &&
                        eight_have(visits_.data() + i, row_visit::a_moves | row_visit::b_moves))
                   i += k_flag_bytes;
                 if (i == end) break;
                 std::array<Lanes, 4>& response = rows.coefficients[i].response;
                 if (!(visits_[i] & row_visit::a_moves)) response[0] = response[1] = Lanes{};
                 if (!(visits_[i] & row_visit::b_moves)) response[2] = response[3] = Lanes{};
                 // A batch's rows are packed in its lanes (UnitBatches::pack).
                 if (batched_ && batches_.holds_row(i)) continue;
                 pack_row(rows, i, packed_[i]);
                 RunCoupling& coupling = run_coupling_[i];
                 coupling = {};  // a run's first row reads its zeros
                 if (i == 0 || !later_in_run(i)) continue;
                 const RowCoefficients* c = rows.coefficients.data();
                 coupling.last = coupling_in_run(c[i], c[i - 1], visits_[i]);
                 coupling.before_last =
                     later_in_run(i - 1) ? coupling_in_run(c[i], c[i - 2], visits_[i]) : 0;
               }
             });
  // Each group's matrices from its own rows: on the pool, the same bits. A batch's are its lanes'
  // (UnitBatches::pack). On one thread, in one chunk: the groups are inverted four at a time, and
  // a stack's ten groups in sixteen chunks were inverted one by one in lanes.
  const std::size_t group_chunks =
      chunks_on(pool, groups_.size(), k_prepare_chunks, k_parallel_groups);
  run_chunks(pool, groups_.size(), group_chunks, k_parallel_groups,
             [&](std::size_t, std::size_t begin, std::size_t end) {
               GroupInverter inverter;
               for (std::size_t g = begin; g < end; ++g) {
                 // The first row from the compact list: a RowGroup's line read for it alone
                 // waited on memory, a batch's group (most of a stack's) going no further.
                 if (batched_ && batches_.holds_row(group_rows_[g].first)) continue;
                 assemble_group(rows, groups_[g]);
                 inverter.add(groups_[g]);
               }
               inverter.flush();
             });
  if (batched_) batches_.pack(rows, masses, pool);
  return !same_layout;
}

std::size_t PgsSolver::members_for(TaskPool* pool) const {
  const std::size_t threads = pool == nullptr ? 1 : std::size_t(pool->threads());
  return std::clamp(schedule_.rows() / k_min_rows_per_member, std::size_t(1),
                    std::min(threads, schedule_.parts()));
}

void PgsSolver::find_structure(const RowStore& rows) {
  std::swap(group_of_, group_of_before_);
  std::swap(visits_, visits_before_);
  std::swap(group_rows_, group_rows_before_);
  group_rows_.clear();
  kept_rows_.clear();
  group_of_.assign(rows.size(), k_no_row_group);
  if (direct_) {
    for (const std::uint32_t i : equalities_.rows())
      group_of_[i] = k_row_in_block;
  }
  visits_.resize(rows.size() + 1);
  visits_.back() = row_visit::none;  // ends a friction run in the last rows
  // A block at a time, its rows read once from memory: the groups, the visits (which name a
  // group's first row), then the friction runs (which follow the visits' kinds). No row of a
  // group or run lies outside its block, so blocks alike to some of the layout before keep what
  // was found for those, with the equality block as it was (its rows follow from the same).
  RowLayout::BlockMatch match = layout_.blocks_before();
  // (The first layout matches nothing: BlockMatch finds no layout before it.)
  const bool keep = direct_ == found_direct_;
  std::size_t groups_before = 0;  // the first group before that a later run of blocks may keep
  const std::size_t blocks = rows.block_begin.size() - 1;
  for (std::size_t block = 0; block < blocks;) {
    const std::uint32_t begin = rows.block_begin[block];
    const RowLayout::AlikeBlocks alike =
        keep ? match.match(std::uint32_t(block)) : RowLayout::AlikeBlocks{};
    if (alike.blocks > 0) {
      block += alike.blocks;
      kept_rows_.push_back({begin, rows.block_begin[block], alike.before});
      keep_structure(kept_rows_.back(), groups_before);
      continue;
    }
    const std::uint32_t end = rows.block_begin[++block];
    find_groups(rows, begin, end);
    for (std::uint32_t i = begin; i < end; ++i)
      visits_[i] = visit_of(rows, i);
    find_friction_runs(rows, begin, end);
  }
  groups_.clear();
  for (const GroupRows& group : group_rows_)
    groups_.emplace_back(group.first, group.count);
  share_room(group_of_, group_of_before_);
  share_room(visits_, visits_before_);
  share_room(group_rows_, group_rows_before_);
  found_direct_ = direct_;
  schedule_.build(rows, group_of_, std::span(visits_).first(rows.size()), layout_.bodies(),
                  kept_rows_);
  batches_.clear();
  batches_.reserve(rows.size(), schedule_.units(), layout_.bodies());
}

void PgsSolver::keep_structure(const KeptRows& kept, std::size_t& groups_before) {
  const auto [begin, end, before] = kept;
  // The groups before are in row order, and runs of blocks are kept in the order of theirs; a
  // kept group's index moves by one amount (a sum that may wrap, as unsigned sums do), its rows
  // by another. k_no_row_group and k_row_in_block stay as they are.
  while (groups_before < group_rows_before_.size() &&
         group_rows_before_[groups_before].first < before)
    ++groups_before;
  const auto moved = std::uint32_t(group_rows_.size() - groups_before);
  const std::uint32_t moved_rows = begin - before;
  for (; groups_before < group_rows_before_.size() &&
         group_rows_before_[groups_before].first < before + (end - begin);
       ++groups_before) {
    const GroupRows group = group_rows_before_[groups_before];
    group_rows_.push_back({group.first + moved_rows, group.count});
  }
  std::copy_n(visits_before_.begin() + before, end - begin, visits_.begin() + begin);
  for (std::uint32_t i = begin, j = before; i < end; ++i, ++j) {
    const std::uint32_t group = group_of_before_[j];
    group_of_[i] = group < k_row_in_block ? group + moved : group;
  }
}

void PgsSolver::find_friction_runs(const RowStore& rows, std::uint32_t begin, std::uint32_t end) {
  const auto kind = [&](std::size_t i) { return visits_[i] & row_visit::kind_mask; };
  for (std::size_t i = begin; i < end;) {
    std::size_t run = i + 1;
    if (kind(i) == row_visit::friction) {
      while (run < end && kind(run) == row_visit::friction && rows.body_a[run] == rows.body_a[i] &&
             rows.body_b[run] == rows.body_b[i] && rows.normal_count[run] == rows.normal_count[i])
        ++run;
    }
    if (run - i >= 2 && rows.body_a[i] != rows.body_b[i]) {
      const auto mark = [&](std::size_t k, std::uint8_t visit) {
        visits_[k] = std::uint8_t((visits_[k] & ~row_visit::kind_mask) | visit);
      };
      mark(i, row_visit::friction_run);
      for (std::size_t k = i + 1; k < run; ++k)
        mark(k, row_visit::friction_more);
    }
    i = run;
  }
}

std::uint8_t PgsSolver::visit_of(const RowStore& rows, std::size_t i) const {
  const std::uint32_t group = group_of_[i];
  std::uint8_t visit = row_visit::none;
  if (group == k_no_row_group) {
    if (rows.disc_first(i))
      visit = row_visit::disc_pair;
    else if (!rows.disc_second(i))
      visit = rows.normal_row[i] < 0 ? row_visit::fixed_bounds : row_visit::friction;
  } else if (group != k_row_in_block && group_rows_[group].first == i) {
    visit = row_visit::group;
  }
  if (rows.normal_row[i] >= 0)
    visit |= std::uint8_t(rows.normal_count[i] << row_visit::normal_count_shift);
  return std::uint8_t(visit | (layout_.movable(rows.body_a[i]) ? row_visit::a_moves : 0) |
                      (layout_.movable(rows.body_b[i]) ? row_visit::b_moves : 0));
}

void PgsSolver::pack_solve_inputs(const RowStore& rows, std::span<const BodyVelocity> v,
                                  TaskPool* pool) {
  velocity_.resize(2 * v.size());
  run_chunks(
      pool, rows.size(), k_prepare_chunks, k_parallel_rows,
      [&](std::size_t chunk, std::size_t, std::size_t) { pack_solve_chunk(rows, v, chunk); });
}

// Chunk c packs its rows' biases, bodies [c n / chunks, (c + 1) n / chunks)' velocities and its
// batches' biases: on the pool, each thread's share, which holds the bodies of its rows in a stack
// listed bottom up and the batches of its part (UnitBatches::fill_chunk).
void PgsSolver::pack_solve_chunk(const RowStore& rows, std::span<const BodyVelocity> v,
                                 std::size_t chunk) {
  static_assert(k_prepare_chunks == UnitBatches::k_pack_chunks, "a chunk packs both");
  for (std::size_t k = v.size() * chunk / k_prepare_chunks;
       k < v.size() * (chunk + 1) / k_prepare_chunks; ++k) {
    velocity_[2 * k] = lanes_of(v[k].linear);
    velocity_[2 * k + 1] = lanes_of(v[k].angular);
  }
  // A batch's rows and groups get theirs when unpacked (UnitBatches::unpack), since a sweep reads
  // its lanes: a store to every row's packed row (half a line) and every group (a line) at each
  // solve and relax solve took 1.2% of the pyramid's samples, the rows held skipped eight at once.
  const std::size_t begin = rows.size() * chunk / k_prepare_chunks;
  const std::size_t end = rows.size() * (chunk + 1) / k_prepare_chunks;
  for (std::size_t i = begin; i < end;) {
    if (batched_ && end - i >= k_flag_bytes && batches_.holds_eight_rows(i)) {
      i += k_flag_bytes;
      continue;
    }
    if (!batched_ || !batches_.holds_row(i)) packed_[i].bias = rows.bias[i];
    ++i;
  }
  // The groups are in row order (find_groups): those starting in the chunk's rows, found in the
  // compact list (a batch's group is not read: its line waited on memory).
  const auto starts_before = [](const GroupRows& group, std::size_t row) {
    return group.first < row;
  };
  for (auto group = std::lower_bound(group_rows_.begin(), group_rows_.end(), begin, starts_before);
       group != group_rows_.end() && group->first < end; ++group) {
    if (batched_ && batches_.holds_row(group->first)) continue;
    RowGroup& alone = groups_[std::size_t(group - group_rows_.begin())];
    alone.bias = biases_of(group->first, group->count, rows.bias.data());
  }
  if (batched_) batches_.pack_biases(chunk, rows.bias.data());
}

void PgsSolver::find_groups(const RowStore& rows, std::uint32_t begin, std::uint32_t end) {
  const auto same_pair = [&rows](std::size_t i, std::size_t j) {
    return rows.body_a[i] == rows.body_a[j] && rows.body_b[i] == rows.body_b[j];
  };
  for (std::size_t i = begin; i < end;) {
    std::size_t run = i;
    // A row with the other end of its range beside it is visited alone (opposed); each pair of
    // neighbours is tested once, the test of a row and the next carried to the next. Nor does a
    // group take a row opposed to one it holds (a joint's rows keep a range's two ends apart:
    // StoreSink::order_limit_ends).
    bool opposes_last = false;
    const auto opposes_group = [&](std::size_t row) {
      for (std::size_t r = i; r + 1 < row; ++r) {
        if (opposed(rows, r, row)) return true;
      }
      return false;
    };
    while (run < end && run - i < RowGroup::k_max_rows && groupable(rows, run) &&
           same_pair(i, run)) {
      if (run == i) opposes_last = i > begin && opposed(rows, i - 1, i);
      const bool opposes_next = run + 1 < end && opposed(rows, run, run + 1);
      if (opposes_last || opposes_next || opposes_group(run)) break;
      opposes_last = opposes_next;
      ++run;
    }
    if (run - i < 2) {
      i = std::max(run, i + 1);
      continue;
    }
    for (std::size_t r = i; r < run; ++r)
      group_of_[r] = std::uint32_t(group_rows_.size());
    group_rows_.push_back({std::uint32_t(i), std::uint32_t(run - i)});
    i = run;
  }
}

void PgsSolver::assemble_group(const RowStore& rows, RowGroup& group) const {
  const std::size_t i = group.first;
  assemble_jacobian(rows, group);
  group.softness = Lanes{};
  group.a = {};  // zero past count
  for (std::size_t c = 0; c < group.count; ++c) {
    group.a[c] = group_column(group.jacobian, rows.coefficients[i + c]);
    group.a[c][c] += rows.softness[i + c];
    group.softness[c] = rows.softness[i + c];
  }
  group.regularisation = group_regularisation(group.a);
}

PackedAccess PgsSolver::packed_access(RowStore& rows) {
  return {packed_.data(),   rows.coefficients.data(), rows.lambda.data(),
          velocity_.data(), visits_.data(),           run_coupling_.data()};
}

void PgsSolver::unpack(std::span<BodyVelocity> v) const {
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = {to_vec3(velocity_[2 * k]), to_vec3(velocity_[2 * k + 1])};
}

void PgsSolver::solve(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                      SolveStats& stats) {
  const bool layout_changed = prepare(rows, bodies.masses, bodies.pool, !settings.shuffle);
  exact_ = direct_ && equalities_.rows().size() == rows.size() && settings.sor == 1;
  ratio_islands_.find(rows, bodies.masses, bodies.gravity_dv);
  iterate(rows, bodies, settings, stats);
  stats.layout_changed = layout_changed;
  ratio_islands_.solve(rows, bodies, settings, false, b_norm_, stats);
}

void PgsSolver::solve_again(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                            SolveStats& stats, bool impulses_applied) {
  iterate(rows, bodies, settings, stats, impulses_applied);
  // From other velocities (a speed limit clamped a body between the solves) every island again.
  ratio_islands_.solve(rows, bodies, settings, impulses_applied, b_norm_, stats);
}

bool PgsSolver::continues_from_solved_velocities(const SolverSettings& settings) const {
  return !settings.shuffle && !measures_residuals(settings);
}

// Rows [begin, end) of a unit in stored order; returns the largest impulse change (k_changes:
// visit_packed's).
template <bool k_changes>
[[gnu::always_inline]] inline Real visit_unit(RowStore& rows, const PackedAccess& access,
                                              std::uint32_t begin, std::uint32_t end,
                                              const std::uint32_t* group_of, const RowGroup* groups,
                                              Real sor) {
  Real largest = 0;
  for (std::uint32_t i = begin; i < end;) {
    largest =
        std::max(largest, visit_packed<true, k_changes>(rows, access, i, i, group_of, groups, sor));
  }
  return largest;
}

// One sweep over the units given; returns the largest impulse change (k_changes: visit_packed's).
template <bool k_changes>
Real sweep_units(RowStore& rows, const PackedAccess& access, std::span<const RowUnit> units,
                 const std::uint32_t* group_of, const RowGroup* groups, Real sor) {
  Real largest = 0;
  for (const RowUnit unit : units) {
    largest = std::max(
        largest, visit_unit<k_changes>(rows, access, unit.begin, unit.end, group_of, groups, sor));
  }
  return largest;
}

// One sweep over a part's steps (UnitBatches): its units alone or in lanes, three or four at a
// time; returns the largest impulse change (k_changes: visit_packed's and UnitBatches::visit's).
template <bool k_changes>
Real sweep_steps(RowStore& rows, const PackedAccess& access, UnitBatches& batches,
                 std::span<const SweepStep> steps, const std::uint32_t* group_of,
                 std::span<RowGroup> groups, std::span<RunCoupling> couplings,
                 std::span<PackedRow> packed, Real sor) {
  Real largest = 0;
  const auto alone = [&](std::uint32_t begin, std::uint32_t end) {
    largest = std::max(
        largest, visit_unit<k_changes>(rows, access, begin, end, group_of, groups.data(), sor));
  };
  for (const SweepStep& step : steps) {
    if (step.batch == SweepStep::k_alone) {
      alone(step.begin, step.end);
      continue;
    }
    const UnitBatch& batch = batches.batch(step.batch);
    if (batches.from_store(step.batch)) {
      batches.unpack(step.batch, rows, groups, couplings, packed);
      for (std::size_t k = 0; k < batch.units; ++k)
        alone(batch.first[k], batch.first[k] + batch.shape.rows());
      continue;
    }
    const BatchVisit visit =
        batches.visit(step.batch, access.velocity, access.lambdas, sor, k_changes);
    largest = std::max(largest, visit.largest);
    for (std::size_t k = 0; visit.groups_left != 0 && k < UnitBatch::k_units; ++k) {
      if (!(visit.groups_left & (1u << k))) continue;
      batches.unpack_group(step.batch, k, rows, groups, packed);
      largest = std::max(largest, visit_group<k_changes>(access, groups[batch.group[k]], sor));
    }
  }
  return largest;
}

void PgsSolver::iterate(RowStore& rows, SolverBodies bodies, const SolverSettings& settings,
                        SolveStats& stats, bool impulses_applied) {
  // The biases change between a solve and its relax solve: a batch unpacks them again.
  if (batched_) batches_.forget_unpacked();
  if (settings.shuffle) {
    iterate_shuffled(rows, bodies, settings, stats);
    return;
  }
  begin_stats(stats, rows);
  stats.units_batched = batched_ ? batches_.units() : 0;
  const std::size_t members = members_for(bodies.pool);
  stats.threads = members;
  // With several members and no residual measured between these steps, the inputs are packed,
  // the impulses warm started and the sweeps made in one team: a team's start and end on the pool
  // cost more than a pyramid's packing.
  const bool one_team = members > 1 && !measures_residuals(settings);
  if (one_team)
    velocity_.resize(2 * bodies.velocities.size());
  else
    pack_solve_inputs(rows, bodies.velocities, bodies.pool);
  const PackedAccess access = packed_access(rows);
  // A residual is measured over every packed row, a batch's too.
  if (measures_residuals(settings)) unpack_batches(rows);
  // From the packed rows at the packed velocities, still the free ones (before the warm start; a
  // solve measuring residuals does not continue from applied impulses).
  const Real b_norm = b_norm_ =
      measures_residuals(settings)
          ? rhs_norm_of(
                rows.size(),
                [&](std::size_t i) {
                  return double(packed_[i].bias) - double(access.row_velocity(i));
                },
                bodies.pool)
          : Real(1);
  // The sweeps' largest impulse change is read where a residual is measured (it is recorded) or
  // the equality block is solved (whether another row changed: block_holds, below); else the
  // groups, runs and batches do not follow it (about 2% of the pyramid's and the pile's steps).
  const bool reads_changes =
      measures_residuals(settings) || (direct_ && !equalities_.rows().empty());
  // sweep(std::bool_constant<reads_changes>{}): the sweeps' k_changes.
  const auto with_changes = [&](const auto& sweep) {
    return reads_changes ? sweep(std::true_type{}) : sweep(std::false_type{});
  };
  const auto visit_units = [&](std::span<const RowUnit> units) {
    return with_changes([&](auto changes) {
      return sweep_units<decltype(changes)::value>(rows, access, units, group_of_.data(),
                                                   groups_.data(), settings.sor);
    });
  };
  const auto visit_steps = [&](std::span<const SweepStep> steps) {
    return with_changes([&](auto changes) {
      return sweep_steps<decltype(changes)::value>(rows, access, batches_, steps, group_of_.data(),
                                                   groups_, run_coupling_, packed_, settings.sor);
    });
  };
  // One member visits every part's interior units in one forward pass over the rows, the parts
  // merged in stored order (the same bits): a part at a time, a pile's sweep passed over its rows
  // once per part, skipping the others' (docs/performance.md). Batches built for one member hold
  // every part's interior in their first part (UnitBatches::build); built for more (a solve_again
  // given another pool than its solve), they are visited part by part.
  const bool parts_merged = members == 1 && (!batched_ || batches_.parts_merged());
  const std::size_t interior_items = parts_merged ? 1 : schedule_.parts();
  const auto interior_units = [&](std::size_t p) {
    return parts_merged ? schedule_.interiors_in_stored_order() : schedule_.interior(p);
  };
  const auto visit_part = [&](std::size_t p) {
    return batched_ ? visit_steps(batches_.part(p)) : visit_units(interior_units(p));
  };
  // Row i's impulse into v, its bodies' velocities; zeroed if warm starting is off or the row
  // is inert. From the store's columns: a batch's rows are packed in its lanes.
  const auto warm_start_into = [&](std::uint32_t i, PairVelocities& v) {
    if (!settings.warm_start || rows.inv_eff_mass[i] == 0)
      rows.lambda[i] = 0;
    else
      v.apply(access.coefficients_of(i), rows.lambda[i]);
  };
  const auto pair_of = [&](std::uint32_t i) {
    return PairVelocities(access, i, rows.body_a[i], rows.body_b[i]);
  };
  // The equality block's rows, one by one in its order (the sweeps solve them on their own).
  const auto warm_start_block = [&] {
    for (std::size_t k = 0; direct_ && k < equalities_.rows().size(); ++k) {
      const std::uint32_t i = equalities_.rows()[k];
      PairVelocities v = pair_of(i);
      warm_start_into(i, v);
      v.store();
    }
  };
  // Rows [begin, end) but the equality block's (warm started on their own): consecutive rows
  // between the same two bodies with their velocities held in registers, as a sweep's runs.
  const auto warm_start_range = [&](std::uint32_t begin, std::uint32_t end) {
    const auto outside_block = [&](std::uint32_t i) { return group_of_[i] != k_row_in_block; };
    for (std::uint32_t i = begin; i < end;) {
      if (!outside_block(i)) {
        ++i;
        continue;
      }
      const std::uint32_t head = i;
      PairVelocities v = pair_of(head);
      do {
        warm_start_into(i++, v);
      } while (i < end && outside_block(i) && rows.body_a[i] == rows.body_a[head] &&
               rows.body_b[i] == rows.body_b[head]);
      v.store();
    }
  };
  const auto warm_start_units = [&](std::span<const RowUnit> units) {
    for (const RowUnit unit : units)
      warm_start_range(unit.begin, unit.end);
  };
  // A part's or a colour's steps (batched_): a batch's four units at once, in lanes (the same
  // per-body sums: the steps keep the stored order of units that share a body).
  const auto warm_start_steps = [&](std::span<const SweepStep> steps) {
    for (const SweepStep& step : steps) {
      if (step.batch == SweepStep::k_alone) {
        warm_start_range(step.begin, step.end);
        continue;
      }
      if (settings.warm_start && !batches_.from_store(step.batch)) {
        batches_.warm_start(step.batch, access.velocity, access.lambdas);
        continue;
      }
      const UnitBatch& batch = batches_.batch(step.batch);
      for (std::size_t k = 0; k < batch.units; ++k)
        warm_start_range(batch.first[k], batch.first[k] + batch.shape.rows());
    }
  };
  // The schedule's parts, then each of its colours, as phases of work shared by the team
  // (PhasedWork): a part, or a slice of a colour's units (of its steps when batched), is an item.
  // The small colours (shared_colours, below), the units past the last colour and the iteration's
  // end are one member's (serial_member, below), in a phase of their own between sweeps; the
  // equality block's components follow in one more, slices of its runs as its items.
  member_delta_.assign(members, {});
  const auto run = [&](std::size_t phases, const auto& member) {
    work_.reset(phases);
    if (members == 1)
      member(std::size_t(0));
    else
      bodies.pool->run_team([&](std::size_t m) {
        if (m < members) member(m);
      });
  };
  const std::size_t pass_phases = 1 + schedule_.colours();
  // Slice k of `items` even slices of a colour's units or steps.
  const auto slice = [](auto all, std::size_t k, std::size_t items) {
    return all.subspan(all.size() * k / items,
                       all.size() * (k + 1) / items - all.size() * k / items);
  };
  const auto visit_colour = [&](std::size_t c, std::size_t k, std::size_t items) {
    return batched_ ? visit_steps(slice(batches_.colour(c), k, items))
                    : visit_units(slice(schedule_.colour(c), k, items));
  };
  // The sweeps share the colours before the first small one; the serial phase visits that one and
  // those after it, in the same order (the same bits).
  std::size_t shared_colours = 0;
  while (shared_colours < schedule_.colours() &&
         schedule_.colour(shared_colours).size() >= k_min_units_per_shared_colour)
    ++shared_colours;
  // One pass over the schedule from phase `first`: visit_interior(m, p) for each part and
  // visit_slice(m, c, k, items) for each slice k of the first `colours` colours that member m
  // takes.
  const auto pass = [&](std::size_t first, std::size_t m, const auto& visit_interior,
                        const auto& visit_slice, std::size_t colours) {
    // Member m starts on its own run of consecutive parts, and of each colour's slices: a slice
    // then falls to the same member sweep after sweep and its rows stay in that core's cache
    // (claimed in turn, they moved between the cores: docs/performance.md).
    work_.run_preferring(first, interior_items, schedule_.first_part_of(m, members),
                         [&](std::size_t p) { visit_interior(m, p); });
    for (std::size_t c = 0; c < colours; ++c) {
      const std::size_t items =
          members * std::clamp(schedule_.colour(c).size() / (k_min_units_per_item * members),
                               std::size_t(1), k_items_per_member);
      work_.run_preferring(first + 1 + c, items, m * items / members,
                           [&](std::size_t k) { visit_slice(m, c, k, items); });
    }
  };
  // The warm start in stored order, or when the schedule has parts in the sweep's order (its
  // per-body sums are then the same on any count); none when the velocities carry the impulses.
  // (Several members imply several parts: one team warm starts in parts or not at all.)
  const bool warm_start_in_parts = !impulses_applied && schedule_.parts() > 1;
  const std::size_t warm_start_phases = warm_start_in_parts ? 1 + pass_phases : 0;
  const auto warm_start_member = [&](std::size_t first, std::size_t m) {
    work_.run_single(first, false, [&] {
      warm_start_block();
      warm_start_units(schedule_.last());
    });
    pass(
        first + 1, m,
        [&](std::size_t, std::size_t p) {
          if (batched_)
            warm_start_steps(batches_.part(p));
          else
            warm_start_units(interior_units(p));
        },
        [&](std::size_t, std::size_t c, std::size_t k, std::size_t items) {
          if (batched_)
            warm_start_steps(slice(batches_.colour(c), k, items));
          else
            warm_start_units(slice(schedule_.colour(c), k, items));
        },
        schedule_.colours());
  };
  if (!impulses_applied && !warm_start_in_parts) {
    warm_start_block();
    warm_start_range(0, std::uint32_t(rows.size()));
  } else if (warm_start_in_parts && !one_team) {
    run(warm_start_phases, [&](std::size_t m) { warm_start_member(0, m); });
  }
  // In one team, the packing's phase and the warm start's come first. Member m packs from its
  // share of the chunks on, which hold its part's rows and batches (pack_solve_chunk).
  const std::size_t lead = one_team ? 1 + warm_start_phases : 0;
  const auto pack_and_warm_start = [&](std::size_t m) {
    work_.run_preferring(0, k_prepare_chunks, m * k_prepare_chunks / members,
                         [&](std::size_t c) { pack_solve_chunk(rows, bodies.velocities, c); });
    if (warm_start_in_parts) warm_start_member(1, m);
  };
  const auto measure_on = [&](TaskPool* pool) {
    return measure_packed(rows, access, b_norm, pool);
  };
  if (measures_every_iteration(settings))
    stats.initial_residual = measure_on(bodies.pool).relative_residual;
  // Inside the team the serial item measures while the others wait (the pool is theirs then);
  // the last iteration, when nothing earlier is measured, ends after the team, on the pool.
  const auto measure = [&] { return measure_on(members > 1 ? nullptr : bodies.pool); };
  member_block_delta_.assign(members, {});
  block_skipped_.assign(std::size_t(settings.iterations), 0);
  // The equality block's runs of components (EqualityBlock::runs), in at most k_block_items even
  // slices, as the items of phase `phase` (none when skipped): before the first sweep and after
  // each sweep's units. Components share no moving body, so any member may take any of them; each
  // member starts on its own share, so that a component stays on one core from sweep to sweep
  // (claimed in turn, a ragdoll's rows and bodies moved between the cores at every visit, and two
  // threads took as long over the block as one: docs/performance.md).
  const std::size_t block_items = std::min(equalities_.runs(), k_block_items);
  const auto visit_block = [&](std::size_t phase, std::size_t m, bool skipped) {
    const std::size_t items = direct_ && !skipped ? block_items : 0;
    work_.run_preferring(phase, items, m * items / members, [&](std::size_t k) {
      Real& largest = member_block_delta_[m].value;
      const std::size_t runs = equalities_.runs();
      for (std::uint32_t b = equalities_.run_begin(runs * k / items);
           b < equalities_.run_begin(runs * (k + 1) / items); ++b)
        largest = std::max(largest, visit_equality_batch(rows, access, b, settings.sor));
    });
  };
  Real last_delta = 0;
  // Atomic: a member may read it while another, phases ahead, sets it for a later iteration.
  std::atomic<bool> stop = false;
  const std::size_t iteration_phases = pass_phases + 2;
  // The serial phase's member: the one holding part 1, which claims it as it starts the sweep (a
  // member left out of the team claims nothing, and the first to arrive does it). On member 0,
  // the pyramid's part 1 took 12.5 us a sweep on two threads against 11.1 on one, its bodies'
  // lines coming back from the other core at every sweep; here 11.7, part 0's 11.1 to 11.3
  // (docs/performance.md).
  const std::size_t serial_member = schedule_.member_holding_part_1(members);
  run(lead + 1 + std::size_t(settings.iterations) * iteration_phases, [&](std::size_t m) {
    if (one_team) pack_and_warm_start(m);
    visit_block(lead, m, false);
    for (int iteration = 0; iteration < settings.iterations; ++iteration) {
      const std::size_t first = lead + 1 + std::size_t(iteration) * iteration_phases;
      const bool serial_claimed = m == serial_member && work_.claim_ahead(first + pass_phases);
      const auto note = [&](std::size_t member, Real delta) {
        member_delta_[member].value = std::max(member_delta_[member].value, delta);
      };
      pass(
          first, m, [&](std::size_t member, std::size_t p) { note(member, visit_part(p)); },
          [&](std::size_t member, std::size_t c, std::size_t k, std::size_t items) {
            note(member, visit_colour(c, k, items));
          },
          shared_colours);
      std::uint8_t& skipped = block_skipped_[std::size_t(iteration)];
      work_.run_single(first + pass_phases, serial_claimed, [&] {
        // The largest change outside the block.
        Real others = 0;
        for (std::size_t c = shared_colours; c < schedule_.colours(); ++c)
          others = std::max(others, visit_colour(c, 0, 1));
        others = std::max(others, visit_units(schedule_.last()));
        for (MemberDelta& delta : member_delta_)
          others = std::max(others, std::exchange(delta.value, Real(0)));
        Real block = 0;  // the block's, solved before this sweep
        for (MemberDelta& delta : member_block_delta_)
          block = std::max(block, std::exchange(delta.value, Real(0)));
        const Real max_delta = std::max(block, others);
        if (iteration + 1 == settings.iterations) {
          last_delta = max_delta;
          skipped = 1;
        } else {
          const bool done = end_iteration(iteration, measure, max_delta, settings, stats);
          // The block was solved exactly (sor 1) and no other row has changed a velocity since:
          // solving it again would only add rounding (a chain of joints and nothing else).
          const bool block_holds = settings.sor == 1 && others == 0;
          skipped = done || block_holds ? 1 : 0;
          stop.store(done, std::memory_order_relaxed);
        }
      });
      visit_block(first + pass_phases + 1, m, skipped != 0);
      if (stop.load(std::memory_order_relaxed)) break;
    }
  });
  if (!stop.load(std::memory_order_relaxed)) {
    end_iteration(
        settings.iterations - 1, [&] { return measure_on(bodies.pool); }, last_delta, settings,
        stats);
  }
  unpack(bodies.velocities);
}

void PgsSolver::unpack_batches(const RowStore& rows) {
  for (std::size_t k = 0; batched_ && k < batches_.batch_count(); ++k)
    batches_.unpack(k, rows, groups_, run_coupling_, packed_);
}

// Seed 003's shuffled order: a new order every sweep, on one thread.
void PgsSolver::iterate_shuffled(RowStore& rows, SolverBodies bodies,
                                 const SolverSettings& settings, SolveStats& stats) {
  unpack_batches(rows);  // a solve_again after an in-order solve: every row is visited alone
  const Real b_norm = b_norm_ =
      start_row_solve(rows, bodies.velocities, settings, stats, bodies.pool);
  pack_solve_inputs(rows, bodies.velocities, bodies.pool);
  const PackedAccess access = packed_access(rows);
  const auto measure = [&] { return measure_packed(rows, access, b_norm, bodies.pool); };
  order_.reset(rows.size(), true);
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    Real max_delta = visit_equalities(rows, access, settings.sor);
    for (const std::uint32_t i : order_.next()) {
      std::uint32_t next = 0;  // shuffled: the rows a visit takes come up again and are skipped
      max_delta =
          std::max(max_delta, visit_packed<false, true>(rows, access, i, next, group_of_.data(),
                                                        groups_.data(), settings.sor));
    }
    if (end_iteration(iteration, measure, max_delta, settings, stats)) break;
  }
  unpack(bodies.velocities);
}

// The bilateral rows at once, exactly (equality_block.h), before each sweep of the others:
// batch by batch (EqualityBlock::batches).
Real PgsSolver::visit_equalities(RowStore& rows, const PackedAccess& access, Real sor) {
  Real largest = 0;
  for (std::size_t b = 0; direct_ && b < equalities_.batches(); ++b)
    largest = std::max(largest, visit_equality_batch(rows, access, b, sor));
  return largest;
}

Real PgsSolver::visit_equality_batch(RowStore& rows, const PackedAccess& access, std::size_t batch,
                                     Real sor) {
  const std::vector<std::uint32_t>& block = equalities_.rows();
  const std::uint32_t first = equalities_.batch_begin(batch),
                      end = equalities_.batch_begin(batch + 1);
  // Where row k of component c keeps its -w, then its change: in the batch's lanes, or in
  // block_delta_ (EqualityBlock::solve_batch).
  const bool in_lanes = equalities_.in_lanes(batch);
  const std::span<BlockLdlt::LaneValue> lanes = equalities_.lane_rows(batch);
  const auto lane_entry = [&](std::uint32_t c, std::uint32_t k) -> BlockLdlt::LaneValue& {
    return lanes[k - equalities_.first_row(c)];
  };
  // f(c, k, i, pair) for each row of the batch's components (k in the block, i in the store), the
  // rows of each run between the same two bodies (a joint's) given their velocities in registers
  // (PairVelocities); then the run's velocities are stored when store_velocities.
  const auto for_each_row = [&](bool store_velocities, const auto& f) {
    for (std::uint32_t c = first; c < end; ++c) {
      const std::span<const std::uint32_t> component_rows = equalities_.component_rows(c);
      const std::span<const std::uint32_t> runs = equalities_.pair_runs(c);
      for (std::size_t run = 0; run + 1 < runs.size(); ++run) {
        PairVelocities pair(access, block[component_rows[runs[run]]]);
        for (std::size_t r = runs[run]; r < runs[run + 1]; ++r)
          f(c, component_rows[r], block[component_rows[r]], pair);
        if (store_velocities) pair.store();
      }
    }
  };
  // A body gone non-finite gives its rows no say, rather than the whole block its NaN.
  for_each_row(false, [&](std::uint32_t c, std::uint32_t k, std::uint32_t i, PairVelocities& pair) {
    const PackedRow& row = access.row(i);
    const Real error =
        pair.velocity(access.coefficients_of(i)) - row.bias + row.softness * access.lambda(i);
    const double minus_w = -(is_finite(error) ? double(error) : 0.0);
    if (!in_lanes)
      block_delta_[k] = minus_w;
    else if (c == first)
      lane_entry(c, k) = BlockLdlt::LaneValue{} + minus_w;  // every lane
    else
      lane_entry(c, k)[c - first] = minus_w;
  });
  equalities_.solve_batch(batch, block_delta_);
  Real largest = 0;
  for_each_row(true, [&](std::uint32_t c, std::uint32_t k, std::uint32_t i, PairVelocities& pair) {
    const Real delta = sor * Real(in_lanes ? lane_entry(c, k)[c - first] : block_delta_[k]);
    rows.lambda[i] += delta;
    pair.apply(access.coefficients_of(i), delta);
    largest = std::max(largest, std::abs(delta));
  });
  return largest;
}

}  // namespace impulse
