#include "solver/spd_inverse.h"

#include <cmath>

namespace impulse {
namespace {

bool positive_and_finite(double pivot) {
  return pivot > 0 && std::isfinite(pivot);
}

bool positive_and_finite(const BlockLdlt::LaneValue& pivot) {
  for (std::size_t l = 0; l < BlockLdlt::k_lanes; ++l) {
    if (!positive_and_finite(pivot[l])) return false;
  }
  return true;
}

// x replaced by its square root (in every lane). In place: a 32-byte vector returned from a call
// would change the ABI in a build without AVX.
void take_square_root(double& x) {
  x = std::sqrt(x);
}

void take_square_root(BlockLdlt::LaneValue& x) {
  for (std::size_t l = 0; l < BlockLdlt::k_lanes; ++l)
    x[l] = std::sqrt(x[l]);
}

}  // namespace

template <std::uint32_t N, class T>
bool invert_spd(T* d) {
  T c[N][N] = {};
  for (std::uint32_t j = 0; j < N; ++j) {
    T pivot = d[j * N + j];
    for (std::uint32_t k = 0; k < j; ++k)
      pivot -= c[j][k] * c[j][k];
    if (!positive_and_finite(pivot)) return false;
    c[j][j] = pivot;
    take_square_root(c[j][j]);
    for (std::uint32_t i = j + 1; i < N; ++i) {
      T v = d[i * N + j];
      for (std::uint32_t k = 0; k < j; ++k)
        v -= c[i][k] * c[j][k];
      c[i][j] = v / c[j][j];
    }
  }
  const T one = T{} + 1;
  T inverse[N][N] = {};  // C^-1, lower triangular
  for (std::uint32_t j = 0; j < N; ++j) {
    inverse[j][j] = one / c[j][j];
    for (std::uint32_t i = j + 1; i < N; ++i) {
      T v{};
      for (std::uint32_t k = j; k < i; ++k)
        v -= c[i][k] * inverse[k][j];
      inverse[i][j] = v / c[i][i];
    }
  }
  for (std::uint32_t i = 0; i < N; ++i) {  // D^-1 = C^-T C^-1
    for (std::uint32_t j = 0; j <= i; ++j) {
      T v{};
      for (std::uint32_t k = i; k < N; ++k)
        v += inverse[k][i] * inverse[k][j];
      d[i * N + j] = d[j * N + i] = v;
    }
  }
  return true;
}

// Every size a node may have, in doubles and in lanes.
static_assert(BlockLdlt::k_max_node == 6);
template bool invert_spd<1, double>(double*);
template bool invert_spd<2, double>(double*);
template bool invert_spd<3, double>(double*);
template bool invert_spd<4, double>(double*);
template bool invert_spd<5, double>(double*);
template bool invert_spd<6, double>(double*);
template bool invert_spd<1, BlockLdlt::LaneValue>(BlockLdlt::LaneValue*);
template bool invert_spd<2, BlockLdlt::LaneValue>(BlockLdlt::LaneValue*);
template bool invert_spd<3, BlockLdlt::LaneValue>(BlockLdlt::LaneValue*);
template bool invert_spd<4, BlockLdlt::LaneValue>(BlockLdlt::LaneValue*);
template bool invert_spd<5, BlockLdlt::LaneValue>(BlockLdlt::LaneValue*);
template bool invert_spd<6, BlockLdlt::LaneValue>(BlockLdlt::LaneValue*);

}  // namespace impulse
