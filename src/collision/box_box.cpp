#include "collision/box_box.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

#include "collision/manifold_reduction.h"
#include "collision/polyhedron.h"
#include "collision/segment.h"
#include "core/lanes.h"

// Conventions: the normal points from a to b; depth is the overlap along it (> 0 overlapping);
// a point's position lies on b's surface: the clipped incident vertex when a owns the reference
// face, its projection onto the reference face when b does, and the closest point on b's edge
// for an edge-edge contact.

namespace impulse {
namespace {

// A later axis must beat the best so far by this much to be chosen (the tolerance of Box2D's
// and qu3e's box colliders): faces win over edges and a's faces over b's when depths nearly tie,
// so the manifold and its ids do not flicker between features.
constexpr Real k_relative_tolerance = Real(0.05);
constexpr Real k_absolute_tolerance = Real(0.001);  // m
// Edges closer to parallel than this sine have no usable cross-product axis; a face axis
// separates them as well.
constexpr Real k_parallel_sine = Real(1e-3);
// A quad clipped by four planes gains at most one vertex per plane while it stays convex; a pass
// stops writing at this many (clip_against_side) where rounding made a sliver wiggle across a
// plane.
constexpr int k_max_clip_points = 8;

bool beats(Real candidate, Real best) {
  return candidate > best + k_relative_tolerance * std::abs(best) + k_absolute_tolerance;
}

constexpr int bit(int vertex, int axis) {
  return (vertex >> axis) & 1;
}

Vec3 vertex_position(const Vec3& h, int vertex) {
  return {bit(vertex, 0) ? h.x : -h.x, bit(vertex, 1) ? h.y : -h.y, bit(vertex, 2) ? h.z : -h.z};
}

constexpr std::uint8_t face_index(int axis, bool positive) {
  return std::uint8_t(2 * axis + (positive ? 0 : 1));
}

// The edge joining two vertices that differ along one axis.
constexpr std::uint8_t edge_index(int v0, int v1) {
  const int diff = v0 ^ v1;
  const int axis = diff == 1 ? 0 : (diff == 2 ? 1 : 2);
  return std::uint8_t(4 * axis + bit(v0, (axis + 1) % 3) + 2 * bit(v0, (axis + 2) % 3));
}

FeatureId make_id(FeatureType type_a, int index_a, FeatureType type_b, int index_b) {
  return {std::uint8_t(type_a), std::uint32_t(index_a), std::uint8_t(type_b),
          std::uint32_t(index_b)};
}

// The reference face of seed 001 figure 4 in its box's frame, with its four side planes
// side_sign[s] * x[side_axis[s]] <= h[side_axis[s]] and the face edge lying in each.
struct ReferenceFace {
  int axis = 0;
  int base_vertex = 0;  // the face's bit along axis
  int side_axis[4] = {};
  bool side_positive[4] = {};
  std::uint8_t side_edge[4] = {};

