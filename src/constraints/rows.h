#pragma once
// The one constraint-row store (DESIGN.md, "The constraint row"; seed 001 section 7: J_sp, J_map,
// B = M^-1 J^T). Every contact normal, friction direction and joint axis is a row of this shape,
// stored as a structure of arrays so one solver loop serves every constraint type.
//
// A row i constrains J_i v + softness_i lambda_i = bias_i with lo_i <= lambda_i <= hi_i (lambda an
// impulse, N s):
//   J_i v = dot(j_lin_a, v_a) + dot(j_ang_a, w_a) + dot(j_lin_b, v_b) + dot(j_ang_b, w_b).
// A soft row (softness > 0, constraint force mixing) yields like a spring (soft_row below); the
// assembled solvers see A + diag(softness). A rigid row has softness 0.
// A friction row (normal_row >= 0) has bounds that follow its normal rows' impulse: with lambda_n
// the sum of the impulses of rows [normal_row, normal_row + normal_count), [-mu lambda_n,
// mu lambda_n] (the box, or `coulomb`, friction model: one normal row; the `patch` model bounds a
// manifold's friction by all its normal rows). Static bodies and the world are bodies of zero
// inverse mass.
//
// The cone friction model (seed 003: clamp the tangent impulse vector to the friction disc): a row
// added with RowSpec::cone and the row added right after it are the two tangent rows of one
// contact point, and their impulse vector is bounded by the disc |(lambda_1, lambda_2)| <= mu
// lambda_n instead of the box. Both rows must share the bodies, normal rows and mu; the second has
// no cone flag of its own. Outside an explicit block the pair forms a block of two, so no solver
// ever splits it. lower() and upper() of a disc row still give its box, which circumscribes the
// disc. The disc conditions (maximal dissipation) are: inside the disc, both tangent velocities
// w = J v - bias are zero; on its rim, w = -c lambda with c >= 0 (the impulse opposes the slip).

#include <impulse/math.h>

#include "constraints/row_column.h"
#include "core/lanes.h"
#include "core/task_pool.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace impulse {

/// A body as the solver sees it: inverse mass and world inverse inertia (zero when immovable).
/// A body held to a plane (a plane world's dynamic body) has the unit plane_normal n: it moves
/// only perpendicular to n, so its linear inverse mass is inv_mass (I - n n^T), and inv_inertia is
/// already that of a body turning only about n.
struct SolverBodyMass {
  Real inv_mass = 0;
  Mat33 inv_inertia;
  Vec3 plane_normal = Vec3::zero();  ///< zero for none
  /// Whether an impulse moves the body at all (static, kinematic and sleeping bodies do not).
  bool movable() const { return inv_mass > 0 || inv_inertia != Mat33::zero(); }
  /// M^-1 applied to a linear impulse j.
  Vec3 linear_response(const Vec3& j) const {
    return inv_mass * (plane_normal == Vec3::zero() ? j : reject(j, plane_normal));
  }
};

/// The most normal rows one friction row's bound sums (a manifold's points).
constexpr std::uint8_t k_max_normal_count = 4;

/// The impulse bounding a friction row: its count normal rows' impulses from `first`, summed in
/// order (unrolled: the sweeps call it for every friction row, most often with one row).
[[gnu::always_inline]] inline Real sum_normal_impulses(const Real* first, std::size_t count) {
  Real sum = first[0];
  if (count > 1) {
    sum += first[1];
    if (count > 2) {
      sum += first[2];
      if (count > 3) sum += first[3];
    }
  }
  return sum;
}
static_assert(k_max_normal_count == 4, "sum_normal_impulses sums at most four");

/// One row as a user or a constraint writes it.
struct RowSpec {
  std::uint32_t body_a = 0, body_b = 0;  ///< solver body indices
  Vec3 j_lin_a, j_ang_a, j_lin_b, j_ang_b;
  Real bias = 0;  ///< target constraint velocity J v (m/s or rad/s)
  /// The part of bias that corrects a position error (Baumgarte): the relax solve drops it, so
  /// the correction moves the bodies without leaving them that velocity.
  Real position_bias = 0;
  /// CFM gamma, (m/s)/(N s): the row's condition is J v + softness * lambda = bias; 0 for a rigid
  /// row; see soft_row()
  Real softness = 0;
  Real lo = -k_infinity, hi = k_infinity;
  std::int32_t normal_row = -1;  ///< friction: the first row whose impulse bounds this one
  /// friction: how many rows from normal_row bound it (their impulses summed), 1 to
  /// k_max_normal_count
  std::uint8_t normal_count = 1;
  Real mu = 0;      ///< friction: coefficient applied to the normal impulse
  Real lambda = 0;  ///< initial (warm-start) impulse
  /// friction: this row and the next are one contact's tangent pair, bounded by the disc (above)
  bool cone = false;
};

