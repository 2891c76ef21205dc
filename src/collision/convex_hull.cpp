#include "collision/convex_hull.h"

#include <impulse/error.h>
#include <impulse/shape.h>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/eigen_double.h"

namespace impulse {
namespace {

using Vec3d = Eigen::Vector3d;
using Int3 = std::array<std::int64_t, 3>;

// The points are snapped to a grid of 2^19 steps per half-size of the cloud, where every
// orientation test is exact in 64-bit integers (|side| < 3 * 2^61), so the triangulation is always
// a valid convex polyhedron. The tolerance, a few grid steps (about 1.5e-5 of the half-size),
// then decides which faces are one plane and which corners are noise.
constexpr int k_grid_bits = 19;
constexpr double k_tolerance_steps = 8;
constexpr std::uint32_t k_none = ~std::uint32_t(0);

Vec3d to_double(const Int3& v) {
  return {double(v[0]), double(v[1]), double(v[2])};
}
Int3 sub(const Int3& a, const Int3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
Int3 cross(const Int3& a, const Int3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
std::int64_t dot(const Int3& a, const Int3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// A triangle of the hull under construction, CCW seen from outside.
struct Triangle {
  std::array<std::uint32_t, 3> v{};
  std::array<std::uint32_t, 3> neighbor{};  // the triangle across edge v[i] -> v[i + 1]
  Int3 normal{};                            // exact, not unit
  std::int64_t offset = 0;
  double inverse_length = 0;             // 1 / |normal|
  std::vector<std::uint32_t> conflicts;  // points above this triangle, not yet on the hull
  bool alive = true;
  bool visible = false;  // scratch while one point is being added

  /// Exact: positive above the plane, zero on it.
  std::int64_t side(const Int3& p) const { return dot(normal, p) - offset; }
  /// In grid steps.
  double distance(const Int3& p) const { return double(side(p)) * inverse_length; }
  int edge_to(std::uint32_t a, std::uint32_t b) const {
    for (int i = 0; i < 3; ++i) {
      if (v[i] == a && v[(i + 1) % 3] == b) return i;
    }
    return -1;
  }
};

struct HorizonEdge {
  std::uint32_t a, b;     // as the edge runs in the visible triangle
  std::uint32_t outside;  // the triangle beyond it, which stays
};

/// Four of the points spanning a tetrahedron thicker than the tolerance (in grid steps), or why
/// there are none.
struct Simplex {
  std::array<std::uint32_t, 4> corners{};
  const char* flat = nullptr;  // "collinear" or "coplanar" when the points span no volume
};

Simplex initial_simplex(const std::vector<Int3>& grid, std::span<const std::uint32_t> points,
                        double tolerance) {
  std::array<std::uint32_t, 6> extremes;
  extremes.fill(points.front());
  for (const std::uint32_t i : points) {
    for (std::size_t axis = 0; axis < 3; ++axis) {
      if (grid[i][axis] < grid[extremes[2 * axis]][axis]) extremes[2 * axis] = i;
      if (grid[i][axis] > grid[extremes[2 * axis + 1]][axis]) extremes[2 * axis + 1] = i;
    }
  }
  std::uint32_t a = extremes[0], b = extremes[1];
  double best = -1;
  for (int i = 0; i < 6; ++i) {
    for (int j = i + 1; j < 6; ++j) {
      const double d = (to_double(grid[extremes[i]]) - to_double(grid[extremes[j]])).squaredNorm();
      if (d > best) {
        best = d;
        a = extremes[i];
        b = extremes[j];
      }
    }
  }

  const Vec3d pa = to_double(grid[a]);
  const Vec3d axis = (to_double(grid[b]) - pa).normalized();
  std::uint32_t c = a;
  best = -1;
  for (const std::uint32_t i : points) {
    const double d = (to_double(grid[i]) - pa).cross(axis).norm();
    if (d > best) {
      best = d;
      c = i;
    }
  }
  if (!(best > tolerance)) return {.flat = "collinear"};

  const Vec3d normal = (to_double(grid[b]) - pa).cross(to_double(grid[c]) - pa).normalized();
  std::uint32_t d = a;
  best = -1;
  for (const std::uint32_t i : points) {
    const double dist = std::abs(normal.dot(to_double(grid[i]) - pa));
    if (dist > best) {
      best = dist;
      d = i;
    }
  }
  if (!(best > tolerance)) return {.flat = "coplanar"};
  return {.corners = {a, b, c, d}};
}

/// Quickhull on the grid with exact predicates: the exact hull of the snapped points, always a
/// closed convex triangulation (coplanar neighbours included).
class Quickhull {
 public:
  explicit Quickhull(const std::vector<Int3>& grid) : grid_(grid) {}

  /// The triangles of the hull of simplex + points, with neighbours indexing the result.
  std::vector<Triangle> build(const std::array<std::uint32_t, 4>& simplex,
                              std::span<const std::uint32_t> points);

 private:
  std::uint32_t add_triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c);
  void assign(std::uint32_t point, std::span<const std::uint32_t> candidates);
  void find_horizon(std::uint32_t start, const Int3& eye, std::vector<std::uint32_t>& visible,
                    std::vector<HorizonEdge>& horizon);
  void add_point(std::uint32_t start, std::uint32_t eye);

  const std::vector<Int3>& grid_;
  std::vector<Triangle> triangles_;
  std::vector<std::uint32_t> pending_;  // triangles that may still have conflicts
};

std::uint32_t Quickhull::add_triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  Triangle t;
  t.v = {a, b, c};
  t.neighbor = {k_none, k_none, k_none};
  t.normal = cross(sub(grid_[b], grid_[a]), sub(grid_[c], grid_[a]));
  t.offset = dot(t.normal, grid_[a]);
  t.inverse_length = 1 / to_double(t.normal).norm();
  triangles_.push_back(std::move(t));
  return static_cast<std::uint32_t>(triangles_.size() - 1);
}

void Quickhull::assign(std::uint32_t point, std::span<const std::uint32_t> candidates) {
  double best_distance = 0;
  std::uint32_t best = k_none;
  for (const std::uint32_t t : candidates) {
    const Triangle& triangle = triangles_[t];
    if (triangle.side(grid_[point]) <= 0) continue;
    const double d = triangle.distance(grid_[point]);
    if (best == k_none || d > best_distance) {
      best_distance = d;
      best = t;
    }
  }
  // Points on or inside the hull are dropped for good.
  if (best != k_none) triangles_[best].conflicts.push_back(point);
}

// Depth-first over the triangles the eye sees; the edges to unseen triangles come out in order
// around the visible region (Gregorius, "Implementing Quickhull", GDC 2014). Exact visibility
// on a convex polyhedron makes that region a disk, so the horizon is one simple loop.
void Quickhull::find_horizon(std::uint32_t start, const Int3& eye,
                             std::vector<std::uint32_t>& visible,
                             std::vector<HorizonEdge>& horizon) {
  struct Frame {
    std::uint32_t triangle;
    int entry;  // the edge it was reached through
    int step;
  };
  std::vector<Frame> stack{{start, 0, 0}};
  triangles_[start].visible = true;
  visible.push_back(start);
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.step == 3) {
      stack.pop_back();
      continue;
    }
    const int i = (frame.entry + frame.step++) % 3;
    const Triangle& t = triangles_[frame.triangle];
    const std::uint32_t next = t.neighbor[i];
    Triangle& other = triangles_[next];
    if (other.visible) continue;
    if (other.side(eye) > 0) {
      other.visible = true;
      visible.push_back(next);
      stack.push_back({next, other.edge_to(t.v[(i + 1) % 3], t.v[i]), 0});
    } else {
      horizon.push_back({t.v[i], t.v[(i + 1) % 3], next});
    }
  }
}

void Quickhull::add_point(std::uint32_t start, std::uint32_t eye) {
  std::vector<std::uint32_t> visible;
  std::vector<HorizonEdge> horizon;
  find_horizon(start, grid_[eye], visible, horizon);

  const auto first = static_cast<std::uint32_t>(triangles_.size());
  const auto count = static_cast<std::uint32_t>(horizon.size());
  std::vector<std::uint32_t> cone(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const HorizonEdge& e = horizon[i];
    const std::uint32_t t = add_triangle(e.a, e.b, eye);
    cone[i] = t;
    Triangle& outside = triangles_[e.outside];
    outside.neighbor[outside.edge_to(e.b, e.a)] = t;
    triangles_[t].neighbor = {e.outside, first + (i + 1) % count, first + (i + count - 1) % count};
  }

  for (const std::uint32_t t : visible) {
    Triangle& gone = triangles_[t];
    gone.alive = false;
    for (const std::uint32_t p : gone.conflicts) {
      if (p != eye) assign(p, cone);
    }
    gone.conflicts = {};
  }
  for (const std::uint32_t t : cone) {
    if (!triangles_[t].conflicts.empty()) pending_.push_back(t);
  }
}

std::vector<Triangle> Quickhull::build(const std::array<std::uint32_t, 4>& simplex,
                                       std::span<const std::uint32_t> points) {
  auto [a, b, c, d] = simplex;
  // Face abc must look away from d.
  if (dot(cross(sub(grid_[b], grid_[a]), sub(grid_[c], grid_[a])), sub(grid_[d], grid_[a])) > 0) {
    std::swap(b, c);
  }
  const std::array<std::array<std::uint32_t, 3>, 4> faces{
      {{a, b, c}, {a, d, b}, {b, d, c}, {c, d, a}}};
  for (const auto& f : faces) {
    add_triangle(f[0], f[1], f[2]);
  }
  for (Triangle& t : triangles_) {
    for (int i = 0; i < 3; ++i) {
      for (std::uint32_t other = 0; other < 4; ++other) {
        if (triangles_[other].edge_to(t.v[(i + 1) % 3], t.v[i]) >= 0) t.neighbor[i] = other;
      }
    }
  }
  const std::array<std::uint32_t, 4> first{0, 1, 2, 3};
  for (const std::uint32_t p : points) {
    if (std::find(simplex.begin(), simplex.end(), p) == simplex.end()) assign(p, first);
  }
  pending_.assign(first.begin(), first.end());

  while (!pending_.empty()) {
    const std::uint32_t t = pending_.back();
    const Triangle& triangle = triangles_[t];
    if (!triangle.alive || triangle.conflicts.empty()) {
      pending_.pop_back();
      continue;
    }
    // The farthest point first: it is surely a corner of the final hull.
    const auto far = std::max_element(triangle.conflicts.begin(), triangle.conflicts.end(),
                                      [&](std::uint32_t p, std::uint32_t q) {
                                        return triangle.side(grid_[p]) < triangle.side(grid_[q]);
                                      });
    add_point(t, *far);
  }

  std::vector<std::uint32_t> compact(triangles_.size(), k_none);
  std::vector<Triangle> result;
  for (std::size_t i = 0; i < triangles_.size(); ++i) {
    if (!triangles_[i].alive) continue;
    compact[i] = static_cast<std::uint32_t>(result.size());
    result.push_back(std::move(triangles_[i]));
  }
  for (Triangle& t : result) {
    for (std::uint32_t& n : t.neighbor) {
      n = compact[n];
    }
  }
  return result;
}

/// The boundary of a group of triangles as one CCW loop, or empty when it is not a simple loop.
std::vector<std::uint32_t> boundary_loop(const std::vector<Triangle>& triangles,
                                         const std::vector<std::uint32_t>& group_of,
                                         const std::vector<std::uint32_t>& members) {
  std::vector<std::array<std::uint32_t, 2>> edges;
  for (const std::uint32_t t : members) {
    for (int i = 0; i < 3; ++i) {
      if (group_of[triangles[t].neighbor[i]] != group_of[t]) {
        edges.push_back({triangles[t].v[i], triangles[t].v[(i + 1) % 3]});
      }
    }
  }
  if (edges.empty()) return {};
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 1; i < edges.size(); ++i) {
    if (edges[i][0] == edges[i - 1][0]) return {};  // the loop touches itself
  }
  std::vector<std::uint32_t> loop{edges.front()[0]};
  std::uint32_t next = edges.front()[1];
  while (next != loop.front()) {
    if (loop.size() >= edges.size()) return {};
    loop.push_back(next);
    const auto it =
        std::lower_bound(edges.begin(), edges.end(), std::array{next, std::uint32_t(0)});
    if (it == edges.end() || (*it)[0] != next) return {};
    next = (*it)[1];
  }
  if (loop.size() != edges.size()) return {};  // more than one loop
  return loop;
}

