#include "collision/primitives.h"

#include "collision/segment.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace impulse {
namespace {

// Below this squared length a direction is too short to normalise reliably (m^2).
constexpr Real k_degenerate_length_sq = Real(1e-12);
// Capsules' cores and a box's face must overlap by this much (m) to give two points, not one.
constexpr Real k_min_overlap = Real(1e-3);
// A capsule's end lies along another when its offset from the other's core is within this sine of
// the normal (about 27 degrees: its own normal there, and a push along the manifold's, that far
// apart). At 0.2 and 0.3, capsules landing across each other at a slant in the built-in pile swung
// ends in past the cut; at 0.6 and more the pile's landing gained energy from pushes turned aside.
constexpr Real k_line_sine = Real(0.45);
// A cross-product axis must overlap less than a face axis by this much (m) to be chosen.
constexpr Real k_axis_tolerance = Real(1e-3);
// A box face is the contact face of a capsule when its normal is within about 18 degrees of the
// contact normal.
constexpr Real k_face_cosine = Real(0.95);

FeatureId make_id(FeatureType type_a, int index_a, FeatureType type_b, int index_b) {
  return {std::uint8_t(type_a), std::uint32_t(index_a), std::uint8_t(type_b),
          std::uint32_t(index_b)};
}

// The box edge along axis k through the vertices with the given bits on the other two axes.
int edge_index(int k, int vertex) {
  return 4 * k + ((vertex >> ((k + 1) % 3)) & 1) + 2 * ((vertex >> ((k + 2) % 3)) & 1);
}

// The box feature holding closest, the clamp of an outside point x to the box: one clamped axis
// names a face, two an edge, three a vertex (box_box.h numbering). Fills id's b half.
FeatureId with_box_feature(FeatureId id, const Vec3& x, const Vec3& closest) {
  int clamped = 0, free_axis = 0, clamped_axis = 0, vertex = 0;
  for (int k = 0; k < 3; ++k) {
    if (x[k] != closest[k]) {
      ++clamped;
      clamped_axis = k;
    } else {
      free_axis = k;
    }
    if (closest[k] > 0) vertex |= 1 << k;
  }
  if (clamped == 1) {
    id.type_b = std::uint8_t(FeatureType::face);
    id.index_b = std::uint32_t(2 * clamped_axis + (closest[clamped_axis] > 0 ? 0 : 1));
  } else if (clamped == 2) {
    id.type_b = std::uint8_t(FeatureType::edge);
    id.index_b = std::uint32_t(edge_index(free_axis, vertex));
  } else {
    id.type_b = std::uint8_t(FeatureType::vertex);
    id.index_b = std::uint32_t(vertex);
  }
  return id;
}

// The capsule feature nearest to parameter u in [0, 1] along its segment.
void segment_feature(Real u, FeatureType& type, int& index) {
  if (u <= Real(0)) {
    type = FeatureType::vertex;
    index = 0;
  } else if (u >= Real(1)) {
    type = FeatureType::vertex;
    index = 1;
  } else {
    type = FeatureType::edge;
    index = 0;
  }
}

struct Segment {
  Vec3 p;  // the -y end (vertex 0)
  Vec3 d;  // from the -y end to the +y end (vertex 1)
};

Segment world_segment(const Capsule& c, const Transform& t) {
  const Vec3 p = apply(t, {0, -c.half_height, 0});
  const Vec3 q = apply(t, {0, c.half_height, 0});
  return {p, q - p};
}

Real clamp01(Real x) {
  return std::clamp(x, Real(0), Real(1));
}

// Parameter of the point of segment s closest to x.
Real closest_parameter(const Segment& s, const Vec3& x) {
  const Real len_sq = length_squared(s.d);
  return len_sq > k_degenerate_length_sq ? clamp01(dot(x - s.p, s.d) / len_sq) : Real(0);
}

// delta / |delta|, or fallback when delta is too short to give a direction (coincident centres
// or axes) so that no NaN escapes.
Vec3 direction_or(const Vec3& delta, const Vec3& fallback) {
  const Real len_sq = length_squared(delta);
  return len_sq > k_degenerate_length_sq ? delta / std::sqrt(len_sq) : fallback;
}

// Beside the closest points of two capsules' cores, the ends of their overlap: the core more
// nearly across the normal is the reference, the other is clipped to its extent, and each clipped
// end whose offset from the reference core lies within k_line_sine of the normal and whose gap
// the margin reaches is a point. So a capsule striking another at a slant gets its far end as a
// speculative point before its turn about the strike swings that end in, and one lying along
// another gets two. The gap is the normal's ray from the end to the reference's rounded surface
// (what the row along the normal closes), exact beside a lying core. u_a, u_b: the closest points'
// parameters; the closest point is out's first, and an end at it or with its features is it.
void add_overlap_ends(const Capsule& a, const Segment& sa, Real u_a, const Capsule& b,
                      const Segment& sb, Real u_b, const Vec3& n, Real margin, Manifold& out) {
  const Real len_a = length(sa.d), len_b = length(sb.d);
  const bool b_incident = std::abs(dot(sa.d, n)) * len_b <= std::abs(dot(sb.d, n)) * len_a;
  const Segment& ref = b_incident ? sa : sb;
  const Segment& inc = b_incident ? sb : sa;
  const Real ref_len = b_incident ? len_a : len_b;
  const Real inc_len = b_incident ? len_b : len_a;
  const Real inc_closest = b_incident ? u_b : u_a;
  if (std::min(ref_len, inc_len) <= k_min_overlap) return;          // a ball: its one point
  const Real t0 = dot(inc.p - ref.p, ref.d) / (ref_len * ref_len);  // inc's ends along ref
  const Real t1 = dot(inc.p + inc.d - ref.p, ref.d) / (ref_len * ref_len);
  const Real lo = std::max(Real(0), std::min(t0, t1)), hi = std::min(Real(1), std::max(t0, t1));
  if ((hi - lo) * ref_len < k_min_overlap) return;  // across the reference, or past its end
  const Real radii = a.radius + b.radius;
  for (int end = 0; end < 2; ++end) {
    const bool low = end == 0;
    const Real t = low ? lo : hi;
    const bool clipped = low ? std::min(t0, t1) < 0 : std::max(t0, t1) > 1;
    const Real u = clamp01((t - t0) / (t1 - t0));
    if (std::abs(u - inc_closest) * inc_len < k_min_overlap) continue;
    const Vec3 e = inc.p + inc.d * u;
    const Vec3 offset = e - (ref.p + ref.d * clamp01(t));  // from the reference core
    const Real along = dot(offset, n);
    const Real across_sq = std::max(Real(0), length_squared(offset) - along * along);
    if (across_sq > k_line_sine * k_line_sine * radii * radii) continue;
    const Real depth = std::sqrt(radii * radii - across_sq) - (b_incident ? along : -along);
    if (depth < -margin) continue;
    // An unclipped end is the incident capsule's vertex over the reference's segment; a clipped
    // one lies on the incident segment over the reference's vertex there.
    const FeatureType inc_type = clipped ? FeatureType::edge : FeatureType::vertex;
    const int inc_index = clipped ? 0 : int(u > Real(0.5));
    const FeatureType ref_type = clipped ? FeatureType::vertex : FeatureType::edge;
    const int ref_index = clipped ? int(t > Real(0.5)) : 0;
    const FeatureId id = b_incident ? make_id(ref_type, ref_index, inc_type, inc_index)
                                    : make_id(inc_type, inc_index, ref_type, ref_index);
    if (id == out.points[0].id) continue;  // the closest point's features: that point too
    out.add({b_incident ? e - n * b.radius : e + n * (a.radius - depth), depth, id});
  }
}

// Squared distance from x to the box of half extents h.
Real box_distance_sq(const Vec3& h, const Vec3& x) {
  return length_squared(x - min(max(x, -h), h));
}

// The parameter of segment s (in the box frame) closest to the box. Along the segment each axis's
// excess over the box's slab, max(0, |p_i + d_i t| - h_i), changes form only where the segment
// crosses a slab plane, so between those crossings the squared distance is one quadratic: its
// least value on each piece is exact, and the least of the pieces is the answer (the distance is
// convex along a line: the pieces' minima fall to it and rise after). The ends are preferred on
// ties so that end contacts keep their vertex ids.
Real closest_parameter_to_box(const Vec3& h, const Segment& s) {
  std::array<Real, 8> knots{};  // 0, the crossings inside (0, 1), 1
  std::size_t count = 0;
  knots[count++] = 0;
  for (int i = 0; i < 3; ++i) {
    if (s.d[i] == 0) continue;
    for (const Real plane : {-h[i], h[i]}) {
      const Real t = (plane - s.p[i]) / s.d[i];
      if (t > 0 && t < 1) knots[count++] = t;
    }
  }
  knots[count++] = 1;
  for (std::size_t i = 2; i + 1 < count; ++i) {  // the crossings in order (insertion)
    const Real t = knots[i];
    std::size_t j = i;
    for (; j > 1 && knots[j - 1] > t; --j)
      knots[j] = knots[j - 1];
    knots[j] = t;
  }
  Real u = 0;
  Real best = box_distance_sq(h, s.p);
  for (std::size_t k = 0; k + 1 < count; ++k) {
    const Real lo = knots[k], hi = knots[k + 1];
    if (!(hi > lo)) continue;
    // On this piece: sum over the axes outside their slab of (q_i + d_i t)^2, q_i = p_i -+ h_i.
    const Vec3 inside = s.p + s.d * (Real(0.5) * (lo + hi));
    Real a = 0, b = 0;
    for (int i = 0; i < 3; ++i) {
      const Real q = inside[i] > h[i] ? s.p[i] - h[i] : inside[i] < -h[i] ? s.p[i] + h[i] : 0;
      if (q == 0 && std::abs(inside[i]) <= h[i]) continue;
      a += s.d[i] * s.d[i];
      b += s.d[i] * q;
    }
    const Real t = a > 0 ? std::clamp(-b / a, lo, hi) : lo;
    const Real d = box_distance_sq(h, s.p + s.d * t);
    if (d < best) {
      best = d;
      u = t;
    }
  }
  for (const Real end : {Real(0), Real(1)}) {
    const Real d = box_distance_sq(h, s.p + s.d * end);
    if (d <= best) {
      best = d;
      u = end;
    }
  }
  return u;
}

// For a segment s crossing the box (box frame): the axis of least overlap among the box faces and
// the crosses of the segment with them, turned to point from the segment to the box centre.
// index is 0..2 for a face axis, 3 + k for the cross with box axis k.
Vec3 least_overlap_axis(const Vec3& h, const Segment& s, Real& overlap, int& index) {
  const Vec3 mid = s.p + Real(0.5) * s.d;
  Vec3 best_axis = Vec3::unit_x();
  overlap = k_infinity;
  index = 0;
  for (int i = 0; i < 6; ++i) {
    Vec3 e = Vec3::zero();
    e[i % 3] = 1;
    const Vec3 axis = i < 3 ? e : direction_or(cross(s.d, e), Vec3::zero());
    if (length_squared(axis) == Real(0)) continue;
    const Real box_radius = dot(h, abs(axis));
    const Real o = box_radius + Real(0.5) * std::abs(dot(s.d, axis)) - std::abs(dot(mid, axis));
    // Face axes come first and a cross axis must beat them clearly, so ties keep a face.
    if (o < overlap - (i < 3 ? Real(0) : k_axis_tolerance)) {
      overlap = o;
      index = i;
      best_axis = dot(mid, axis) > 0 ? -axis : axis;
    }
  }
  return best_axis;
}

}  // namespace

