#include "solver/dense_least_squares.h"

#include <cmath>
#include <utility>

namespace impulse {

using Eigen::Index;

namespace {

// x <- (I - tau v v^T) x with v = (1, tail): a Householder reflection.
template <class Tail, class X>
void reflect(double tau, const Tail& tail, X&& x) {
  const Index rest = x.size() - 1;
  const double w = tau * (x[0] + tail.dot(x.tail(rest)));
  x[0] -= w;
  x.tail(rest) -= w * tail;
}

// x <- T^-1 x for the k x k upper triangle T of f: T = L^T with L unit lower below f's diagonal
// (unit), or T on and above it (not).
template <class X>
void back_substitute(const Eigen::MatrixXd& f, bool unit, X&& x) {
  for (Index j = x.size() - 1; j >= 0; --j) {
    if (unit) {
      x[j] -= f.col(j).segment(j + 1, x.size() - j - 1).dot(x.tail(x.size() - j - 1));
    } else {
      x[j] /= f(j, j);
      x.head(j) -= x[j] * f.col(j).head(j);
    }
  }
}

}  // namespace

void PivotedFactor::reserve(Index n) {
  if (n <= factor_.rows()) return;
  factor_.resize(n, n);
  pivot_.resize(n);
  permuted_.resize(n);
  projected_.resize(n);
  coefficients_.resize(n);
  remaining_.resize(n);
  order_.resize(std::size_t(n));
}

void PivotedFactor::grow(Index m) {
  reserve(m);
  size_ = m;
  for (Index i = 0; i < m; ++i)
    order_[std::size_t(i)] = i;
}

void PivotedFactor::factor_null_space() {
  const Index m = size_, k = rank_;
  auto& f = factor_;
  // N^T N = I + X^T X, positive definite (at least I): Cholesky, left-looking, in place.
  for (Index c = k; c < m; ++c) {
    for (Index r = c; r < m; ++r)
      f(r, c) = (r == c ? 1.0 : 0.0) + f.col(r).head(k).dot(f.col(c).head(k));
  }
  for (Index c = k; c < m; ++c) {
    for (Index j = k; j < c; ++j)
      f.col(c).segment(c, m - c) -= f(c, j) * f.col(j).segment(c, m - c);
    f.col(c).segment(c, m - c) /= std::sqrt(f(c, c));
  }
}

void PivotedFactor::project_onto_null_space() {
  const Index m = size_, k = rank_, n = m - k;
  const auto x = [&](Index c) { return factor_.col(k + c).head(k); };  // X's column c
  const auto cholesky = [&](Index r, Index c) { return factor_(k + r, k + c); };
  auto s = coefficients_.head(n);
  for (Index c = 0; c < n; ++c)  // N^T v
    s[c] = permuted_[k + c] + x(c).dot(permuted_.head(k));
  for (Index c = 0; c < n; ++c) {  // (N^T N) s = N^T v, forward and back
    for (Index j = 0; j < c; ++j)
      s[c] -= cholesky(c, j) * s[j];
    s[c] /= cholesky(c, c);
  }
  for (Index c = n - 1; c >= 0; --c) {
    for (Index j = c + 1; j < n; ++j)
      s[c] -= cholesky(j, c) * s[j];
    s[c] /= cholesky(c, c);
  }
  projected_.head(k).setZero();
  for (Index c = 0; c < n; ++c)  // N s
    projected_.head(k) += s[c] * x(c);
  projected_.segment(k, n) = s;
}

void PivotedFactor::take_off_null_part() {
  if (rank_ == size_) return;
  project_onto_null_space();
  permuted_.head(size_) -= projected_.head(size_);
}

void PivotedFactor::gather(const Eigen::Ref<const Eigen::VectorXd>& r) {
  for (Index i = 0; i < size_; ++i)
    permuted_[i] = r[order_[std::size_t(i)]];
}

void PivotedFactor::scatter(const Eigen::VectorXd& v, Eigen::Ref<Eigen::VectorXd> out) const {
  for (Index i = 0; i < size_; ++i)
    out[order_[std::size_t(i)]] = v[i];
}

void SemiDefiniteSystem::factor(const Eigen::MatrixXd& a, std::span<const Index> index,
                                double rank_tolerance) {
  const Index m = Index(index.size());
  grow(m);
  auto& l = factor_;  // L below the diagonal (its unit diagonal implied)
  for (Index i = 0; i < m; ++i)
    remaining_[i] = a(index[std::size_t(i)], index[std::size_t(i)]);
  const auto entry = [&](Index i, Index j) {  // of the symmetric part, in pivoted order
    const Index r = index[std::size_t(order_[std::size_t(i)])];
    const Index c = index[std::size_t(order_[std::size_t(j)])];
    return 0.5 * (a(r, c) + a(c, r));
  };
  // Left-looking: column k of L from A's column and the columns before it; the Schur
  // complement's diagonal kept up to date to choose the next pivot.
  Index k = 0;
  double first = 0;
  for (; k < m; ++k) {
    Index p = k;
    for (Index i = k + 1; i < m; ++i) {
      if (remaining_[i] > remaining_[p]) p = i;
    }
    if (k == 0) first = remaining_[p];
    if (!(remaining_[p] > rank_tolerance * first)) break;
    std::swap(order_[std::size_t(k)], order_[std::size_t(p)]);
    std::swap(remaining_[k], remaining_[p]);
    l.row(k).head(k).swap(l.row(p).head(k));
    pivot_[k] = remaining_[k];
    const Index below = m - k - 1;
    auto column = l.col(k).segment(k + 1, below);
    for (Index i = k + 1; i < m; ++i)
      l(i, k) = entry(i, k);
    for (Index j = 0; j < k; ++j)
      column -= (pivot_[j] * l(k, j)) * l.col(j).segment(k + 1, below);
    column /= pivot_[k];
    for (Index i = k + 1; i < m; ++i)
      remaining_[i] -= l(i, k) * l(i, k) * pivot_[k];
  }
  rank_ = k;
  if (rank_ == m) return;
  // X's column c solves L1^T x = -(row c of L2)^T (L1^T unit upper: back substitution).
  for (Index c = k; c < m; ++c) {
    auto x = l.col(c).head(k);
    x = -l.row(c).head(k).transpose();
    back_substitute(l, true, x);
  }
  factor_null_space();
}

void SemiDefiniteSystem::null_part(const Eigen::Ref<const Eigen::VectorXd>& r,
                                   Eigen::Ref<Eigen::VectorXd> out) {
  if (rank_ == size_) {
    out.setZero();
    return;
  }
  gather(r);
  project_onto_null_space();
  scatter(projected_, out);
}

void SemiDefiniteSystem::solve(const Eigen::Ref<const Eigen::VectorXd>& r,
                               Eigen::Ref<Eigen::VectorXd> out) {
  const Index m = size_, k = rank_;
  const auto& l = factor_;
  gather(r);
  auto y = permuted_.head(k);
  for (Index j = 0; j < k; ++j)  // L1 y = r1
    y.segment(j + 1, k - j - 1) -= y[j] * l.col(j).segment(j + 1, k - j - 1);
  y.array() /= pivot_.head(k).array();
  back_substitute(l, true, y);  // L1^T z1 = D^-1 y
  permuted_.segment(k, m - k).setZero();
  take_off_null_part();
  scatter(permuted_, out);
}

Eigen::Block<Eigen::MatrixXd> GeneralSystem::matrix(Index m) {
  grow(m);
  return factor_.topLeftCorner(m, m);
}

void GeneralSystem::factor(double rank_tolerance) {
  const Index m = size_;
  auto& r = factor_;  // R on and above the diagonal, the Householder vectors below it
  Index k = 0;
  double first = 0;
  for (; k < m; ++k) {
    // The remaining columns' norms, taken afresh (no downdating to lose accuracy).
    Index p = k;
    for (Index j = k; j < m; ++j) {
      remaining_[j] = r.col(j).segment(k, m - k).norm();
      if (remaining_[j] > remaining_[p]) p = j;
    }
    if (k == 0) first = remaining_[p];
    if (!(remaining_[p] > rank_tolerance * first)) break;
    std::swap(order_[std::size_t(k)], order_[std::size_t(p)]);
    r.col(k).head(m).swap(r.col(p).head(m));
    // The reflection H = I - tau v v^T (v_0 = 1) taking column k's rows k to m - 1 to r_kk e_0.
    const double alpha = r(k, k), norm = remaining_[p];
    const double diagonal = alpha >= 0 ? -norm : norm;
    auto v = r.col(k).segment(k + 1, m - k - 1);
    v /= alpha - diagonal;
    r(k, k) = diagonal;
    pivot_[k] = (diagonal - alpha) / diagonal;
    for (Index j = k + 1; j < m; ++j)
      reflect(pivot_[k], v, r.col(j).segment(k, m - k));
  }
  rank_ = k;
  if (rank_ == m) return;
  // X's column c solves R1 x = -(column c of R2) (R1 upper: back substitution, by columns).
  for (Index c = k; c < m; ++c) {
    auto x = r.col(c).head(k);
    x = -x;
    back_substitute(r, false, x);
  }
  factor_null_space();
}

void GeneralSystem::solve(const Eigen::Ref<const Eigen::VectorXd>& g,
                          Eigen::Ref<Eigen::VectorXd> out) {
  const Index m = size_, k = rank_;
  const auto& r = factor_;
  permuted_.head(m) = g;         // the rows are not pivoted
  for (Index j = 0; j < k; ++j)  // Q^T g, the first k reflections (the rest leave rows < k)
    reflect(pivot_[j], r.col(j).segment(j + 1, m - j - 1), permuted_.segment(j, m - j));
  back_substitute(r, false, permuted_.head(k));  // R1 y1 = (Q^T g)_1
  permuted_.segment(k, m - k).setZero();
  take_off_null_part();
  scatter(permuted_, out);
}

}  // namespace impulse