/// Newell's normal: the best plane of a polygon whose corners are only nearly coplanar.
Vec3d polygon_normal(const std::vector<std::uint32_t>& loop, const std::vector<Vec3d>& local) {
  Vec3d normal = Vec3d::Zero();
  for (std::size_t i = 0; i < loop.size(); ++i) {
    normal += local[loop[i]].cross(local[loop[(i + 1) % loop.size()]]);
  }
  return normal.normalized();
}

/// Groups coplanar neighbouring triangles (within tolerance of the plane of the group's largest
/// triangle, so a gently curved strip cannot creep into one face) and returns their outlines.
std::vector<std::vector<std::uint32_t>> merge_coplanar(const std::vector<Triangle>& triangles,
                                                       const std::vector<Vec3d>& local,
                                                       double tolerance) {
  const auto count = static_cast<std::uint32_t>(triangles.size());
  std::vector<double> area(count);
  std::vector<std::uint32_t> order(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto& v = triangles[i].v;
    area[i] = (local[v[1]] - local[v[0]]).cross(local[v[2]] - local[v[0]]).norm();
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return area[a] > area[b]; });

  std::vector<std::uint32_t> group_of(count, k_none);
  std::vector<std::vector<std::uint32_t>> polygons;
  std::vector<std::uint32_t> members;
  for (const std::uint32_t seed : order) {
    if (group_of[seed] != k_none) continue;
    const auto& sv = triangles[seed].v;
    const Vec3d normal =
        (local[sv[1]] - local[sv[0]]).cross(local[sv[2]] - local[sv[0]]).normalized();
    const double offset = normal.dot(local[sv[0]]);
    members = {seed};
    group_of[seed] = seed;
    for (std::size_t m = 0; m < members.size(); ++m) {
      for (const std::uint32_t n : triangles[members[m]].neighbor) {
        if (group_of[n] != k_none) continue;
        const auto& v = triangles[n].v;
        const bool coplanar = std::all_of(v.begin(), v.end(), [&](std::uint32_t p) {
          return std::abs(normal.dot(local[p]) - offset) <= tolerance;
        });
        if (!coplanar) continue;
        group_of[n] = seed;
        members.push_back(n);
      }
    }
    std::vector<std::uint32_t> loop = members.size() == 1
                                          ? std::vector<std::uint32_t>(sv.begin(), sv.end())
                                          : boundary_loop(triangles, group_of, members);
    if (!loop.empty()) {
      polygons.push_back(std::move(loop));
      continue;
    }
    // An outline tolerance made non-simple: keep the group's triangles as faces of their own.
    for (const std::uint32_t t : members) {
      group_of[t] = count + t;
      polygons.emplace_back(triangles[t].v.begin(), triangles[t].v.end());
    }
  }
  return polygons;
}