bool collide_sphere_sphere(const Sphere& a, const Transform& ta, const Sphere& b,
                           const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const Vec3 delta = tb.position - ta.position;
  const Real depth = a.radius + b.radius - length(delta);
  if (depth < -margin) return false;
  // Coincident centres: any axis separates them equally well; a fixed one keeps it stable.
  const Vec3 n = direction_or(delta, Vec3::unit_y());
  out.normal = n;
  out.add(
      {tb.position - n * b.radius, depth, make_id(FeatureType::vertex, 0, FeatureType::vertex, 0)});
  return true;
}

bool collide_sphere_capsule(const Sphere& a, const Transform& ta, const Capsule& b,
                            const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const Segment sb = world_segment(b, tb);
  const Real u = closest_parameter(sb, ta.position);
  const Vec3 closest = sb.p + sb.d * u;
  const Vec3 delta = closest - ta.position;
  const Real depth = a.radius + b.radius - length(delta);
  if (depth < -margin) return false;
  // Centre on the segment: the capsule's local x is perpendicular to it, so the point stays on
  // b's surface.
  const Vec3 n = direction_or(delta, rotate(tb.orientation, Vec3::unit_x()));
  FeatureType type_b;
  int index_b;
  segment_feature(u, type_b, index_b);
  out.normal = n;
  out.add({closest - n * b.radius, depth, make_id(FeatureType::vertex, 0, type_b, index_b)});
  return true;
}