/// A damped spring as a soft row's coefficients (soft_row).
struct SoftRow {
  Real softness;     ///< the row's CFM gamma
  Real bias_factor;  ///< the caller sets bias = -bias_factor / dt * C for a position error C
};

/// The soft row that makes a constraint of inverse effective mass w (J M^-1 J^T, so its mass is
/// m = 1 / w) behave as a spring of the given frequency (Hz) and damping ratio over a step dt.
/// With omega = 2 pi f, k = m omega^2 and c = 2 m zeta omega, implicit Euler of m C'' = -k C - c C'
/// gives
///   gamma = 1 / (dt (c + dt k)) = w / (dt omega (2 zeta + dt omega)),
///   bias_factor = dt k / (c + dt k) = dt omega / (2 zeta + dt omega)
/// (Catto, GDC 2011 "Soft constraints"; ODE's ERP is bias_factor and its CFM is gamma dt, since
/// ODE's lambda is a force). Written in w, the mass cancels: a row that moves nothing (w = 0) or
/// almost nothing stays finite, where 1 / w would overflow.
/// A rigid row needs no spring: throws std::invalid_argument for f <= 0, zeta < 0, w < 0 or
/// dt <= 0 (or any of them not finite).
SoftRow soft_row(Real inverse_effective_mass, Real frequency_hz, Real damping_ratio, Real dt);

/// The impulses of a tangent pair, N s.
struct TangentPair {
  Real t1 = 0, t2 = 0;
};

/// The point of the disc of the given radius nearest to t: t scaled toward the origin when
/// outside (the radial projection of seed 003); zero for a radius <= 0.
TangentPair project_to_disc(TangentPair t, Real radius);

/// The step 1 / k_max for a disc pair whose 2 x 2 block of A = J M^-1 J^T is [a11 a12; a12 a22]
/// (k_max its largest eigenvalue), or 0 when that block is not positive and finite. Both rows
/// take this one step: lambda <- project_to_disc(lambda - sor step w). With a step per row (each
/// row's own 1 / a_ii) the fixed point is not maximal dissipation where a11 != a22 or a12 != 0.
Real disc_pair_step(Real a11, Real a12, Real a22);

/// A body's solver mass with its inverse inertia in lanes, converted once for the many rows of a
/// writer on the same body (a manifold's).
struct LaneMass {
  explicit LaneMass(const SolverBodyMass& m)
      : mass(m), inv_inertia(to_lanes(m.inv_inertia)), in_plane(m.plane_normal != Vec3::zero()) {}
  /// SolverBodyMass::linear_response.
  Lanes linear_response(const Lanes& j) const {
    if (!in_plane) return j * splat(mass.inv_mass);
    return lanes_of(mass.linear_response(to_vec3(j)));
  }
  Lanes angular_response(const Lanes& j) const { return times(inv_inertia, j); }

  SolverBodyMass mass;
  LaneMat33 inv_inertia;
  bool in_plane;
};

/// A row's Jacobian (linear a, angular a, linear b, angular b), its B = M^-1 J^T in the same order
/// and J M^-1 J^T, in lanes.
struct LaneRow {
  std::array<Lanes, 4> j, b;
  Real diagonal = 0;
};

/// B = M^-1 J^T of Jacobian j on bodies a and b.
[[gnu::always_inline]] inline std::array<Lanes, 4> lane_response(const std::array<Lanes, 4>& j,
                                                                 const LaneMass& a,
                                                                 const LaneMass& b) {
  return {a.linear_response(j[0]), a.angular_response(j[1]), b.linear_response(j[2]),
          b.angular_response(j[3])};
}