/// Corners that make a face reflex or lie within tolerance of the segment between their
/// neighbours (slivers, points along an edge, noise on a flat side). Each lies within about the
/// tolerance of the hull of the other points, so it can go; no two neighbours go in one round, so
/// the error cannot add up along a row of such corners.
std::vector<std::uint32_t> redundant_corners(
    const std::vector<std::vector<std::uint32_t>>& polygons, const std::vector<Triangle>& triangles,
    const std::vector<Vec3d>& local, double tolerance) {
  std::vector<std::pair<double, std::uint32_t>> candidates;  // (outward height, point)
  for (const auto& loop : polygons) {
    const Vec3d normal = polygon_normal(loop, local);
    const std::size_t n = loop.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3d& a = local[loop[(i + n - 1) % n]];
      const Vec3d& v = local[loop[i]];
      const Vec3d ac = local[loop[(i + 1) % n]] - a;
      const double height = (v - a).dot(ac.cross(normal).normalized());
      const double t = std::clamp((v - a).dot(ac) / ac.squaredNorm(), 0.0, 1.0);
      const double gap = (a + t * ac - v).norm();
      if (height < 0 || gap <= tolerance) candidates.emplace_back(height, loop[i]);
    }
  }
  if (candidates.empty()) return {};
  std::sort(candidates.begin(), candidates.end());

  std::vector<std::vector<std::uint32_t>> neighbours(local.size());
  for (const Triangle& t : triangles) {
    for (int i = 0; i < 3; ++i) {
      neighbours[t.v[i]].push_back(t.v[(i + 1) % 3]);
    }
  }
  std::vector<std::uint8_t> blocked(local.size(), 0);
  std::vector<std::uint32_t> removed;
  for (const auto& [height, v] : candidates) {
    if (blocked[v]) continue;
    removed.push_back(v);
    blocked[v] = 1;
    for (const std::uint32_t w : neighbours[v]) {
      blocked[w] = 1;
    }
  }
  return removed;
}

}  // namespace

