#pragma once
// A joint's rows made M-orthogonal to its own rigid equality rows: its limits and motors, and for
// the solvers that visit the equality rows one by one, those rows among themselves.
//
// A hinge's limit row J_l = [0, -a, 0, a] alone turns the body about its centre, with J M^-1 J^T
// of that free turn; the point rows then make it turn about the anchor, whose inertia is larger
// by m r^2. An iterative solver visiting the limit after its joint's equality rows sizes each
// impulse by the free turn and has most of it taken back: a 1 kg arm 2.5 m out on a hinge to the
// world, falling onto its limit, was thrown 758 m off under pgs (docs/joints.md, "Limits and
// motors decoupled from their joint's rigid rows"). With
//   J_l' = J_l + c^T J_e,   c = -(J_e M^-1 J_e^T)^-1 J_e M^-1 J_l^T,   b_l' = b_l + c . b_e
// the limit's visit leaves its joint's equality rows satisfied (J_e M^-1 J_l'^T = 0) and its
// diagonal is the Schur complement, the turn about the anchor. Where J_e v = b_e, J_l' v = b_l'
// says what J_l v = b_l says: the solution, the limit's impulse and the joint's reaction (the sum
// of J^T lambda over its rows) are those of the rows as written; only the equality rows' own
// impulses take up c lambda_l.
//
// The equality rows of a weld 3 m from its box's centre couple as strongly among themselves, and
// jacobi and the global solvers, visiting them one by one, threw the box about (2500 J from rest).
// With A = J_e M^-1 J_e^T = L D L^T, the rows J_e' = L^-1 J_e, b_e' = L^-1 b_e hold what J_e v =
// b_e holds and their J M^-1 J^T is D: one visit each settles the joint on its own. Their softness
// (the joint softness of those solvers) becomes the diagonal of L^-1 Gamma L^-T, the transformed
// rows' share of the soft system, but at most k_decoupled_softness_factor times the joint softness
// of their new diagonal D: where the weld's linear rows turn a body of small inertia about a long
// lever, its angular rows' D is a tiny part of their diagonal as written (3e-2 of 164 for a 3 kg,
// 7 cm sphere 6 m out), while the softness they carry stays of the size the rows as written had;
// a weld 200 times softer than its own stiffness let that sphere swing free under block, jacobi
// and the global solvers (docs/joints.md).

#include "dynamics/world_impl.h"

#include <array>
#include <cstdint>
#include <span>

namespace impulse {

/// Which of a joint's prepared rows the decoupling reads and which it changes, by their index
/// among the joint's rows.
struct JointRowRoles {
  std::array<std::uint8_t, k_max_joint_rows> equalities{};  ///< rigid: unbounded, no spring
  std::array<std::uint8_t, k_max_joint_rows> bounded{};     ///< limits and motors
  std::array<std::uint8_t, k_max_joint_rows> springs{};     ///< unbounded with a spring
  std::uint8_t equality_count = 0, bounded_count = 0, spring_count = 0;
};

/// The most softness a transformed equality row keeps, in joint softnesses
/// (SolverSettings::joint_softness) of its new diagonal. Of the values tried on the random sweeps
/// under block, jacobi and the global solvers (none, 100, 30, 10; docs/joints.md), 30 took every
/// pair's energy gain away and the chains' at their end, where 10 let more chains apart.
inline constexpr Real k_decoupled_softness_factor = 30;

/// What a joint row's softness is relative to (joint_softness's, and a spring's effective mass,
/// docs/joints.md): its J M^-1 J^T without the levers' part, the translational part, or the
/// rotational one for a purely angular row; the whole where that part rounds to <= 0 (a needle's).
/// A linear row's lever (r_a + d) x n grows with the error d and turns with the bodies: a softness
/// that grew with it would let a stretched joint go slack, and a spring stiffened and slackened as
/// the bodies turned (not a potential's force): a 1 kg box on a six_dof's six springs 1.5 m from
/// its centre was thrown about at 55 m/s.
inline Real unlevered_diagonal(const LaneRow& r) {
  const Real linear = dot3(r.j[0], r.b[0]) + dot3(r.j[2], r.b[2]);
  if (linear > 0) return linear;
  const Real angular = dot3(r.j[1], r.b[1]) + dot3(r.j[3], r.b[3]);
  return angular > 0 ? angular : r.diagonal;
}

/// Makes each bounded row of the joint's rows (prepared on bodies a and b) M-orthogonal to its
/// equality rows as above: Jacobian, response, diagonal and bias; a spring's softness is then that
/// of the decoupled row's effective mass (its diagonal: a hinge's limit turns the arm about the
/// anchor). Then, where `equalities_too`, its springs the same way, their softness kept (it is
/// sized without levers, and the transform leaves the soft system's Gamma as it was: a spring held
/// a ball turning freely 5 m out that the global solvers threw about), and the equality rows
/// among themselves, in their order, their softness (joint_softness of each row's diagonal as
/// written) transformed and capped as above. Equality rows that depend on the earlier ones (a
/// Cholesky pivot below 1e-5 of its diagonal, or 1e-9 of the largest) are left out and left as they
/// are; nothing changes where a row is not finite. Returns those dependent rows, a bit per index
/// among the joint's rows, where the factor was made: always with `find_dependent`, else only where
/// there is something to decouple.
std::uint16_t decouple_joint_rows(std::span<World::Impl::PreparedJointRow> rows,
                                  const JointRowRoles& roles, const LaneMass& a, const LaneMass& b,
                                  bool equalities_too, bool find_dependent, Real joint_softness);

}  // namespace impulse