/// Row r's response and diagonal from its Jacobian r.j, on bodies a and b, written in place: a
/// row built aside and copied whole is read back in pieces wider than the stores that wrote it
/// just before, which the processor does not forward (a stall each).
[[gnu::always_inline]] inline void write_response(LaneRow& r, const LaneMass& a,
                                                  const LaneMass& b) {
  r.b = lane_response(r.j, a, b);
  r.diagonal =
      dot3(r.j[0], r.b[0]) + dot3(r.j[1], r.b[1]) + dot3(r.j[2], r.b[2]) + dot3(r.j[3], r.b[3]);
}

/// The row of Jacobian j with its response on bodies a and b.
[[gnu::always_inline]] inline LaneRow lane_row(const std::array<Lanes, 4>& j, const LaneMass& a,
                                               const LaneMass& b) {
  LaneRow r{j, {}};
  write_response(r, a, b);
  return r;
}

/// 1 / (d + softness) for a row whose J M^-1 J^T is d, or 0 for a row that is inert: seed 000,
/// "Why do solvers break?": a zero diagonal (a row between immovable bodies, or J = 0) would
/// divide by zero, and a denormal one overflow; so would a diagonal, softness or inverse that is
/// not finite. For one row (Real) or four in lanes (Lanes), the same bits.
template <class V>
[[gnu::always_inline]] inline V inverse_effective_mass(const V& d, const V& softness) {
  const V inverse = Real(1) / (d + softness);
  const auto usable =
      both(both(finite_value(d), d > V{}), both(finite_value(softness), finite_value(inverse)));
  return usable ? inverse : V{};
}

/// A row's Jacobian (linear a, angular a, linear b, angular b) and B = M^-1 J^T in the same order,
/// four 3-vectors in lanes with a zero fourth (core/lanes.h): the form the writers compute them in
/// and pgs solves in. Side by side, so that a sweep reads a row's coefficients as one stream and
/// solves from the store without a per-step copy.
struct RowCoefficients {
  std::array<Lanes, 4> jacobian, response;
};

class RowStore {
 public:
  /// Appends a row; returns its index. Rows added with begin_block/end_block form a block
  /// (the rows of one joint) that the block solver treats together. Throws std::invalid_argument
  /// for a cone row that is not a friction row, a row after a cone row that is not its partner
  /// (same bodies, normal rows and mu, no cone flag), a negative softness, a soft friction row
  /// (the disc and friction bounds assume rigid tangent rows), or a friction row's normal_count
  /// outside 1 to k_max_normal_count.
  std::uint32_t add(const RowSpec& row);
  /// Appends count rows, to be filled by set (on several threads at once, each writing its own
  /// rows) and cut into blocks by end_appended_block; returns the first row's index. Not inside
  /// begin_block/end_block.
  std::uint32_t append_rows(std::size_t count);
  /// Ends a block of appended rows at row `end` (the next block starts where the last ended).
  void end_appended_block(std::uint32_t end);
  /// Appends `count` blocks of rows, block k of block_size(k) rows (none for 0), in order: calls
  /// placed(k, first) with each block's first row (where the next begins, for an empty one) before
  /// block_size(k), then appends the rows (append_rows) and ends each block. block_size is called
  /// twice per block.
  template <class BlockSize, class Placed>
  void append_blocks(std::size_t count, const BlockSize& block_size, const Placed& placed) {
    auto next = std::uint32_t(size());
    for (std::size_t k = 0; k < count; ++k) {
      placed(k, next);
      next += std::uint32_t(block_size(k));
    }
    auto end = std::uint32_t(size());
    append_rows(next - end);
    for (std::size_t k = 0; k < count; ++k) {
      const auto rows = std::uint32_t(block_size(k));
      if (rows == 0) continue;
      end += rows;
      end_appended_block(end);
    }
  }
  /// Writes row i (of append_rows) without add's checks: for rows written by the engine
  /// (contacts, joints), which meet them by construction.
  void set(std::size_t i, const RowSpec& row) {
    coefficients[i].jacobian = to_lanes({row.j_lin_a, row.j_ang_a, row.j_lin_b, row.j_ang_b});
    set_all_but_jacobian(i, row);
  }
  /// set, then prepare's work on row i, for a writer that has its response at hand (lane_row,
  /// computed once per body for a manifold's rows): the row is prepared from the values written
  /// rather than read back in a second pass (prepare's `first`). The row's Jacobian is row's, its
  /// other fields spec's.
  void set_prepared(std::size_t i, const RowSpec& spec, const LaneRow& row) {
    set_all_but_jacobian(i, spec);
    coefficients[i].jacobian = padded(row.j);
    store_response(i, row, spec.softness);
  }
  /// set, with row i's Jacobian j and its B = M^-1 J^T b given (lane_response, from the bodies'
  /// masses converted once for a manifold's rows): prepared by finish_prepared.
  void set_with_response(std::size_t i, const RowSpec& spec, const std::array<Lanes, 4>& j,
                         const std::array<Lanes, 4>& b) {
    set_all_but_jacobian(i, spec);
    coefficients[i] = {padded(j), padded(b)};
  }
  /// prepare's work on rows [first, end) of set_with_response: J M^-1 J^T from their J and B and
  /// the inverse effective mass, four rows at a time in lanes (the bits of one at a time, as
  /// set_prepared's).
  void finish_prepared(std::size_t first, std::size_t end);
  /// Rows added between begin_block and end_block form one block; other rows are blocks of one
  /// (a cone pair: of two). Both throw std::invalid_argument while a cone pair lacks its second
  /// row.
  void begin_block();
  void end_block();