  // The face corner where two side planes of different axes meet.
  std::uint8_t corner(int s0, int s1) const {
    return std::uint8_t(base_vertex | int(side_positive[s0]) << side_axis[s0] |
                        int(side_positive[s1]) << side_axis[s1]);
  }
};

// Reference face face_index(axis, positive) with its four side planes and edges: the six faces'
// are found at compile time.
constexpr ReferenceFace reference_face(int axis, bool positive) {
  ReferenceFace ref;
  ref.axis = axis;
  ref.base_vertex = int(positive) << axis;
  for (int s = 0; s < 4; ++s) {
    const int side_axis = (axis + 1 + s / 2) % 3;
    const int along = (axis + 2 - s / 2) % 3;  // the other tangent axis: the side edge's direction
    const bool side_positive = s % 2 == 0;
    const int v0 = ref.base_vertex | int(side_positive) << side_axis;
    ref.side_axis[s] = side_axis;
    ref.side_positive[s] = side_positive;
    ref.side_edge[s] = edge_index(v0, v0 | 1 << along);
  }
  return ref;
}
constexpr ReferenceFace k_reference_faces[6] = {reference_face(0, true), reference_face(0, false),
                                                reference_face(1, true), reference_face(1, false),
                                                reference_face(2, true), reference_face(2, false)};

// A vertex of the incident polygon while it is clipped, in the reference box frame. Its id has
// the reference box as "a" and the incident box as "b" until the contact is reported. The edge
// to the next vertex lies either on an incident box edge or on a reference side plane.
struct ClipVertex {
  Vec3 p;
  FeatureId id;
  bool edge_on_side = false;
  std::uint8_t edge = 0;  // side plane 0..3 when edge_on_side, else incident edge index
};

// One Sutherland-Hodgman pass. A point made by crossing an incident edge is named by that edge
// and the side edge (seed 001 section 8.2); one made by crossing an earlier side plane is the
// reference face corner, named by it and the incident face. Writes the clipped polygon to out and
// its vertex count to n; or, where every vertex is inside the plane already (a box on a larger
// face), returns false and leaves both alone: the pass would copy the polygon as it is.
bool clip_against_side(const ClipVertex* in, int& n, const ReferenceFace& ref, const Vec3& h,
                       int side, std::uint8_t incident_face, ClipVertex* out) {
  const int axis = ref.side_axis[side];
  const Real sign = ref.side_positive[side] ? Real(1) : Real(-1);
  // Each vertex's distance outside the plane, once (each is p once and q once).
  Real d[k_max_clip_points];
  bool inside = true;
  for (int k = 0; k < n; ++k) {
    d[k] = sign * in[k].p[axis] - h[axis];
    inside = inside && d[k] <= 0;
  }
  if (inside) return false;
  int m = 0;
  for (int k = 0; k < n; ++k) {
    const int next = k + 1 < n ? k + 1 : 0;
    const ClipVertex& p = in[k];
    const ClipVertex& q = in[next];
    const Real dp = d[k], dq = d[next];
    // Bounded: convexity keeps a pass to n + 1 vertices, but the crossings' rounding could bend a
    // sliver across the next plane more than twice (never seen in 120 million fuzzed pairs). A
    // truncated polygon still closes inside the plane; only a later crossing of its closing edge
    // may carry a stale feature id (a warm start lost, no more).
    if (dp <= 0 && m < k_max_clip_points) out[m++] = p;
    if ((dp <= 0) == (dq <= 0) || m == k_max_clip_points) continue;
    // Written in place: a crossing built aside was copied whole, read back across its narrower
    // stores (a failed store forward: a fifth of a clipped face's samples in a pile).
    ClipVertex& x = out[m++];
    x.p = p.p + (dp / (dp - dq)) * (q.p - p.p);
    x.id = p.edge_on_side
               ? make_id(FeatureType::vertex, ref.corner(p.edge, side), FeatureType::face,
                         incident_face)
               : make_id(FeatureType::edge, ref.side_edge[side], FeatureType::edge, p.edge);
    // Leaving, the polygon goes on along this side plane; entering, along p's edge.
    x.edge_on_side = dp <= 0 ? true : p.edge_on_side;
    x.edge = dp <= 0 ? std::uint8_t(side) : p.edge;
  }
  n = m;
  return true;
}

// Face contact: reference face `axis`/`positive` of box ref (its outward normal towards the
// other box), the most anti-parallel face of box inc clipped against its side planes, the
// points within margin of the reference plane kept. With `along`, the gaps are measured along
// that edge axis rather than the face's normal. Returns the number of points written.
int face_contact(const Box& ref_box, const Transform& tref, int axis, bool positive,
                 const Box& inc_box, const Transform& tinc, bool ref_is_a, Real margin,
                 ContactPoint* points, const EdgeAxis* along = nullptr) {
  const Vec3& h = ref_box.half_extents;
  const Real ref_sign = positive ? Real(1) : Real(-1);
  Vec3 ref_local_normal;
  ref_local_normal[axis] = ref_sign;
  const Vec3 m = rotate(tref.orientation, ref_local_normal);

  const Mat33 r_inc = to_matrix(tinc.orientation);
  int inc_axis = 0;
  Real inc_dot = dot(r_inc.c0, m);
  for (int k = 1; k < 3; ++k) {
    const Real dk = dot(r_inc.col(k), m);
    if (std::abs(dk) > std::abs(inc_dot)) {
      inc_axis = k;
      inc_dot = dk;
    }
  }
  const bool inc_positive = inc_dot < 0;
  const std::uint8_t inc_face = face_index(inc_axis, inc_positive);

  const ReferenceFace& ref = k_reference_faces[face_index(axis, positive)];

  // The incident face as a loop of its four corners, in the reference frame.
  const Transform rel = inverse(tref) * tinc;
  const int u = (inc_axis + 1) % 3;
  const int v = (inc_axis + 2) % 3;
  constexpr int k_loop[4][2] = {{1, 1}, {0, 1}, {0, 0}, {1, 0}};
  int loop_vertex[4];
  for (int c = 0; c < 4; ++c) {
    loop_vertex[c] = int(inc_positive) << inc_axis | k_loop[c][0] << u | k_loop[c][1] << v;
  }
  ClipVertex buffer0[k_max_clip_points];
  ClipVertex buffer1[k_max_clip_points];
  for (int c = 0; c < 4; ++c) {
    ClipVertex& cv = buffer0[c];
    cv.p = apply(rel, vertex_position(inc_box.half_extents, loop_vertex[c]));
    cv.id =
        make_id(FeatureType::face, face_index(axis, positive), FeatureType::vertex, loop_vertex[c]);
    cv.edge_on_side = false;
    cv.edge = edge_index(loop_vertex[c], loop_vertex[(c + 1) % 4]);
  }
  int n = 4;
  ClipVertex* polygon = buffer0;
  ClipVertex* spare = buffer1;
  for (int side = 0; side < 4; ++side) {
    if (clip_against_side(polygon, n, ref, h, side, inc_face, spare)) std::swap(polygon, spare);
  }

  int count = 0;
  for (int k = 0; k < n; ++k) {
    const ClipVertex& cv = polygon[k];
    Real separation = ref_sign * cv.p[axis] - h[axis];
    if (along != nullptr) separation = along->gap(separation);
    if (separation > margin) continue;
    Vec3 local = cv.p;
    if (!ref_is_a) local[axis] = ref_sign * h[axis];  // onto b's reference face
    const FeatureId& id = cv.id;
    points[count++] = {apply(tref, local), -separation, ref_is_a ? id : id.flipped()};
  }
  return count;
}

// Edge-edge contact: a's edge along axis i farthest along n and b's edge along axis j farthest
// against it; the point is the closest point of b's edge to a's (segment.h).
ContactPoint edge_contact(const Box& a, const Transform& ta, const Mat33& ra, int i, const Box& b,
                          const Transform& tb, const Mat33& rb, int j, const Vec3& n, Real depth) {
  int va = 0;
  int vb = 0;
  for (int k = 0; k < 3; ++k) {
    if (k != i && dot(ra.col(k), n) > 0) va |= 1 << k;
    if (k != j && dot(rb.col(k), n) < 0) vb |= 1 << k;
  }
  const Vec3 p0 = apply(ta, vertex_position(a.half_extents, va));
  const Vec3 q0 = apply(tb, vertex_position(b.half_extents, vb));
  const Vec3 d1 = apply(ta, vertex_position(a.half_extents, va | 1 << i)) - p0;
  const Vec3 d2 = apply(tb, vertex_position(b.half_extents, vb | 1 << j)) - q0;
  Real s = 0, t = 0;
  closest_segment_parameters(p0, d1, q0, d2, s, t);
  return {q0 + t * d2, depth,
          make_id(FeatureType::edge, edge_index(va, va | 1 << i), FeatureType::edge,
                  edge_index(vb, vb | 1 << j))};
}

// Two boxes' axes against each other, in lanes, each lane computed as the scalar formula computes
// it (the same bits): c[i][j] = a_i . b_j as rows (lane j) and columns (lane i), |c| likewise (the
// radii of one box's projection on the other's axes); t: the centres' offset in a's frame (lane
// i), u: in b's (lane j). A pile's neighbours meet these every step, most of them apart.
struct BoxPairFrame {
  BoxPairFrame(const Box& a, const Transform& ta, const Box& b, const Transform& tb)
      : ra(to_matrix(ta.orientation)),
        rb(to_matrix(tb.orientation)),
        ha{a.half_extents.x, a.half_extents.y, a.half_extents.z, 0},
        hb{b.half_extents.x, b.half_extents.y, b.half_extents.z, 0} {
    const Vec3 d = tb.position - ta.position;
    const Lanes ax{ra.c0.x, ra.c1.x, ra.c2.x, 0}, ay{ra.c0.y, ra.c1.y, ra.c2.y, 0},
        az{ra.c0.z, ra.c1.z, ra.c2.z, 0};
    const Lanes bx{rb.c0.x, rb.c1.x, rb.c2.x, 0}, by{rb.c0.y, rb.c1.y, rb.c2.y, 0},
        bz{rb.c0.z, rb.c1.z, rb.c2.z, 0};
    for (int k = 0; k < 3; ++k) {
      c[k] = splat(ax[k]) * bx + splat(ay[k]) * by + splat(az[k]) * bz;
      abs_c[k] = lane_abs(c[k]);
      abs_c_column[k] = lane_abs(ax * splat(bx[k]) + ay * splat(by[k]) + az * splat(bz[k]));
    }
    t = splat(d.x) * ax + splat(d.y) * ay + splat(d.z) * az;
    u = splat(d.x) * bx + splat(d.y) * by + splat(d.z) * bz;
  }
  // The separations along a's face axes (lane i) and b's (lane j): the gaps of the projections
  // (Gottschalk's OBB tree test).
  Lanes faces_a() const {
    return lane_abs(t) - (ha + (abs_c_column[0] * splat(hb[0]) + abs_c_column[1] * splat(hb[1]) +
                                abs_c_column[2] * splat(hb[2])));
  }
  Lanes faces_b() const {
    return lane_abs(u) -
           (hb + (abs_c[0] * splat(ha[0]) + abs_c[1] * splat(ha[1]) + abs_c[2] * splat(ha[2])));
  }

