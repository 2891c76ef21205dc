#pragma once
// A jointed island's warm start, scaled back where it would add energy. A limit's row carries the
// last step's load into this one; when the limit lets go, that impulse throws its bodies apart and
// the sweeps must take it back through the joint's neighbours, which ten of them do slowly where a
// light link carries heavy ones. Measured under pgs: a 1 kg link on a swing limit, 16 kg welded and
// sliding below it, gained 35 kJ in 10 s with warm starts and nothing without.
//
// A solve lowers f(lambda) = 1/2 lambda^T (A + Gamma) lambda + lambda^T (J v - b) (the MLCP's
// objective: f is the kinetic energy the impulses add, less the work the biases ask for), so a
// start with f > 0 that ten sweeps cannot bring below zero is energy created. Each island of joint
// rows (bodies joined by joint rows) holding a one-sided row with a warm start has its joint rows'
// warm start lambda_0 scaled by the alpha in [0, 1] minimising f(alpha lambda_0) (an exact line
// search along it): a converged warm start keeps alpha near 1, one that would throw the island
// apart is cut to what it can give. Contacts' warm starts stay whole (a stack builds its support
// over steps from them: scaled so, the 700-box tower fell) and count in v. Islands of equality rows
// alone are left as they are: their impulses cannot change sign with the motion.

#include "constraints/rows.h"
#include "core/island_sets.h"
#include "dynamics/body_storage.h"

#include <cstdint>
#include <span>
#include <vector>

namespace impulse {

class WarmStartLineSearch {
 public:
  /// Scales the warm starts (the prepared rows' lambda) of rows [begin, end), the joints', island
  /// by island; v are the velocities before any warm start. Costs a pass over [begin, end) when no
  /// one-sided row there has a warm start; else three passes over them, one over the bodies and
  /// one over the other rows.
  void scale(RowStore& rows, std::size_t begin, std::size_t end, std::span<const BodyVelocity> v,
             std::span<const SolverBodyMass> masses);

 private:
  // Scratch: per joint row its island's root; per body whether it moves, whether its island is
  // searched, the joint rows' impulse on it and then its response to them, and its island's root;
  // and, by an island's root, whether a one-sided row is in it and f's terms: f(alpha) = alpha^2
  // quadratic / 2 + alpha linear.
  IslandSets sets_;
  std::vector<std::uint32_t> roots_, body_roots_;
  std::vector<std::uint8_t> moves_, searched_, one_sided_;
  std::vector<BodyVelocity> impulse_;
  std::vector<double> quadratic_, linear_;
};

}  // namespace impulse
