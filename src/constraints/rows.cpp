#include "constraints/rows.h"

#include <algorithm>
#include <array>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace impulse {
namespace {

void require(bool condition, const char* message) {
  if (!condition) throw std::invalid_argument(message);
}

}  // namespace

TangentPair project_to_disc(TangentPair t, Real radius) {
  if (!(radius > 0)) return {};
  const Real length = std::sqrt(t.t1 * t.t1 + t.t2 * t.t2);
  if (length <= radius) return t;
  const Real scale = radius / length;
  return {t.t1 * scale, t.t2 * scale};
}

Real disc_pair_step(Real a11, Real a12, Real a22) {
  const Real half_gap = Real(0.5) * (a11 - a22);
  const Real k_max = Real(0.5) * (a11 + a22) + std::sqrt(half_gap * half_gap + a12 * a12);
  return is_finite(k_max) && k_max > 0 && a11 > 0 && a22 > 0 ? Real(1) / k_max : Real(0);
}

SoftRow soft_row(Real inverse_effective_mass, Real frequency_hz, Real damping_ratio, Real dt) {
  require(is_finite(inverse_effective_mass) && inverse_effective_mass >= 0,
          "soft_row: the inverse effective mass must be >= 0");
  require(is_finite(frequency_hz) && frequency_hz > 0,
          "soft_row: the frequency must be > 0 (a rigid row needs no spring)");
  require(is_finite(damping_ratio) && damping_ratio >= 0,
          "soft_row: the damping ratio must be >= 0");
  require(is_finite(dt) && dt > 0, "soft_row: the time step must be > 0");
  const Real omega_dt = Real(2 * k_pi) * frequency_hz * dt;
  const Real per_mass = 2 * damping_ratio + omega_dt;
  return {inverse_effective_mass / (omega_dt * per_mass), omega_dt / per_mass};
}

std::uint32_t RowStore::add(const RowSpec& row) {
  require(!row.cone || row.normal_row >= 0, "a cone row must be a friction row (normal_row >= 0)");
  // Not finite is not a misuse: bodies whose state went non-finite give such rows, and prepare
  // leaves them inert like any row with non-finite data.
  require(!(row.softness < 0), "a row's softness must not be negative");
  require(row.softness == 0 || row.normal_row < 0, "a friction row cannot be soft");
  require(row.normal_row < 0 || (row.normal_count >= 1 && row.normal_count <= k_max_normal_count),
          "a friction row is bounded by 1 to 4 normal rows (normal_count)");
  if (pair_open_) {
    const std::size_t first = size() - 1;
    require(!row.cone && row.body_a == body_a[first] && row.body_b == body_b[first] &&
                row.normal_row == normal_row[first] && row.normal_count == normal_count[first] &&
                row.mu == mu[first],
            "the row after a cone row must be its partner: same bodies, normal rows and mu, and "
            "no cone flag");
  }
  const auto index = static_cast<std::uint32_t>(size());
  resize(size() + 1);
  set(index, row);
  pair_open_ = row.cone;
  // A cone pair outside a block is a block of two: no solver visits half of it.
  if (!in_block_ && !pair_open_) block_begin.push_back(index + 1);
  return index;
}

std::uint32_t RowStore::append_rows(std::size_t count) {
  require(!in_block_ && !pair_open_, "append_rows inside a block or a cone pair");
  const auto first = static_cast<std::uint32_t>(size());
  resize(size() + count);
  return first;
}

void RowStore::end_appended_block(std::uint32_t end) {
  require(end > block_begin.back() && end <= size(), "an appended block must end past its start");
  block_begin.push_back(end);
}

void RowStore::begin_block() {
  require(!pair_open_, "a cone pair lacks its second row");
  in_block_ = true;
}

void RowStore::end_block() {
  require(!pair_open_, "a cone pair lacks its second row");
  in_block_ = false;
  if (block_begin.back() != size()) block_begin.push_back(static_cast<std::uint32_t>(size()));
}