bool collide_capsule_capsule(const Capsule& a, const Transform& ta, const Capsule& b,
                             const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const Segment sa = world_segment(a, ta);
  const Segment sb = world_segment(b, tb);
  Real ua, ub;
  closest_segment_parameters(sa.p, sa.d, sb.p, sb.d, ua, ub);
  const Vec3 ca = sa.p + sa.d * ua;
  const Vec3 cb = sb.p + sb.d * ub;
  const Vec3 delta = cb - ca;
  const Real depth = a.radius + b.radius - length(delta);
  if (depth < -margin) return false;

  // Intersecting segments: their common perpendicular, turned towards b; coaxial ones: a's
  // local x, perpendicular to both.
  const Vec3 c = cross(sa.d, sb.d);
  Vec3 fallback = direction_or(c, rotate(ta.orientation, Vec3::unit_x()));
  if (dot(fallback, tb.position - ta.position) < 0) fallback = -fallback;

  const Vec3 n = direction_or(delta, fallback);
  FeatureType type_a, type_b;
  int index_a, index_b;
  segment_feature(ua, type_a, index_a);
  segment_feature(ub, type_b, index_b);
  out.normal = n;
  out.add({cb - n * b.radius, depth, make_id(type_a, index_a, type_b, index_b)});
  add_overlap_ends(a, sa, ua, b, sb, ub, n, margin, out);
  return true;
}

