#include "dynamics/joint_row_decoupling.h"

#include <algorithm>
#include <cmath>

namespace impulse {
namespace {

// J_x M^-1 J_y^T from x's Jacobian and y's response.
double coupling(const LaneRow& x, const LaneRow& y) {
  return double(dot3(x.j[0], y.b[0])) + double(dot3(x.j[1], y.b[1])) +
         double(dot3(x.j[2], y.b[2])) + double(dot3(x.j[3], y.b[3]));
}

// Relative to its diagonal, the pivot below which an equality row counts as a combination of the
// earlier ones (a float row's rounding is some 1e-7 of it); and so a bounded row whose decoupled
// diagonal falls below this of its own: a combination of the equality rows.
constexpr double k_dependent_pivot = 1e-5;
// Relative to the block's largest diagonal, the least a pivot may be: a row that barely moves its
// bodies (an angular row on a body held to a tilted plane) is rounding, not a direction.
constexpr double k_least_pivot = 1e-9;

// A = L D L^T of the equality rows' J M^-1 J^T, with a dependent row's pivot 0 (left out).
class EqualityFactor {
 public:
  bool factor(std::span<const World::Impl::PreparedJointRow> rows, const JointRowRoles& roles) {
    n_ = roles.equality_count;
    double largest = 0;
    for (std::size_t i = 0; i < n_; ++i)
      largest = std::max(largest, double(rows[roles.equalities[i]].response.diagonal));
    for (std::size_t i = 0; i < n_; ++i) {
      const LaneRow& row_i = rows[roles.equalities[i]].response;
      for (std::size_t j = 0; j <= i; ++j) {
        double s = coupling(row_i, rows[roles.equalities[j]].response);
        for (std::size_t m = 0; m < j; ++m)
          s -= l_[i][m] * l_[j][m] * d_[m];
        if (j < i) {
          l_[i][j] = d_[j] > 0 ? s / d_[j] : 0;
          continue;
        }
        if (!std::isfinite(s)) return false;
        const bool independent =
            s > k_dependent_pivot * double(row_i.diagonal) && s > k_least_pivot * largest;
        d_[i] = independent ? s : 0;
      }
    }
    return true;
  }

  double l(std::size_t i, std::size_t m) const { return l_[i][m]; }
  bool kept(std::size_t i) const { return d_[i] > 0; }

  // x = -A^-1 r over the rows kept (0 for those left out).
  void solve_negated(std::array<double, k_max_joint_rows>& x) const {
    for (std::size_t i = 0; i < n_; ++i) {
      x[i] = -x[i];
      for (std::size_t m = 0; m < i; ++m)
        x[i] -= l_[i][m] * x[m];
    }
    for (std::size_t i = n_; i-- > 0;) {
      x[i] = d_[i] > 0 ? x[i] / d_[i] : 0;
      for (std::size_t m = i + 1; m < n_; ++m)
        x[i] -= l_[m][i] * x[m];
    }
  }