void RowStore::prepare(const std::vector<SolverBodyMass>& bodies, TaskPool* pool,
                       std::size_t first) {
  require(!pair_open_, "a cone pair lacks its second row");
  run_ranges(pool, size() - first, k_prepare_chunks, k_parallel_rows,
             [&](std::size_t begin, std::size_t end) {
               for (std::size_t i = first + begin; i < first + end; ++i)
                 prepare_row(i, bodies[body_a[i]], bodies[body_b[i]]);
             });
  // After every row's inverse effective mass: a pair reads its second row's.
  std::array<std::size_t, k_prepare_chunks> degenerate{};
  // Plain loops rather than one with the disc's branch in it: the count and the zeros vectorise,
  // and the cone rows (in the cone model only) are sought by memchr first. The counts add up
  // alike on any number of chunks.
  run_chunks(pool, size(), chunks_on(pool, size(), k_prepare_chunks, k_parallel_rows),
             k_parallel_rows, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
               std::size_t count = 0;
               for (std::size_t i = begin; i < end; ++i)
                 count += inv_eff_mass[i] == 0 ? 1 : 0;
               degenerate[chunk] = count;
               std::fill(disc_step.begin() + begin, disc_step.begin() + end, Real(0));
               static_assert(sizeof(cone[0]) == 1, "cone flags are bytes (memchr)");
               const std::uint8_t* flags = cone.begin();
               if (std::memchr(flags + begin, 1, end - begin) == nullptr) return;
               for (std::size_t i = begin; i < end; ++i) {
                 if (cone[i] != 0 && inv_eff_mass[i] > 0 && inv_eff_mass[i + 1] > 0)
                   disc_step[i] = disc_pair_step(diagonal[i], coupling(i, i + 1), diagonal[i + 1]);
               }
             });
  degenerate_rows_ = 0;
  for (const std::size_t count : degenerate)
    degenerate_rows_ += count;
}

void RowStore::finish_prepared(std::size_t first, std::size_t end) {
  constexpr std::size_t k_rows = 4;  // a register's lanes
  static_assert(sizeof(Lanes) == k_rows * sizeof(Real), "a row per lane");
  const RowCoefficients* c = coefficients.data();
  Real *diagonals = diagonal.data(), *inverses = inv_eff_mass.data();
  const Real* softnesses = softness.data();
  for (std::size_t i = first; i < end; i += k_rows) {
    const std::size_t rows = std::min(k_rows, end - i);
    // Row r's dot3 of J and B per part, lane r being row r's (a short last quartet repeats its
    // first row): sum3's sums on the products transposed.
    const auto row = [&](std::size_t r) -> const RowCoefficients& {
      return c[i + (r < rows ? r : 0)];
    };
    Lanes d{}, s{};
    for (std::size_t part = 0; part < 4; ++part) {
      const auto product = [&](std::size_t r) {
        return row(r).jacobian[part] * row(r).response[part];
      };
      const std::array<Lanes, 4> t = transposed(product(0), product(1), product(2), product(3));
      const Lanes dot = (t[0] + t[1]) + t[2];
      d = part == 0 ? dot : d + dot;
    }
    // A whole quartet's softnesses read and results written as one register each (lane by lane,
    // the stores took 1.2% of the tower's instructions).
    if (rows == k_rows) {
      std::memcpy(&s, softnesses + i, sizeof s);
    } else {
      for (std::size_t r = 0; r < k_rows; ++r)
        s[r] = softnesses[i + (r < rows ? r : 0)];
    }
    const Lanes inverse = inverse_effective_mass(d, s);
    if (rows == k_rows) {
      std::memcpy(diagonals + i, &d, sizeof d);
      std::memcpy(inverses + i, &inverse, sizeof inverse);
    } else {
      for (std::size_t r = 0; r < rows; ++r) {
        diagonals[i + r] = d[r];
        inverses[i + r] = inverse[r];
      }
    }
  }
}

void RowStore::soften(std::size_t i, Real fraction) {
  softness[i] = fraction * diagonal[i];
  inv_eff_mass[i] = inverse_effective_mass(diagonal[i], softness[i]);
}

bool RowStore::has_position_bias() const {
  return std::any_of(position_bias.begin(), position_bias.end(), [](Real b) { return b != 0; });
}

void RowStore::drop_position_bias(TaskPool* pool) {
  run_ranges(pool, size(), k_prepare_chunks, k_parallel_drops,
             [&](std::size_t begin, std::size_t end) {
               for (std::size_t i = begin; i < end; ++i)
                 bias[i] -= position_bias[i];
             });
}

Real RowStore::coupling(std::size_t i, std::size_t j) const {
  struct Side {
    std::uint32_t body;
    Vec3 j_lin, j_ang, b_lin, b_ang;
  };
  const Side sides_i[] = {{body_a[i], j_lin_a(i), j_ang_a(i), b_lin_a(i), b_ang_a(i)},
                          {body_b[i], j_lin_b(i), j_ang_b(i), b_lin_b(i), b_ang_b(i)}};
  const Side sides_j[] = {{body_a[j], j_lin_a(j), j_ang_a(j), b_lin_a(j), b_ang_a(j)},
                          {body_b[j], j_lin_b(j), j_ang_b(j), b_lin_b(j), b_ang_b(j)}};
  Real sum = 0;
  for (const Side& si : sides_i) {
    for (const Side& sj : sides_j) {
      if (si.body == sj.body) sum += dot(si.j_lin, sj.b_lin) + dot(si.j_ang, sj.b_ang);
    }
  }
  return sum;
}

void RowStore::clear() {
  resize(0);
  block_begin.assign(1, 0);
  degenerate_rows_ = 0;
  in_block_ = false;
  pair_open_ = false;
}

}  // namespace impulse
