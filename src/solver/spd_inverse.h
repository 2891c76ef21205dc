#pragma once
// The inverse of a small dense symmetric positive definite block (a node's diagonal block of
// BlockLdlt), for one block in doubles or for BlockLdlt::k_lanes blocks at once in lanes. Its file
// is compiled without fused multiply-adds (CMakeLists.txt): GCC fused the products of the scalar
// form and of the lanes' differently (a few units in the last place), and each lane must have the
// bits of the scalar inverse of its block.

#include "solver/block_ldlt.h"

#include <cstdint>

namespace impulse {

/// The N x N row-major block at d (lower triangle read) replaced by its inverse (whole), through
/// its Cholesky factor: false when a pivot is not positive and finite (in some lane). N: 1 to
/// BlockLdlt::k_max_node; T: double or BlockLdlt::LaneValue.
template <std::uint32_t N, class T>
bool invert_spd(T* d);

}  // namespace impulse