 private:
  std::size_t n_ = 0;
  std::array<std::array<double, k_max_joint_rows>, k_max_joint_rows> l_;
  std::array<double, k_max_joint_rows> d_;
};

// Each of the listed rows less its part along the equality rows (the header's J_l'). A spring's
// softness follows the decoupled row's diagonal where `resize_springs` (limits: sized by the motion
// the joint allows), and is kept otherwise (equality springs: sized without their levers).
void decouple_from_equalities(std::span<World::Impl::PreparedJointRow> rows,
                              std::span<const std::uint8_t> listed, const JointRowRoles& roles,
                              const EqualityFactor& factor, const LaneMass& a, const LaneMass& b,
                              bool resize_springs) {
  for (const std::uint8_t index : listed) {
    World::Impl::PreparedJointRow& row = rows[index];
    std::array<double, k_max_joint_rows> c;
    bool finite = std::isfinite(row.response.diagonal);
    for (std::size_t i = 0; i < roles.equality_count; ++i) {
      c[i] = coupling(rows[roles.equalities[i]].response, row.response);
      finite = finite && std::isfinite(c[i]);
    }
    if (!finite) continue;
    factor.solve_negated(c);
    // As written, for a row the equality rows already hold: decoupled it would be rounding with a
    // bias (a limit along a plane world's normal threw its body 15 km).
    LaneRow& response = row.response;
    const std::array<Lanes, 4> written = response.j;
    const Real written_bias = row.spec.bias, free_diagonal = response.diagonal;
    // A spring's softness was sized on this measure of the row as written (world_joints.cpp).
    const Real spring_scale =
        resize_springs && row.spec.softness > 0 ? unlevered_diagonal(response) : 0;
    for (std::size_t i = 0; i < roles.equality_count; ++i) {
      const World::Impl::PreparedJointRow& equality = rows[roles.equalities[i]];
      const Real weight = Real(c[i]);
      for (std::size_t p = 0; p < 4; ++p)
        response.j[p] += splat(weight) * equality.response.j[p];
      row.spec.bias += weight * equality.spec.bias;
    }
    // position_bias (a passed limit's push-out) is left as written: the relax solve drops it and
    // keeps the equality rows' share, which they keep in their own bias too.
    write_response(response, a, b);
    if (!(double(response.diagonal) > k_dependent_pivot * double(free_diagonal))) {
      response.j = written;
      row.spec.bias = written_bias;
      write_response(response, a, b);
      continue;
    }
    if (spring_scale > 0) row.spec.softness *= response.diagonal / spring_scale;
  }
}

// J_e' = L^-1 J_e: each row less its part along the rows before it, as transformed; T = L^-1 the
// same way, for the softness: J_e' v + T Gamma T^T lambda' = T b_e is the soft system, whose
// diagonal the rows keep, up to most_softness times their new diagonal.
void orthogonalise_equalities(std::span<World::Impl::PreparedJointRow> rows,
                              const JointRowRoles& roles, const EqualityFactor& factor,
                              const LaneMass& a, const LaneMass& b, double most_softness) {
  std::array<std::array<double, k_max_joint_rows>, k_max_joint_rows> t{};
  std::array<Real, k_max_joint_rows> softness{};
  for (std::size_t i = 0; i < roles.equality_count; ++i)
    softness[i] = rows[roles.equalities[i]].spec.softness;
  for (std::size_t i = 0; i < roles.equality_count; ++i) {
    t[i][i] = 1;
    if (!factor.kept(i)) continue;
    World::Impl::PreparedJointRow& row = rows[roles.equalities[i]];
    for (std::size_t m = 0; m < i; ++m) {
      if (!factor.kept(m)) continue;
      const World::Impl::PreparedJointRow& before = rows[roles.equalities[m]];
      const double l = factor.l(i, m);
      for (std::size_t c = 0; c <= m; ++c)
        t[i][c] -= l * t[m][c];
      for (std::size_t p = 0; p < 4; ++p)
        row.response.j[p] -= splat(Real(l)) * before.response.j[p];
      row.spec.bias -= Real(l) * before.spec.bias;
    }
    double gamma = 0;
    for (std::size_t c = 0; c <= i; ++c)
      gamma += t[i][c] * t[i][c] * double(softness[c]);
    write_response(row.response, a, b);
    row.spec.softness = Real(std::min(gamma, most_softness * double(row.response.diagonal)));
  }
}

}  // namespace

std::uint16_t decouple_joint_rows(std::span<World::Impl::PreparedJointRow> rows,
                                  const JointRowRoles& roles, const LaneMass& a, const LaneMass& b,
                                  bool equalities_too, bool find_dependent, Real joint_softness) {
  if (roles.equality_count == 0 || (roles.bounded_count == 0 && !equalities_too && !find_dependent))
    return 0;
  EqualityFactor factor;
  if (!factor.factor(rows, roles)) return 0;
  decouple_from_equalities(rows, std::span(roles.bounded).first(roles.bounded_count), roles, factor,
                           a, b, true);
  if (equalities_too) {
    decouple_from_equalities(rows, std::span(roles.springs).first(roles.spring_count), roles,
                             factor, a, b, false);
    orthogonalise_equalities(rows, roles, factor, a, b,
                             double(k_decoupled_softness_factor) * double(joint_softness));
  }
  std::uint16_t dependent = 0;
  for (std::size_t i = 0; i < roles.equality_count; ++i)
    if (!factor.kept(i)) dependent |= std::uint16_t(1u << roles.equalities[i]);
  return dependent;
}

}  // namespace impulse