  /// Computes B = M^-1 J^T and the inverse effective mass 1 / (J M^-1 J^T + softness) of rows
  /// [first, size()) from the bodies' masses (those below first were written by set_prepared).
  /// A row whose J M^-1 J^T is not positive and finite, or whose softness or effective mass is
  /// not finite, gets inverse effective mass 0, so the solvers leave it alone, and is counted in
  /// degenerate_rows() (every row's count). Also computes the disc step of every cone pair.
  /// Throws std::invalid_argument when a cone pair lacks its second row. Shares the rows among
  /// the pool's threads when given.
  void prepare(const std::vector<SolverBodyMass>& bodies, TaskPool* pool = nullptr,
               std::size_t first = 0);

  /// Whether any row's bias holds a position correction (position_bias: a contact's push-out, a
  /// passed limit's push back).
  bool has_position_bias() const;
  /// Takes each row's position_bias out of its bias (the relax solve: the correction has moved the
  /// bodies and must leave them no velocity). Shares the rows among the pool's threads when given.
  void drop_position_bias(TaskPool* pool = nullptr);

  void clear();
  std::size_t size() const { return body_a.size(); }
  std::size_t degenerate_rows() const { return degenerate_rows_; }
  /// The impulse that bounds friction row i: its normal rows' impulses summed.
  Real normal_load(std::size_t i) const {
    return sum_normal_impulses(&lambda[std::size_t(normal_row[i])], normal_count[i]);
  }
  /// The bounds of row i given the current impulses (friction rows follow their normal rows).
  Real lower(std::size_t i) const { return normal_row[i] < 0 ? lo[i] : -mu[i] * normal_load(i); }
  Real upper(std::size_t i) const { return normal_row[i] < 0 ? hi[i] : mu[i] * normal_load(i); }
  /// Makes prepared row i soft: softness `fraction` times its J M^-1 J^T, and its effective mass
  /// to match.
  void soften(std::size_t i, Real fraction);
  /// Whether row i pushes one way only: a contact's normal row, a limit (not friction, whose
  /// bounds follow its normal rows, nor a motor, bounded both ways).
  bool one_sided(std::size_t i) const {
    return normal_row[i] < 0 && is_finite(lo[i]) != is_finite(hi[i]);
  }
  /// Whether row i is the first row of a disc pair (prepared). A cone pair with a degenerate row
  /// is no disc pair: its one usable row's box is the 1D disc.
  bool disc_first(std::size_t i) const { return disc_step[i] > 0; }
  /// Whether row i is the second row of a disc pair.
  bool disc_second(std::size_t i) const { return i > 0 && disc_step[i - 1] > 0; }
  /// The disc radius mu lambda_n of the pair whose first row is i, N s.
  Real disc_radius(std::size_t i) const { return std::max(upper(i), Real(0)); }
  /// J_i M^-1 J_j^T (prepared): how an impulse on row j changes the velocity error of row i.
  Real coupling(std::size_t i, std::size_t j) const;