HullData build_convex_hull(std::span<const Vec3> points) {
  if (points.size() < 4) {
    throw InvalidArgument("convex hull: needs at least 4 points, got " +
                          std::to_string(points.size()));
  }
  if (points.size() > k_max_hull_points) {
    throw InvalidArgument("convex hull: at most " + std::to_string(k_max_hull_points) +
                          " points are allowed, got " + std::to_string(points.size()));
  }
  Vec3d lower = Vec3d::Constant(std::numeric_limits<double>::infinity());
  Vec3d upper = -lower;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!is_finite(points[i])) {
      throw InvalidArgument("convex hull: point " + std::to_string(i) +
                            " has a non-finite coordinate");
    }
    lower = lower.cwiseMin(to_double(points[i]));
    upper = upper.cwiseMax(to_double(points[i]));
  }
  const double half_size = 0.5 * (upper - lower).maxCoeff();
  if (half_size == 0) {
    throw InvalidArgument("convex hull: the points span no volume (they all coincide)");
  }

  const Vec3d center = 0.5 * (lower + upper);
  const double scale = std::ldexp(1.0, k_grid_bits) / half_size;
  const double tolerance = k_tolerance_steps / scale;
  const auto count = static_cast<std::uint32_t>(points.size());
  std::vector<Vec3d> local(count);
  std::vector<Int3> grid(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    local[i] = to_double(points[i]) - center;
    for (int axis = 0; axis < 3; ++axis) {
      grid[i][axis] = std::llround(local[i][axis] * scale);
    }
  }

  // Build, drop the corners that are noise, and build again from the rest until none is left.
  std::vector<std::uint32_t> active(count);
  std::iota(active.begin(), active.end(), 0);
  std::vector<std::vector<std::uint32_t>> polygons;
  for (;;) {
    const Simplex simplex = initial_simplex(grid, active, k_tolerance_steps);
    if (simplex.flat) {
      // After the first round this would take dropping corners that flatten the cloud, which
      // lie within tolerance of the rest; should it happen, the last hull stands.
      if (polygons.empty()) {
        throw InvalidArgument(std::string("convex hull: the points span no volume (they are ") +
                              simplex.flat + ")");
      }
      break;
    }
    const std::vector<Triangle> triangles = Quickhull(grid).build(simplex.corners, active);
    polygons = merge_coplanar(triangles, local, tolerance);
    const std::vector<std::uint32_t> removed =
        redundant_corners(polygons, triangles, local, tolerance);
    if (removed.empty()) break;
    std::vector<std::uint8_t> keep(count, 0);
    for (const Triangle& t : triangles) {
      for (const std::uint32_t v : t.v) {
        keep[v] = 1;
      }
    }
    for (const std::uint32_t v : removed) {
      keep[v] = 0;
    }
    active.clear();
    for (std::uint32_t i = 0; i < count; ++i) {
      if (keep[i]) active.push_back(i);
    }
  }

  std::vector<std::uint32_t> renumber(count, k_none);
  for (const auto& polygon : polygons) {
    for (const std::uint32_t v : polygon) {
      renumber[v] = 0;
    }
  }
  HullData hull;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (renumber[i] == k_none) continue;
    renumber[i] = static_cast<std::uint32_t>(hull.vertices.size());
    hull.vertices.push_back(points[i]);
    hull.interior += points[i];
  }
  hull.interior /= Real(hull.vertices.size());

  // Each undirected edge is met twice, once in each direction: faces[0] is the face where it
  // runs from the smaller vertex index to the larger (PolyEdge's orientation).
  struct HalfEdge {
    std::array<std::uint32_t, 2> vertices;  // smaller index first
    std::uint32_t face;
    bool forward;  // whether the face runs it from vertices[0] to vertices[1]
  };
  std::vector<HalfEdge> half_edges;
  for (const auto& polygon : polygons) {
    const Vec3d normal = polygon_normal(polygon, local);
    Vec3d centroid = Vec3d::Zero();
    const auto face = static_cast<std::uint32_t>(hull.faces.size());
    PolyFace poly;
    poly.first = static_cast<std::uint32_t>(hull.face_vertices.size());
    poly.count = static_cast<std::uint32_t>(polygon.size());
    for (const std::uint32_t v : polygon) {
      centroid += local[v];
      hull.face_vertices.push_back(renumber[v]);
    }
    centroid = centroid / static_cast<double>(polygon.size()) + center;
    poly.normal = to_real(normal);
    poly.offset = Real(normal.dot(centroid));
    hull.faces.push_back(poly);

    for (std::size_t i = 0; i < polygon.size(); ++i) {
      const std::uint32_t a = renumber[polygon[i]];
      const std::uint32_t b = renumber[polygon[(i + 1) % polygon.size()]];
      half_edges.push_back({{std::min(a, b), std::max(a, b)}, face, a < b});
    }
  }
  // The hull is a closed two-manifold: sorted, the halves of one edge come in adjacent pairs.
  std::sort(half_edges.begin(), half_edges.end(),
            [](const HalfEdge& x, const HalfEdge& y) { return x.vertices < y.vertices; });
  for (std::size_t i = 0; i + 1 < half_edges.size(); i += 2) {
    PolyEdge edge{half_edges[i].vertices, {}};
    for (const HalfEdge& h : {half_edges[i], half_edges[i + 1]}) {
      edge.faces[h.forward ? 0 : 1] = h.face;
    }
    hull.edges.push_back(edge);
  }
  hull.thin = is_thin(hull.view());
  return hull;
}

}  // namespace impulse
