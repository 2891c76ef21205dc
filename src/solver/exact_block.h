#pragma once
// A set of rows solved together and exactly, the others held fixed: block Gauss-Seidel's visit
// (seed 002), shared by the block solver's blocks and pgs's mass-ratio islands (ratio_islands.h).

#include "constraints/rows.h"
#include "dynamics/body_storage.h"
#include "solver/dense_mlcp.h"

#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

class ExactBlock {
 public:
  /// Takes the rows (store indices, ascending) and assembles their fixed part: A + diag(softness),
  /// the friction coupling among them, the disc pairs, A's checks and measures
  /// (mlcp_matrix_facts with semi_definite_spectrum: J M^-1 J^T + diag(softness) is positive
  /// semi-definite by construction), and the mass of the rows' moving bodies. O(k^2) for k rows;
  /// none of it changes between visits within a solve (nor in its relax solve).
  void assemble(const RowStore& store, std::span<const std::uint32_t> rows,
                std::span<const SolverBodyMass> masses);
  /// Solves the rows' MLCP with every other row's impulse fixed (b, the bounds and the guess from
  /// the store and the velocities) and applies the change, relaxed by sor and clamped to the
  /// bounds (a disc pair to its disc); false when the small solve failed, its impulses push
  /// against each other (rows_contradict), or the change would give the rows' bodies more kinetic
  /// energy than their moving mass has at gain_speed (m/s) over what v gives them: nothing
  /// applied.
  bool solve(RowStore& store, std::span<BodyVelocity> v, Real sor, Real gain_speed = k_infinity);

 private:
  /// The kinetic energy the change from guess_ to lambda gives the rows' bodies, J, from the
  /// velocities velocity_ was taken at (with soft rows' d^2 softness / 2 on top: a bound).
  double energy_gain(const Eigen::VectorXd& lambda) const;

  std::vector<std::uint32_t> rows_;
  MlcpProblem problem_;
  std::vector<int> disc_pairs_;  // the disc pairs' first rows, as rows of the block
  Eigen::VectorXd guess_;
  MlcpWorkspace workspace_;            // solve's scratch
  MlcpResult result_;                  // solve's, kept with its storage
  Eigen::VectorXd velocity_;           // solve's scratch: J v per row before the change
  std::vector<std::uint32_t> bodies_;  // assemble's scratch: the rows' bodies, each once
  double mass_ = 0;                    // kg, of those that move
};

/// ExactBlocks kept between solves by row count (the block solver's blocks, pgs's mass-ratio
/// islands): a solve takes one of each block's size, so that as contacts come and go, and a
/// layout's block or island changes size, each finds storage of its size (Eigen's matrices and
/// the MLCP workspace reallocate on any change of size). A solve with no more blocks of each size
/// than one before allocates nothing.
class ExactBlockPool {
 public:
  struct Handle {
    std::uint32_t rows = 0, slot = 0;
  };
  /// Starts a solve: every kept block free to be taken again.
  void restart();
  /// A free block for `rows` rows, made when none is.
  Handle take(std::uint32_t rows);
  /// The block a handle names. The handle holds until the next restart; a reference to the block,
  /// until the next take (which may move the blocks).
  ExactBlock& operator[](Handle block) { return by_size_[block.rows][block.slot]; }

 private:
  std::vector<std::vector<ExactBlock>> by_size_;
  std::vector<std::uint32_t> taken_;  // per row count: blocks taken since the restart
};

}  // namespace impulse
