// Spheres and capsules against polyhedra: the closest features of the sphere centre or the
// capsule segment and the polyhedron, and the axis of least overlap when they intersect. The
// conventions and the capsule's two-point face contact are those of primitives.cpp's sphere-box
// and capsule-box, for any polyhedron, flat triangles included.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "collision/polyhedron.h"
#include "collision/polyhedron_features.h"
#include "collision/segment.h"

namespace impulse {
namespace {

// Below this squared distance (m^2) a centre or segment touches the surface: no direction.
constexpr Real k_degenerate_length_sq = Real(1e-12);
// A cross-product axis must overlap less than the best axis so far by this much (m): faces,
// tried first, keep ties.
constexpr Real k_axis_tolerance = Real(1e-3);
// A polyhedron vertex within this (m) of the support plane is on it (float noise on the dot
// products of metre-sized shapes is about 1e-7 m).
constexpr Real k_support_slack = Real(1e-5);
// A face is the contact face of a capsule when its normal is within about 18 degrees of the
// contact normal (as for capsule-box), and the segment over it must be this long (m) to give
// points.
constexpr Real k_face_cosine = Real(0.95);
constexpr Real k_min_overlap = Real(1e-3);

// A point of the polyhedron's surface and the feature holding it: a face or vertex index, or an
// edge by its two vertices (its index is looked up only for the point reported).
struct SurfacePoint {
  Vec3 point;
  Real distance_sq = k_infinity;
  FeatureType type = FeatureType::none;
  std::uint32_t index = 0;
  std::uint32_t other = 0;  // an edge's second vertex
};

std::uint32_t feature_index(const PolyhedronView& p, const SurfacePoint& s) {
  return s.type == FeatureType::edge ? find_edge(p, s.index, s.other) : s.index;
}

// Height of x over the plane of face f.
Real height(const PolyhedronView& p, std::uint32_t f, const Vec3& x) {
  return dot(p.faces[f].normal, x) - p.faces[f].offset;
}

// Offers best the point of face f's polygon nearest to x, which lies h in front of its plane. The
// projection of x when it falls inside the polygon, else the nearest point of a side it falls
// beyond (for a convex polygon the nearest boundary point lies on such a side).
void nearest_on_face(const PolyhedronView& p, std::uint32_t f, const Vec3& x, Real h,
                     SurfacePoint& best) {
  const PolyFace& face = p.faces[f];
  const Vec3 y = x - h * face.normal;
  bool inside = true;
  for (std::uint32_t i = 0; i < face.count; ++i) {
    const std::uint32_t u = face_corner(p, face, i);
    const std::uint32_t w = face_corner(p, face, (i + 1) % face.count);
    const Vec3& pu = p.vertices[u];
    const Vec3 e = p.vertices[w] - pu;
    if (dot(cross(e, face.normal), y - pu) <= 0) continue;
    inside = false;
    const Real t = std::clamp(dot(y - pu, e) / length_squared(e), Real(0), Real(1));
    const Vec3 q = pu + t * e;
    const Real d2 = length_squared(x - q);
    if (d2 >= best.distance_sq) continue;
    if (t <= 0 || t >= 1) {
      best = {q, d2, FeatureType::vertex, t <= 0 ? u : w, 0};
    } else {
      best = {q, d2, FeatureType::edge, u, w};
    }
  }
  if (inside && h * h < best.distance_sq) best = {y, h * h, FeatureType::face, f, 0};
}

// The point of p's surface nearest to x, searched on the faces x is not behind (the nearest point
// lies on one of them); none, at infinite distance, when x is behind every face (inside).
SurfacePoint nearest_on_surface(const PolyhedronView& p, const Vec3& x) {
  SurfacePoint best;
  for (std::uint32_t f = 0; f < p.faces.size(); ++f) {
    const Real h = height(p, f, x);
    if (h >= 0) nearest_on_face(p, f, x, h, best);
  }
  return best;
}

// The capsule feature at parameter u in [0, 1] along its segment: the ends are vertices 0 and 1,
// the inside edge 0.
void segment_feature(Real u, FeatureType& type, std::uint32_t& index) {
  type = u <= 0 || u >= 1 ? FeatureType::vertex : FeatureType::edge;
  index = u >= 1 ? 1 : 0;
}

// Whether the segment (p0, p0 + d) passes through one of p's face polygons.
bool crosses_a_face(const PolyhedronView& p, const Vec3& p0, const Vec3& d) {
  for (std::uint32_t f = 0; f < p.faces.size(); ++f) {
    const Real h0 = height(p, f, p0);
    const Real h1 = height(p, f, p0 + d);
    if ((h0 < 0) == (h1 < 0)) continue;
    if (over_face(p, p.faces[f], p0 + d * (h0 / (h0 - h1)))) return true;
  }
  return false;
}

// For a segment (p0, p0 + d) that intersects p: the axis of least overlap among p's face normals
// and the crosses of the segment with p's edges (the face normals of their Minkowski sum), turned
// from the segment towards p, with its separation (< 0) and, for a face, the segment end
// reaching deepest along it. A cross axis counts only for an edge on p's support plane, which then
// names the contact; otherwise a parallel edge that is on it gives the same axis.
struct LeastOverlap {
  Vec3 normal;
  Real separation = -k_infinity;
  std::uint32_t end = 0;
  FeatureType type = FeatureType::face;
  std::uint32_t index = 0;
};

LeastOverlap least_overlap(const PolyhedronView& p, const Vec3& p0, const Vec3& d) {
  LeastOverlap best;
  for (std::uint32_t f = 0; f < p.faces.size(); ++f) {
    const Real h0 = height(p, f, p0);
    const Real h1 = height(p, f, p0 + d);
    const Real sep = std::min(h0, h1);
    if (sep > best.separation) {
      best = {-p.faces[f].normal, sep, h0 <= h1 ? 0u : 1u, FeatureType::face, f};
    }
  }
  for (std::uint32_t e = 0; e < p.edges.size(); ++e) {
    const Vec3& v0 = p.vertices[p.edges[e].vertices[0]];
    const Vec3 de = p.vertices[p.edges[e].vertices[1]] - v0;
    const Vec3 axis = cross(d, de);
    const Real len_sq = length_squared(axis);
    if (len_sq <= k_degenerate_length_sq * length_squared(de)) continue;
    for (const Real sign : {Real(1), Real(-1)}) {
      const Vec3 n = axis * (sign / std::sqrt(len_sq));
      const Real p_min = dot(n, p.vertices[p.support_index(-n)]);
      if (dot(n, v0) > p_min + k_support_slack) continue;
      const Real sep = p_min - std::max(dot(n, p0), dot(n, p0 + d));
      if (sep > best.separation + k_axis_tolerance) best = {n, sep, 0, FeatureType::edge, e};
    }
  }
  return best;
}

// The segment (p0, d in p's frame) clipped to face f's sides, each end within the margin
// projected onto the face: up to two points along the face normal.
bool segment_over_face(const Capsule& a, const PolyhedronView& p, const Transform& tp,
                       std::uint32_t f, const Vec3& p0, const Vec3& d, Real margin, Manifold& out) {
  const PolyFace& face = p.faces[f];
  const Real len = length(d);
  if (len == 0) return false;
  Real lo = 0, hi = 1;
  std::uint32_t lo_side = face.count, hi_side = face.count;  // the side clipping each end, if any
  for (std::uint32_t i = 0; i < face.count; ++i) {
    const Vec3& pu = p.vertices[face_corner(p, face, i)];
    const Vec3& pw = p.vertices[face_corner(p, face, (i + 1) % face.count)];
    const Vec3 side = cross(pw - pu, face.normal);  // outward
    const Real start = dot(side, p0 - pu);          // inside while start + rate t <= 0
    const Real rate = dot(side, d);
    if (rate == 0) {
      if (start > 0) hi = -1;  // beside the face, never over it
      continue;
    }
    const Real t = -start / rate;
    if (rate > 0 && t < hi) {
      hi = t;
      hi_side = i;
    } else if (rate < 0 && t > lo) {
      lo = t;
      lo_side = i;
    }
  }
  if ((hi - lo) * len < k_min_overlap) return false;

  out.normal = rotate(tp.orientation, -face.normal);
  out.normal_face = NormalFace::b;
  for (std::uint32_t end = 0; end < 2; ++end) {
    const Vec3 x = p0 + d * (end == 0 ? lo : hi);
    const Real h = dot(face.normal, x) - face.offset;
    if (a.radius - h < -margin) continue;
    // An unclipped end is a capsule vertex over the face; a clipped one lies over a face edge.
    const std::uint32_t side = end == 0 ? lo_side : hi_side;
    FeatureId id = make_id(FeatureType::vertex, end, FeatureType::face, f);
    if (side < face.count) {
      id = make_id(
          FeatureType::edge, 0, FeatureType::edge,
          find_edge(p, face_corner(p, face, side), face_corner(p, face, (side + 1) % face.count)));
    }
    out.add({apply(tp, x - h * face.normal), a.radius - h, id});
  }
  return out.count > 0;
}

// The points of segment_over_face for the face of p facing the segment (normal n from the segment
// to p, p's frame), if one does: whichever way the segment lies, an end the margin reaches gets a
// point, so the far end of a capsule that strikes tilted is caught before it swings in.
bool segment_on_face(const Capsule& a, const PolyhedronView& p, const Transform& tp, const Vec3& p0,
                     const Vec3& d, const Vec3& n, Real margin, Manifold& out) {
  std::uint32_t f = 0;
  Real facing = -k_infinity;
  for (std::uint32_t g = 0; g < p.faces.size(); ++g) {
    const Real c = -dot(p.faces[g].normal, n);
    if (c > facing) {
      facing = c;
      f = g;
    }
  }
  return facing >= k_face_cosine && segment_over_face(a, p, tp, f, p0, d, margin, out);
}

}  // namespace

bool collide_sphere_polyhedron(const Sphere& a, const Transform& ta, const PolyhedronView& b,
                               const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const Vec3 c = apply_inverse(tb, ta.position);  // in b's frame
  Real least = -k_infinity;                       // the centre's greatest height over a face
  std::uint32_t least_face = 0;
  for (std::uint32_t f = 0; f < b.faces.size(); ++f) {
    const Real h = height(b, f, c);
    if (h > a.radius + margin) return false;  // that face's plane separates them
    if (h > least) {
      least = h;
      least_face = f;
    }
  }

  const SurfacePoint s = nearest_on_surface(b, c);
  if (s.type != FeatureType::none && s.distance_sq > k_degenerate_length_sq) {
    const Real dist = std::sqrt(s.distance_sq);
    const Real depth = a.radius - dist;
    if (depth < -margin) return false;
    out.normal = rotate(tb.orientation, (s.point - c) / dist);
    if (s.type == FeatureType::face) out.normal_face = NormalFace::b;
    out.add(
        {apply(tb, s.point), depth, make_id(FeatureType::vertex, 0, s.type, feature_index(b, s))});
    return true;
  }

  // The centre inside (or on the surface): leave through the face of least penetration; b then
  // moves away from a, against that face's outward normal.
  const PolyFace& face = b.faces[least_face];
  out.normal = rotate(tb.orientation, -face.normal);
  out.normal_face = NormalFace::b;
  out.add({apply(tb, c - least * face.normal), a.radius - least,
           make_id(FeatureType::vertex, 0, FeatureType::face, least_face)});
  return true;
}

bool collide_capsule_polyhedron(const Capsule& a, const Transform& ta, const PolyhedronView& b,
                                const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const Vec3 p0 = apply_inverse(tb, apply(ta, {0, -a.half_height, 0}));  // in b's frame
  const Vec3 d = apply_inverse(tb, apply(ta, {0, a.half_height, 0})) - p0;
  for (std::uint32_t f = 0; f < b.faces.size(); ++f) {
    if (std::min(height(b, f, p0), height(b, f, p0 + d)) > a.radius + margin) return false;
  }

  // Apart, the nearest pair is an end and the surface or the segment and an edge (a segment
  // parallel to a face is nearest to it also at an end or over an edge).
  SurfacePoint s = nearest_on_surface(b, p0);
  Real u = 0;
  const SurfacePoint s1 = nearest_on_surface(b, p0 + d);
  const bool end_inside = s.type == FeatureType::none || s1.type == FeatureType::none;
  if (s1.distance_sq < s.distance_sq) {
    s = s1;
    u = 1;
  }
  for (const PolyEdge& edge : b.edges) {
    const Vec3& v0 = b.vertices[edge.vertices[0]];
    const Vec3 de = b.vertices[edge.vertices[1]] - v0;
    Real ue, te;
    closest_segment_parameters(p0, d, v0, de, ue, te);
    const Vec3 q = v0 + te * de;
    const Real d2 = length_squared(q - (p0 + ue * d));
    if (d2 >= s.distance_sq) continue;
    u = ue;
    if (te <= 0 || te >= 1) {
      s = {q, d2, FeatureType::vertex, edge.vertices[te <= 0 ? 0 : 1], 0};
    } else {
      s = {q, d2, FeatureType::edge, edge.vertices[0], edge.vertices[1]};
    }
  }

  if (!end_inside && s.distance_sq > k_degenerate_length_sq && !crosses_a_face(b, p0, d)) {
    const Real dist = std::sqrt(s.distance_sq);
    const Real depth = a.radius - dist;
    if (depth < -margin) return false;
    const Vec3 x = p0 + u * d;
    const Vec3 n = (s.point - x) / dist;  // b's frame, from a to b
    if (segment_on_face(a, b, tb, p0, d, n, margin, out)) return true;
    FeatureType type_a;
    std::uint32_t index_a;
    segment_feature(u, type_a, index_a);
    out.normal = rotate(tb.orientation, n);
    // (segment_on_face may have named the face and then found both ends past the margin.)
    out.normal_face = s.type == FeatureType::face ? NormalFace::b : NormalFace::none;
    out.add({apply(tb, s.point), depth, make_id(type_a, index_a, s.type, feature_index(b, s))});
    return true;
  }

  // The segment intersects b: push it out along the axis of least overlap, from the end reaching
  // deepest along it.
  const LeastOverlap axis = least_overlap(b, p0, d);
  if (segment_on_face(a, b, tb, p0, d, axis.normal, margin, out)) return true;
  // The point: on the face nearest the deepest end, or, for a cross axis (perpendicular to the
  // segment, whose ends are then equally deep), on the edge nearest the segment's inside.
  Vec3 on_b;
  FeatureId id = make_id(FeatureType::vertex, axis.end, FeatureType::face, axis.index);
  if (axis.type == FeatureType::face) {
    const Vec3 end = p0 + d * Real(axis.end);
    SurfacePoint nearest;
    nearest_on_face(b, axis.index, end, height(b, axis.index, end), nearest);
    on_b = nearest.point;
  } else {
    const PolyEdge& edge = b.edges[axis.index];
    const Vec3& v0 = b.vertices[edge.vertices[0]];
    const Vec3 de = b.vertices[edge.vertices[1]] - v0;
    Real ue, te;
    closest_segment_parameters(p0, d, v0, de, ue, te);
    on_b = v0 + te * de;
    id = make_id(FeatureType::edge, 0, FeatureType::edge, axis.index);
  }
  out.normal = rotate(tb.orientation, axis.normal);
  out.normal_face = axis.type == FeatureType::face ? NormalFace::b : NormalFace::none;
  out.add({apply(tb, on_b), a.radius - axis.separation, id});
  return true;
}

bool collide_capsule_face(const Capsule& a, const Transform& ta, const PolyhedronView& b,
                          const Transform& tb, std::uint32_t face, Real margin, Manifold& out) {
  out.count = 0;
  const Vec3 p0 = apply_inverse(tb, apply(ta, {0, -a.half_height, 0}));  // in b's frame
  const Vec3 d = apply_inverse(tb, apply(ta, {0, a.half_height, 0})) - p0;
  return segment_over_face(a, b, tb, face, p0, d, margin, out);
}

}  // namespace impulse