bool collide_sphere_box(const Sphere& a, const Transform& ta, const Box& b, const Transform& tb,
                        Real margin, Manifold& out) {
  out.count = 0;
  const Vec3& h = b.half_extents;
  const Vec3 centre = apply_inverse(tb, ta.position);  // in b's frame
  const Vec3 closest = min(max(centre, -h), h);
  const Vec3 delta = closest - centre;
  const Real dist_sq = length_squared(delta);

  if (dist_sq > Real(0)) {
    const Real dist = std::sqrt(dist_sq);
    const Real depth = a.radius - dist;
    if (depth < -margin) return false;
    const FeatureId id =
        with_box_feature(make_id(FeatureType::vertex, 0, FeatureType::none, 0), centre, closest);
    out.normal = rotate(tb.orientation, delta / dist);
    if (id.type_b == std::uint8_t(FeatureType::face)) out.normal_face = NormalFace::b;
    out.add({apply(tb, closest), depth, id});
    return true;
  }

  // Centre inside the box: leave through the nearest face; b then moves away from a, against
  // that face's outward normal.
  int axis = 0;
  Real least = h.x - std::abs(centre.x);
  for (int k = 1; k < 3; ++k) {
    const Real gap = h[k] - std::abs(centre[k]);
    if (gap < least) {
      least = gap;
      axis = k;
    }
  }
  const bool positive = centre[axis] >= 0;
  Vec3 outward = Vec3::zero();
  outward[axis] = positive ? Real(1) : Real(-1);
  Vec3 on_face = centre;
  on_face[axis] = positive ? h[axis] : -h[axis];
  out.normal = rotate(tb.orientation, -outward);
  out.normal_face = NormalFace::b;
  out.add({apply(tb, on_face), a.radius + least,
           make_id(FeatureType::vertex, 0, FeatureType::face, 2 * axis + (positive ? 0 : 1))});
  return true;
}

