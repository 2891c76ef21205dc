// The nearest features of two polyhedra that are apart: the speculative point of a pair within
// the margin whose face clip found nothing (the incident face wholly beside the reference face,
// the pair's nearest features an edge or corner off the face). The nearest points of two convex
// polyhedra are a vertex over a face or two edges' closest points (a vertex against an edge or a
// vertex is an edge's end), so trying those pairs finds them exactly; Box2D v3's polygon
// collider takes the reference and incident edges' closest points in the same case.

#include "collision/polyhedron.h"
#include "collision/polyhedron_features.h"
#include "collision/segment.h"

namespace impulse {
namespace {

// An edge pair replaces a vertex over a face only if nearer by this fraction of the squared
// distance. A vertex over a face just inside its edge is as near to that edge in float, but the
// line to the edge is off the face's normal, the true line, by up to sqrt(epsilon).
constexpr Real k_face_preference = Real(1e-5);

struct Nearest {
  Real distance_sq = k_infinity;
  Vec3 on_a;  // in a's frame
  Vec3 on_b;  // in a's frame
  FeatureId id;
  Vec3 line;  // from on_a towards on_b, any length: the normal
};

// The face of p nearest point x (p's frame) that x lies over and outside of, if nearer than
// `best_sq`: its index and x's height above it.
bool nearest_face_below(const PolyhedronView& p, const Vec3& x, Real best_sq, std::uint32_t& face,
                        Real& height) {
  bool found = false;
  for (std::uint32_t f = 0; f < p.faces.size(); ++f) {
    const PolyFace& pf = p.faces[f];
    const Real h = dot(pf.normal, x) - pf.offset;
    if (h <= 0 || h * h >= best_sq || !over_face(p, pf, x)) continue;
    best_sq = h * h;
    face = f;
    height = h;
    found = true;
  }
  return found;
}

}  // namespace

bool closest_feature_contact(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                             const Transform& tb, const Vec3& axis, Real margin, Manifold& out) {
  out.count = 0;
  const Transform b_in_a_pose = inverse(ta) * tb;
  const Transform a_in_b_pose = inverse(b_in_a_pose);
  // The separating axis bounds where the nearest points can lie: within the margin of a's
  // extent along it (a's side) and of b's. Features wholly outside those slabs are skipped.
  const Vec3 n = inverse_rotate(ta.orientation, axis);  // a's frame
  const Vec3 n_b = inverse_rotate(tb.orientation, axis);
  const Real a_top = dot(n, a.support(n));
  const Real b_offset = dot(n, b_in_a_pose.position);
  const Real b_bottom = dot(n_b, b.support(-n_b)) + b_offset;
  const Real slack = margin - (b_bottom - a_top);
  if (b_bottom <= a_top || slack < 0) return false;
  const Real a_low = a_top - slack;
  const Real b_high = b_bottom + slack;
  const auto near_a = [&](std::uint32_t v) { return dot(n, a.vertices[v]) >= a_low; };
  const auto near_b = [&](std::uint32_t v) { return dot(n_b, b.vertices[v]) + b_offset <= b_high; };

  Nearest best;
  best.distance_sq = margin * margin;
  std::uint32_t face = 0;
  Real height = 0;
  for (std::uint32_t v = 0; v < b.vertices.size(); ++v) {
    if (!near_b(v)) continue;
    const Vec3 x = apply(b_in_a_pose, b.vertices[v]);
    if (!nearest_face_below(a, x, best.distance_sq, face, height)) continue;
    best = {height * height, x - height * a.faces[face].normal, x,
            make_id(FeatureType::face, face, FeatureType::vertex, v), a.faces[face].normal};
  }
  for (std::uint32_t v = 0; v < a.vertices.size(); ++v) {
    if (!near_a(v)) continue;
    const Vec3 x = apply(a_in_b_pose, a.vertices[v]);
    if (!nearest_face_below(b, x, best.distance_sq, face, height)) continue;
    best = {height * height, a.vertices[v], apply(b_in_a_pose, x - height * b.faces[face].normal),
            make_id(FeatureType::vertex, v, FeatureType::face, face),
            -rotate(b_in_a_pose.orientation, b.faces[face].normal)};
  }
  for (std::uint32_t j = 0; j < b.edges.size(); ++j) {
    const PolyEdge& eb = b.edges[j];
    if (!near_b(eb.vertices[0]) && !near_b(eb.vertices[1])) continue;
    const Vec3 qb = apply(b_in_a_pose, b.vertices[eb.vertices[0]]);
    const Vec3 db = apply(b_in_a_pose, b.vertices[eb.vertices[1]]) - qb;
    for (std::uint32_t i = 0; i < a.edges.size(); ++i) {
      const PolyEdge& ea = a.edges[i];
      if (!near_a(ea.vertices[0]) && !near_a(ea.vertices[1])) continue;
      const Vec3& pa = a.vertices[ea.vertices[0]];
      const Vec3 da = a.vertices[ea.vertices[1]] - pa;
      Real s = 0, t = 0;
      closest_segment_parameters(pa, da, qb, db, s, t);
      const Vec3 on_a = pa + s * da, on_b = qb + t * db;
      const Vec3 line = on_b - on_a;
      const Real d_sq = length_squared(line);
      const bool edges_so_far = best.id.type_a == std::uint8_t(FeatureType::edge);
      if (d_sq >= best.distance_sq * (edges_so_far ? 1 : 1 - k_face_preference)) continue;
      best = {d_sq, on_a, on_b, make_id(FeatureType::edge, i, FeatureType::edge, j), line};
    }
  }
  if (!(best.distance_sq < margin * margin)) return false;
  const Real line_length = length(best.line);
  if (!(line_length > 0)) return false;
  const Vec3 normal = best.line / line_length;
  const Real distance = dot(normal, best.on_b - best.on_a);
  out.normal = rotate(ta.orientation, normal);
  out.normal_face = NormalFace::none;
  out.add({apply(ta, best.on_b), -distance, best.id});
  return true;
}

}  // namespace impulse