  // Row i's Jacobian and B by part, as 3-vectors.
  Vec3 j_lin_a(std::size_t i) const { return to_vec3(coefficients[i].jacobian[0]); }
  Vec3 j_ang_a(std::size_t i) const { return to_vec3(coefficients[i].jacobian[1]); }
  Vec3 j_lin_b(std::size_t i) const { return to_vec3(coefficients[i].jacobian[2]); }
  Vec3 j_ang_b(std::size_t i) const { return to_vec3(coefficients[i].jacobian[3]); }
  Vec3 b_lin_a(std::size_t i) const { return to_vec3(coefficients[i].response[0]); }
  Vec3 b_ang_a(std::size_t i) const { return to_vec3(coefficients[i].response[1]); }
  Vec3 b_lin_b(std::size_t i) const { return to_vec3(coefficients[i].response[2]); }
  Vec3 b_ang_b(std::size_t i) const { return to_vec3(coefficients[i].response[3]); }

  // Structure of arrays, one entry per row.
  RowColumn<std::uint32_t> body_a, body_b;
  RowColumn<RowCoefficients> coefficients;
  RowColumn<Real> diagonal;      // J M^-1 J^T
  RowColumn<Real> inv_eff_mass;  // 1 / (diagonal + softness), or 0 for a degenerate row
  RowColumn<Real> bias;
  RowColumn<Real> position_bias;
  RowColumn<Real> softness;  // CFM gamma (RowSpec::softness)
  RowColumn<Real> lo, hi;
  RowColumn<std::int32_t> normal_row;
  RowColumn<std::uint8_t> normal_count;
  RowColumn<Real> mu;
  RowColumn<Real> lambda;        // accumulated impulse
  RowColumn<std::uint8_t> cone;  // 1 on the first row of a cone pair (RowSpec::cone)
  RowColumn<Real> disc_step;     // first row of a disc pair: disc_pair_step of its block; else 0
  // Blocks: rows [block_begin[k], block_begin[k + 1]) form block k; the last entry is size().
  std::vector<std::uint32_t> block_begin{0};

 private:
  // Every array to n rows, the new ones unwritten (RowColumn): add and set write every field but
  // B, the diagonal, the inverse effective mass and the disc step, which are prepare's. Here, not
  // in a loop over the arrays, so that a row's add grows each with a compare and a store.
  void resize(std::size_t n) {
    body_a.resize(n);
    body_b.resize(n);
    coefficients.resize(n);
    diagonal.resize(n);
    inv_eff_mass.resize(n);
    bias.resize(n);
    position_bias.resize(n);
    softness.resize(n);
    lo.resize(n);
    hi.resize(n);
    normal_row.resize(n);
    normal_count.resize(n);
    mu.resize(n);
    lambda.resize(n);
    cone.resize(n);
    disc_step.resize(n);
  }
  /// set's fields but the Jacobian.
  void set_all_but_jacobian(std::size_t i, const RowSpec& row) {
    body_a[i] = row.body_a;
    body_b[i] = row.body_b;
    bias[i] = row.bias;
    position_bias[i] = row.position_bias;
    softness[i] = row.softness;
    lo[i] = row.lo;
    hi[i] = row.hi;
    normal_row[i] = row.normal_row;
    normal_count[i] = row.normal_count;
    mu[i] = row.mu;
    lambda[i] = row.lambda;
    cone[i] = row.cone ? 1 : 0;
  }
  /// prepare's work on row i from its Jacobian and softness.
  void prepare_row(std::size_t i, const SolverBodyMass& a, const SolverBodyMass& b) {
    store_response(i, lane_row(coefficients[i].jacobian, LaneMass(a), LaneMass(b)), softness[i]);
  }
  void store_response(std::size_t i, const LaneRow& r, Real row_softness) {
    coefficients[i].response = padded(r.b);
    diagonal[i] = r.diagonal;
    inv_eff_mass[i] = inverse_effective_mass(r.diagonal, row_softness);
  }
  static constexpr std::size_t k_prepare_chunks = 16;
  static constexpr std::size_t k_parallel_rows = 2048;  // fewer are prepared on one thread
  // drop_position_bias is a subtraction a row, some 0.2 ns: the pool's start (microseconds) pays
  // only from this many rows.
  static constexpr std::size_t k_parallel_drops = 65536;

  std::size_t degenerate_rows_ = 0;
  bool in_block_ = false;
  bool pair_open_ = false;  // the last row added starts a cone pair
};

}  // namespace impulse