bool collide_capsule_box(const Capsule& a, const Transform& ta, const Box& b, const Transform& tb,
                         Real margin, Manifold& out) {
  out.count = 0;
  const Vec3& h = b.half_extents;
  const Vec3 p0 = apply_inverse(tb, apply(ta, {0, -a.half_height, 0}));
  const Vec3 p1 = apply_inverse(tb, apply(ta, {0, a.half_height, 0}));
  const Segment s{p0, p1 - p0};  // in b's frame

  const Real u = closest_parameter_to_box(h, s);
  const Vec3 x = s.p + s.d * u;
  const Vec3 closest = min(max(x, -h), h);
  const Real dist = length(closest - x);
  Vec3 n;  // in b's frame, from a to b
  Real depth;
  Vec3 on_b;
  FeatureId id;
  if (dist > Real(0)) {
    depth = a.radius - dist;
    if (depth < -margin) return false;
    n = (closest - x) / dist;
    on_b = closest;
    FeatureType type_a;
    int index_a;
    segment_feature(u, type_a, index_a);
    id = with_box_feature(make_id(type_a, index_a, FeatureType::none, 0), x, closest);
  } else {
    // The segment crosses the box: push it out along the axis of least overlap, from the end
    // reaching deepest along it.
    Real overlap;
    int axis;
    n = least_overlap_axis(h, s, overlap, axis);
    depth = overlap + a.radius;
    const bool far_end = dot(s.d, n) > 0;
    on_b = (far_end ? p1 : p0) - n * overlap;
    // b's feature is the face or the edge extreme along -n.
    if (axis < 3) {
      id = make_id(FeatureType::vertex, far_end ? 1 : 0, FeatureType::face,
                   2 * axis + (n[axis] > 0 ? 1 : 0));
    } else {
      int vertex = 0;
      for (int m = 0; m < 3; ++m) {
        if (n[m] < 0) vertex |= 1 << m;
      }
      id = make_id(FeatureType::vertex, far_end ? 1 : 0, FeatureType::edge,
                   edge_index(axis - 3, vertex));
    }
  }

  // The box face facing a: the segment clipped to it, each end the margin reaches a point, so
  // that the far end of a capsule striking tilted is caught before its turn swings it in.
  int k = 0;
  for (int i = 1; i < 3; ++i) {
    if (std::abs(n[i]) > std::abs(n[k])) k = i;
  }
  const Real seg_len = length(s.d);
  if (std::abs(n[k]) >= k_face_cosine && seg_len > Real(0)) {
    const Real sign = n[k] > 0 ? Real(-1) : Real(1);  // of the face's outward normal
    const int face = 2 * k + (sign > 0 ? 0 : 1);
    Real lo = 0, hi = 1;
    int lo_side = -1, hi_side = -1;  // the side plane (2 axis + positive) a clipped end lies on
    for (int j = 0; j < 3; ++j) {
      if (j == k) continue;
      if (std::abs(s.d[j]) <= k_degenerate_length_sq) {
        if (std::abs(s.p[j]) > h[j]) hi = -1;  // beside the face, never over it
        continue;
      }
      const Real t_minus = (-h[j] - s.p[j]) / s.d[j];
      const Real t_plus = (h[j] - s.p[j]) / s.d[j];
      const bool plus_first = t_plus < t_minus;
      if (std::min(t_minus, t_plus) > lo) {
        lo = std::min(t_minus, t_plus);
        lo_side = 2 * j + int(plus_first);
      }
      if (std::max(t_minus, t_plus) < hi) {
        hi = std::max(t_minus, t_plus);
        hi_side = 2 * j + int(!plus_first);
      }
    }
    if ((hi - lo) * seg_len >= k_min_overlap) {
      Vec3 outward = Vec3::zero();
      outward[k] = sign;
      out.normal = rotate(tb.orientation, -outward);
      out.normal_face = NormalFace::b;
      for (int end = 0; end < 2; ++end) {
        const Real t = end == 0 ? lo : hi;
        const int side = end == 0 ? lo_side : hi_side;
        const Vec3 xe = s.p + s.d * t;
        Vec3 on_face = min(max(xe, -h), h);
        on_face[k] = sign * h[k];
        const Real depth_e = a.radius - (sign * xe[k] - h[k]);
        if (depth_e < -margin) continue;
        // An unclipped end is a capsule vertex over the face; a clipped one lies over the face
        // edge on that side plane.
        FeatureId ide = make_id(FeatureType::vertex, end, FeatureType::face, face);
        if (side >= 0) {
          const int j = side / 2;
          const int vertex = int(sign > 0) << k | (side & 1) << j;
          ide = make_id(FeatureType::edge, 0, FeatureType::edge, edge_index(3 - j - k, vertex));
        }
        out.add({apply(tb, on_face), depth_e, ide});
      }
      if (out.count > 0) return true;
    }
  }

  out.normal = rotate(tb.orientation, n);
  // (The clip above may have named the face and then found both ends past the margin.)
  out.normal_face = id.type_b == std::uint8_t(FeatureType::face) ? NormalFace::b : NormalFace::none;
  out.add({apply(tb, on_b), depth, id});
  return true;
}

}  // namespace impulse
