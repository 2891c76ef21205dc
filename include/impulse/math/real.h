#pragma once
// The scalar type of the engine and its constants.

#include <cmath>
#include <limits>

namespace impulse {

#ifdef IMPULSE_DOUBLE_PRECISION
using Real = double;
#else
using Real =
    float;  ///< Float by default (DESIGN.md); build with IMPULSE_DOUBLE_PRECISION for double.
#endif

inline constexpr Real k_pi = Real(3.14159265358979323846);
inline constexpr Real k_infinity = std::numeric_limits<Real>::infinity();
inline constexpr Real k_epsilon = std::numeric_limits<Real>::epsilon();

/// True when x is neither NaN nor infinite.
inline bool is_finite(Real x) {
  return std::isfinite(x);
}

}  // namespace impulse