  Mat33 ra, rb;
  Lanes ha, hb;
  Lanes c[3], abs_c[3], abs_c_column[3];
  Lanes t, u;
};

}  // namespace

bool collide_box_box(const Box& a, const Transform& ta, const Box& b, const Transform& tb,
                     Real margin, Manifold& out, Real* face_gap) {
  out.count = 0;
  const BoxPairFrame frame(a, ta, b, tb);
  const Mat33& ra = frame.ra;
  const Mat33& rb = frame.rb;
  const Lanes(&c)[3] = frame.c;
  const Lanes(&abs_c)[3] = frame.abs_c;
  const Lanes &t = frame.t, &u = frame.u, &ha = frame.ha, &hb = frame.hb;
  // Whether a lane of the first three separates by more than the margin: then no contact.
  const auto apart = [&](const Lanes& sep) { return (lane_bits(sep > splat(margin)) & 7u) != 0; };
  // The largest separation of the first three lanes where `usable` (bit k for lane k), the first
  // of equals, and its lane; -infinity and 0 if none.
  const auto largest = [](const Lanes& sep, unsigned usable, int& lane) {
    Real best = -k_infinity;
    lane = 0;
    for (int k = 0; k < 3; ++k) {
      if ((usable >> k & 1u) != 0 && sep[k] > best) {
        best = sep[k];
        lane = k;
      }
    }
    return best;
  };

  // Separating axis test: the face axes, then the edge axes.
  const Lanes sep_faces_a = frame.faces_a(), sep_faces_b = frame.faces_b();
  if (face_gap != nullptr) {
    const Lanes gaps = lane_max(sep_faces_a, sep_faces_b);
    *face_gap = std::max({gaps[0], gaps[1], gaps[2]});
  }
  if (apart(sep_faces_a)) return false;
  int axis_a = 0;
  const Real sep_a = largest(sep_faces_a, 7u, axis_a);
  const bool dir_a = sep_a > -k_infinity ? t[axis_a] >= 0 : true;  // whether the normal is +a_i
  if (apart(sep_faces_b)) return false;
  int axis_b = 0;
  const Real sep_b = largest(sep_faces_b, 7u, axis_b);
  const bool dir_b = sep_b > -k_infinity ? u[axis_b] >= 0 : true;  // whether the normal is +b_j
  // The edge axes a_i x b_j in a's frame, where they have two components (-c[i2][j], c[i1][j]):
  // the distance and both radii are a few products of c and t, and only the axis that wins is
  // turned into a unit normal in the world. b's radius uses b_m . (a_i x b_j) = a_i . (b_j x b_m),
  // which is +-c[i][.] of b's third axis (and 0 for m = j). Lane j for each i; hb_j1 and hb_j2
  // are hb[(j + 1) % 3] and hb[(j + 2) % 3] in lane j.
  const Lanes hb_j1 = __builtin_shufflevector(hb, hb, 1, 2, 0, 3);
  const Lanes hb_j2 = __builtin_shufflevector(hb, hb, 2, 0, 1, 3);
  Real sep_e = -k_infinity;
  int edge_i = 0;
  int edge_j = 0;
  bool dir_e = true;  // whether the normal is +(a_i x b_j)
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    const Lanes len_squared = c[i1] * c[i1] + c[i2] * c[i2];  // |a_i x b_j|^2
    // Edges closer to parallel than k_parallel_sine give no axis (not a NaN's lane).
    const unsigned usable = ~lane_bits(len_squared < splat(k_parallel_sine * k_parallel_sine)) & 7u;
    const Lanes dist = splat(t[i2]) * c[i1] - splat(t[i1]) * c[i2];
    const Lanes radius_a = splat(ha[i1]) * abs_c[i2] + splat(ha[i2]) * abs_c[i1];
    const Lanes abs_c_j1 = __builtin_shufflevector(abs_c[i], abs_c[i], 1, 2, 0, 3);
    const Lanes abs_c_j2 = __builtin_shufflevector(abs_c[i], abs_c[i], 2, 0, 1, 3);
    const Lanes radius_b = hb_j1 * abs_c_j2 + hb_j2 * abs_c_j1;
    const Lanes sep = (lane_abs(dist) - radius_a - radius_b) / lane_sqrt(len_squared);
    if ((lane_bits(sep > splat(margin)) & usable) != 0) return false;
    int j = 0;
    const Real best = largest(sep, usable, j);
    if (best > sep_e) {
      sep_e = best;
      edge_i = i;
      edge_j = j;
      dir_e = dist[j] >= 0;
    }
  }

