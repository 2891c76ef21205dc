#pragma once
// The one constraint-row store (DESIGN.md, "The constraint row"; seed 001 section 7: J_sp, J_map,
// B = M^-1 J^T). Every contact normal, friction direction and joint axis is a row of this shape,
// stored as a structure of arrays so one solver loop serves every constraint type.
//
// A row i constrains J_i v = bias_i with lo_i <= lambda_i <= hi_i (lambda an impulse, N s):
//   J_i v = dot(j_lin_a, v_a) + dot(j_ang_a, w_a) + dot(j_lin_b, v_b) + dot(j_ang_b, w_b).
// A friction row (normal_row >= 0) has bounds that follow its normal row's impulse:
// [-mu lambda_n, mu lambda_n]. Static bodies and the world are bodies of zero inverse mass.

#include <impulse/math.h>

#include <cstdint>
#include <vector>

namespace impulse {

/// A body as the solver sees it: inverse mass and world inverse inertia (zero when immovable).
struct SolverBodyMass {
  Real inv_mass = 0;
  Mat33 inv_inertia;
};

/// One row as a user or a constraint writes it.
struct RowSpec {
  std::uint32_t body_a = 0, body_b = 0;  ///< solver body indices
  Vec3 j_lin_a, j_ang_a, j_lin_b, j_ang_b;
  Real bias = 0;  ///< target constraint velocity J v (m/s or rad/s)
  Real lo = -k_infinity, hi = k_infinity;
  std::int32_t normal_row = -1;  ///< friction: the row whose impulse bounds this one
  Real mu = 0;                   ///< friction: coefficient applied to the normal impulse
  Real lambda = 0;               ///< initial (warm-start) impulse
};

class RowStore {
 public:
  /// Appends a row; returns its index. Rows added with begin_block/end_block form a block
  /// (the rows of one joint) that the block solver treats together.
  std::uint32_t add(const RowSpec& row);
  /// Rows added between begin_block and end_block form one block; other rows are blocks of one.
  void begin_block();
  void end_block();

  /// Computes B = M^-1 J^T and the inverse effective mass 1 / (J M^-1 J^T) of every row from the
  /// bodies' masses. A row whose J M^-1 J^T is not positive and finite gets inverse effective mass
  /// 0, so the solvers leave it alone, and is counted in degenerate_rows().
  void prepare(const std::vector<SolverBodyMass>& bodies);

  void clear();
  std::size_t size() const { return body_a.size(); }
  std::size_t degenerate_rows() const { return degenerate_rows_; }
  /// The bounds of row i given the current impulses (friction rows follow their normal row).
  Real lower(std::size_t i) const {
    return normal_row[i] < 0 ? lo[i] : -mu[i] * lambda[std::size_t(normal_row[i])];
  }
  Real upper(std::size_t i) const {
    return normal_row[i] < 0 ? hi[i] : mu[i] * lambda[std::size_t(normal_row[i])];
  }

  // Structure of arrays, one entry per row.
  std::vector<std::uint32_t> body_a, body_b;
  std::vector<Vec3> j_lin_a, j_ang_a, j_lin_b, j_ang_b;  // the Jacobian, four 3-vectors
  std::vector<Vec3> b_lin_a, b_ang_a, b_lin_b, b_ang_b;  // B = M^-1 J^T
  std::vector<Real> diagonal;                            // J M^-1 J^T
  std::vector<Real> inv_eff_mass;                        // 1 / diagonal, or 0 for a degenerate row
  std::vector<Real> bias;
  std::vector<Real> lo, hi;
  std::vector<std::int32_t> normal_row;
  std::vector<Real> mu;
  std::vector<Real> lambda;  // accumulated impulse
  // Blocks: rows [block_begin[k], block_begin[k + 1]) form block k; the last entry is size().
  std::vector<std::uint32_t> block_begin{0};

 private:
  std::size_t degenerate_rows_ = 0;
  bool in_block_ = false;
};

}  // namespace impulse