  const bool use_b = beats(sep_b, sep_a);
  const Real sep_face = use_b ? sep_b : sep_a;
  ContactPoint candidates[k_max_clip_points];
  int count = 0;
  if (beats(sep_e, sep_face)) {
    const Vec3 axis = normalize(cross(ra.col(edge_i), rb.col(edge_j)));
    const Vec3 normal_e = dir_e ? axis : -axis;
    // One point on the edges would let a box turn about it and swing a face's corners into the
    // other box within a step (34 mm in a tumbling drum). The face most nearly across the axis
    // is clipped instead, its gaps measured along the axis, where any of them lies within the
    // margin (Jolt's manifold between two faces); else the edges' point.
    int face_a = 0, face_b = 0;
    for (int k = 1; k < 3; ++k) {
      if (std::abs(dot(ra.col(k), normal_e)) > std::abs(dot(ra.col(face_a), normal_e))) face_a = k;
      if (std::abs(dot(rb.col(k), normal_e)) > std::abs(dot(rb.col(face_b), normal_e))) face_b = k;
    }
    const Real cosine_a = dot(ra.col(face_a), normal_e), cosine_b = dot(rb.col(face_b), normal_e);
    if (std::abs(cosine_a) >= std::max(std::abs(cosine_b), EdgeAxis::k_min_cosine)) {
      const EdgeAxis along{normal_e, std::abs(cosine_a), -sep_e};
      count = face_contact(a, ta, face_a, cosine_a > 0, b, tb, true, margin, candidates, &along);
    } else if (std::abs(cosine_b) >= std::max(std::abs(cosine_a), EdgeAxis::k_min_cosine)) {
      const EdgeAxis along{normal_e, std::abs(cosine_b), -sep_e};
      count = face_contact(b, tb, face_b, cosine_b < 0, a, ta, false, margin, candidates, &along);
    }
    if (count == 0) {
      out.normal = normal_e;
      out.add(edge_contact(a, ta, ra, edge_i, b, tb, rb, edge_j, normal_e, -sep_e));
      return true;
    }
    reduce_manifold(std::span<const ContactPoint>(candidates, std::size_t(count)), normal_e, out);
    return true;
  }

  Vec3 normal;
  if (use_b) {
    normal = dir_b ? rb.col(axis_b) : -rb.col(axis_b);
    // b's reference face looks back at a, against the normal.
    count = face_contact(b, tb, axis_b, !dir_b, a, ta, false, margin, candidates);
  } else {
    normal = dir_a ? ra.col(axis_a) : -ra.col(axis_a);
    count = face_contact(a, ta, axis_a, dir_a, b, tb, true, margin, candidates);
  }
  reduce_manifold(std::span<const ContactPoint>(candidates, std::size_t(count)), normal, out);
  out.normal_face = use_b ? NormalFace::b : NormalFace::a;
  if (out.count == 0 && sep_face > 0) {
    const BoxPolyhedron pa(a), pb(b);
    closest_feature_contact(pa.view(), ta, pb.view(), tb, normal, margin, out);
  }
  return out.count > 0;
}

}  // namespace impulse
