// Polyhedron-polyhedron narrowphase: the separating axis test of Gregorius ("The Separating Axis
// Test between Convex Polyhedra", GDC 2013) over both polyhedra's face normals and the edge pairs
// that make a face of their Minkowski difference, then face clipping or one edge-edge point as in
// box_box.cpp, whose conventions and feature ids this follows.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>

#include "collision/manifold_reduction.h"
#include "collision/polyhedron.h"
#include "collision/polyhedron_features.h"
#include "collision/segment.h"

namespace impulse {
namespace {

// A later axis must beat the best so far by this much to be chosen (box_box.cpp's tolerance):
// faces win over edges and a's faces over b's when depths nearly tie, so that the manifold and
// its ids do not flicker between features, and boxes get the contacts collide_box_box gives.
constexpr Real k_relative_tolerance = Real(0.05);
constexpr Real k_absolute_tolerance = Real(0.001);  // m
// Edges closer to parallel than this sine have no usable cross-product axis; a face axis
// separates them as well.
constexpr Real k_parallel_sine = Real(1e-3);
// Faces of the incident polyhedron whose normals lie within about 5 degrees of the incident
// face's are the same surface (a noisy point cloud's nearly coplanar facets): their corners join
// the manifold's candidates (add_patch_corners).
constexpr Real k_patch_cosine = Real(0.9962);
// Of those corners, at most this many are looked at (and those within the margin reduced to four).
constexpr std::size_t k_max_patch_corners = 16;
// Clipping uses at most this many corners of a face (Outline), so that its buffers are fixed.
constexpr std::uint32_t k_max_outline = 32;
// A convex polygon clipped by one half-plane gains at most one corner: an outline clipped by
// another's sides has at most the sum of their corners.
constexpr int k_max_clip_points = 2 * int(k_max_outline);

bool beats(Real candidate, Real best) {
  return candidate > best + k_relative_tolerance * std::abs(best) + k_absolute_tolerance;
}

// A rigid motion as a matrix: the loops below move many points and normals between frames.
struct Motion {
  Mat33 r;
  Vec3 t;
  explicit Motion(const Transform& x) : r(to_matrix(x.orientation)), t(x.position) {}
  Vec3 point(const Vec3& p) const { return r * p + t; }
  Vec3 vector(const Vec3& v) const { return r * v; }
};

struct FaceQuery {
  Real separation = -k_infinity;
  std::uint32_t face = 0;
};

// The face of p that q, placed in p's frame by q_to_p, lies farthest beyond: q's support point
// along -n gives the separation of p's face plane from q. False as soon as a face separates them
// by more than margin.
bool query_faces(const PolyhedronView& p, const PolyhedronView& q, const Motion& q_to_p,
                 Real margin, FaceQuery& best) {
  for (std::uint32_t f = 0; f < p.faces.size(); ++f) {
    const PolyFace& face = p.faces[f];
    const Vec3 n = transpose_multiply(q_to_p.r, face.normal);  // in q's frame
    const Real sep =
        dot(n, q.vertices[q.support_index(-n)]) + dot(face.normal, q_to_p.t) - face.offset;
    if (sep > margin) return false;
    if (sep > best.separation) best = {sep, f};
  }
  return true;
}

struct EdgeQuery {
  Real separation = -k_infinity;
  std::uint32_t edge_a = 0;
  std::uint32_t edge_b = 0;
  Vec3 normal;  // unit, in a's frame, from a to b
};

// Only edge pairs whose arcs on the Gauss map cross make a face of the Minkowski difference, so
// only their cross products can be the axis of least separation (Gregorius 2013). An edge's arc
// runs from the normal of faces[0] to that of faces[1] on the great circle perpendicular to the
// edge; b's arcs are negated. Gregorius's test needs each arc's plane normal n1 x n0, which by
// PolyEdge's orientation is -(v1 - v0) times a positive factor. For a flat edge (a triangle's,
// faces opposite) n1 x n0 vanishes, but its arc is the half circle through the edge's outward
// direction o in the triangle's plane, whose plane normal o x n0 is again -(v1 - v0): with the
// edge vectors as plane normals the test below serves both.
bool query_edges(const PolyhedronView& a, const PolyhedronView& b, const Motion& b_to_a,
                 Real margin, EdgeQuery& best) {
  constexpr Real parallel_sq = k_parallel_sine * k_parallel_sine;
  for (std::uint32_t j = 0; j < b.edges.size(); ++j) {
    const PolyEdge& eb = b.edges[j];
    const Vec3 qb = b_to_a.point(b.vertices[eb.vertices[0]]);
    const Vec3 db = b_to_a.vector(b.vertices[eb.vertices[1]] - b.vertices[eb.vertices[0]]);
    const Vec3 nb0 = b_to_a.vector(b.faces[eb.faces[0]].normal);
    const Vec3 nb1 = b_to_a.vector(b.faces[eb.faces[1]].normal);
    const Real db_sq = length_squared(db);
    for (std::uint32_t i = 0; i < a.edges.size(); ++i) {
      const PolyEdge& ea = a.edges[i];
      const Vec3& pa = a.vertices[ea.vertices[0]];
      const Vec3 da = a.vertices[ea.vertices[1]] - pa;
      // b's arc crosses a's great circle, a's arc crosses b's, and on the same side (Gregorius's
      // CBA * DBA < 0, ADC * BDC < 0, CBA * BDC > 0, signs flipped with the plane normals).
      const Real cba = dot(nb0, da);
      const Real dba = dot(nb1, da);
      if (cba * dba >= 0) continue;
      const Real adc = dot(a.faces[ea.faces[0]].normal, db);
      const Real bdc = dot(a.faces[ea.faces[1]].normal, db);
      if (adc * bdc >= 0 || cba * bdc >= 0) continue;
      const Vec3 axis = cross(da, db);
      const Real len_sq = length_squared(axis);
      if (len_sq <= parallel_sq * length_squared(da) * db_sq) continue;
      // Where the arcs cross: a's outward normal, on the side of a's arc the test chose.
      const Vec3 n = axis * ((bdc > 0 ? Real(-1) : Real(1)) / std::sqrt(len_sq));
      const Real sep = dot(n, qb - pa);
      if (sep > margin) return false;
      if (sep > best.separation) best = {sep, i, j, n};
    }
  }
  return true;
}

// The corners of a face that clipping uses: all of them, or for a face of more than
// k_max_outline corners (possible on hulls of many points) k_max_outline of them spread evenly
// around it, whose polygon lies inside the face. Side i runs from corner i to corner i + 1 and is
// named by the face's edge leaving corner i.
struct Outline {
  const PolyhedronView* poly;
  const PolyFace* face;
  std::uint32_t count;
  std::array<std::uint32_t, k_max_outline> at;  // positions in the face's corner loop

  Outline(const PolyhedronView& p, const PolyFace& f)
      : poly(&p), face(&f), count(std::min(f.count, k_max_outline)) {
    for (std::uint32_t i = 0; i < count; ++i) {
      at[i] = i * f.count / count;
    }
  }
  std::uint32_t vertex(std::uint32_t i) const { return face_corner(*poly, *face, at[i]); }
  std::uint32_t side_edge(std::uint32_t i) const {
    return find_edge(*poly, vertex(i), face_corner(*poly, *face, (at[i] + 1) % face->count));
  }
};

// A corner of the incident polygon while it is clipped, in the reference frame. Its id has the
// reference polyhedron as "a"; a clipped corner's edge ids are still outline sides until the
// manifold is reduced. The edge to the next corner lies on an incident side or a reference side.
struct ClipVertex {
  Vec3 p;
  FeatureId id;
  bool edge_on_side = false;
  std::uint32_t edge = 0;  // reference side when edge_on_side, else incident side
};

// One Sutherland-Hodgman pass against reference side s (dot(normal, x) <= offset inside). A
// corner made by crossing an incident side is named by that side and side s (seed 001 section
// 8.2); one made by crossing an earlier reference side is the reference corner where the two
// sides meet, named by it and the incident face.
int clip_against_side(const ClipVertex* in, int n, const Outline& ref, std::uint32_t s,
                      const Vec3& normal, Real offset, std::uint32_t incident_face,
                      ClipVertex* out) {
  int m = 0;
  // Convexity bounds the output by n + 1; the guard only holds off float noise on slivers.
  const auto emit = [&](const ClipVertex& v) {
    if (m < k_max_clip_points) out[m++] = v;
  };
  for (int k = 0; k < n; ++k) {
    const ClipVertex& p = in[k];
    const ClipVertex& q = in[(k + 1) % n];
    const Real dp = dot(normal, p.p) - offset;
    const Real dq = dot(normal, q.p) - offset;
    if (dp <= 0) emit(p);
    if ((dp <= 0) == (dq <= 0)) continue;
    ClipVertex x;
    x.p = p.p + (dp / (dp - dq)) * (q.p - p.p);
    if (p.edge_on_side) {
      // Adjacent sides meet at a corner of the face; the lines of sides further apart meet
      // outside it, where a later side clips the point away, so any corner names it.
      const std::uint32_t corner = (p.edge + 1) % ref.count == s ? s : p.edge;
      x.id = make_id(FeatureType::vertex, ref.vertex(corner), FeatureType::face, incident_face);
    } else {
      x.id = make_id(FeatureType::edge, s, FeatureType::edge, p.edge);
    }
    // Leaving, the polygon goes on along side s; entering, along p's edge.
    x.edge_on_side = dp <= 0 || p.edge_on_side;
    x.edge = dp <= 0 ? s : p.edge;
    emit(x);
  }
  return m;
}

// The frame face_contact clips in: reference face rf (number ref_face) of ref, placed at tref;
// inc moved into ref's frame by to_ref; gaps within margin kept, measured along `along` if given.
struct FaceFrame {
  const PolyhedronView& ref;
  const Transform& tref;
  const PolyFace& rf;
  std::uint32_t ref_face;
  const PolyhedronView& inc;
  const Motion& to_ref;
  bool ref_is_a;
  Real margin;
  const EdgeAxis* along;

  // The reference face's normal, world frame.
  Vec3 normal() const { return rotate(tref.orientation, rf.normal); }
  // A world point in inc's frame.
  Vec3 to_inc_point(const Vec3& p) const {
    return transpose_multiply(to_ref.r, apply_inverse(tref, p) - to_ref.t);
  }
  // A world direction in inc's frame.
  Vec3 to_inc(const Vec3& d) const {
    return transpose_multiply(to_ref.r, inverse_rotate(tref.orientation, d));
  }
  // Point p of inc (its frame), world frame.
  Vec3 incident_corner_at(const Vec3& p) const { return apply(tref, to_ref.point(p)); }
  // Corner v of inc, world frame.
  Vec3 incident_corner(std::uint32_t v) const { return incident_corner_at(inc.vertices[v]); }
  // Point p of inc (ref's frame) as a candidate point named id, if it lies within the margin.
  bool candidate(const Vec3& p, const FeatureId& id, ContactPoint& c) const {
    const Real gap = dot(rf.normal, p) - rf.offset;
    const Real separation = along != nullptr ? along->gap(gap) : gap;
    if (!(separation <= margin)) return false;  // a non-finite pose's points too
    // a's point lies on b's face when b is the reference: projected there.
    c = {apply(tref, ref_is_a ? p : p - gap * rf.normal), -separation, id};
    return true;
  }
  // Corner v of inc as a candidate point, if it lies over the reference face within the margin.
  bool corner_candidate(std::uint32_t v, ContactPoint& c) const {
    const Vec3 p = to_ref.point(inc.vertices[v]);
    return candidate(p, make_id(FeatureType::face, ref_face, FeatureType::vertex, v), c) &&
           over_face(ref, rf, p);
  }
};

// The corners of the faces nearly coplanar with the incident face (k_patch_cosine) that lie over
// the reference face within the margin, reduced to at most four, added to the `count` candidates
// clipped from it; returns the new count. A plate's bottom made of a noisy point cloud is many
// facets tilted a degree or so apart, and the incident face one of them, often a strip along one
// edge: the other edge went unseen, and a plate 4 mm thick and 1.5 x 0.5 m turned down about the
// strip and through the floor within a few steps. The incident face's own corners are its clip's.
int add_patch_corners(const FaceFrame& f, std::uint32_t inc_face, ContactPoint* candidates,
                      int count) {
  const PolyFace& incident = f.inc.faces[inc_face];
  const auto on_incident = [&](std::uint32_t v) {
    for (std::uint32_t c = 0; c < incident.count; ++c) {
      if (face_corner(f.inc, incident, c) == v) return true;
    }
    return false;
  };
  std::array<std::uint32_t, k_max_patch_corners> seen;
  std::array<ContactPoint, k_max_patch_corners> patch;
  std::size_t looked = 0, corners = 0;
  for (std::uint32_t g = 0; g < f.inc.faces.size() && looked < seen.size(); ++g) {
    const PolyFace& face = f.inc.faces[g];
    if (g == inc_face || dot(face.normal, incident.normal) < k_patch_cosine) continue;
    for (std::uint32_t c = 0; c < face.count && looked < seen.size(); ++c) {
      const std::uint32_t v = face_corner(f.inc, face, c);
      if (on_incident(v) || std::find(seen.begin(), seen.begin() + looked, v) !=
                                seen.begin() + std::ptrdiff_t(looked)) {
        continue;
      }
      seen[looked++] = v;
      if (f.corner_candidate(v, patch[corners])) ++corners;
    }
  }
  if (corners == 0) return count;
  Manifold reduced;
  reduce_manifold(std::span<const ContactPoint>(patch.data(), corners), f.normal(), reduced);
  for (int k = 0; k < reduced.count; ++k)
    candidates[count++] = reduced.points[std::size_t(k)];
  return count;
}

// The line across the contact plane (normal n) through the two farthest apart of some points
// (point(i) for i < count): their length across the plane, and how far a point lies from it.
class Spine {
 public:
  template <class Point>
  Spine(const Vec3& n, std::size_t count, Point&& point) : n_(n) {
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        const Vec3 d = flat(point(i) - point(j));
        if (length_squared(d) > squared_length_) {
          squared_length_ = length_squared(d);
          from_ = point(j);
          along_ = d;
        }
      }
    }
    if (squared_length_ > 0) along_ = along_ / std::sqrt(squared_length_);
  }
  Real squared_length() const { return squared_length_; }
  // The squared distance of x from the line, across the normal.
  Real off(const Vec3& x) const { return length_squared(reject(flat(x - from_), along_)); }
  // Across the plane and the line, towards x's side of it.
  Vec3 across_towards(const Vec3& x) const {
    const Vec3 side = cross(n_, along_);
    return dot(side, x - from_) < 0 ? -side : side;
  }

 private:
  Vec3 flat(const Vec3& d) const { return reject(d, n_); }
  Vec3 n_;
  Vec3 from_, along_;
  Real squared_length_ = 0;
};

// Corners the incident face (inc_outline) leaves out, added to the `count` candidates clipped
// from it; returns the new count (at most three more). On a sliver hull (a needle's long thin
// faces) the face most anti-parallel to the reference may lie at one end or in the middle, away
// from the deepest corner and from the ends, which the step then let sink unseen: of 400 needles
// 2 m long and 1 mm thick dropped on a box, 123 fell through it. So corners over the reference
// face join them: the deepest, where it is deeper than they by more than the tolerance; then,
// within the margin, the ends: the support points both ways along the line from their centre to
// the corner farthest from it across the normal, each where it lies beyond them by more than they
// and the incident face reach that way (speculative points). A box's deepest corner is one of its
// face's, and its other corners lie within the face's reach unless it is much longer than wide.
int add_left_out_corners(const FaceFrame& f, const Outline& inc_outline, ContactPoint* candidates,
                         int count) {
  Real least_separation = f.margin;
  for (int k = 0; k < count; ++k)
    least_separation = std::min(least_separation, -candidates[k].depth);
  ContactPoint corner;
  if (f.corner_candidate(f.inc.support_index(f.to_inc(-f.normal())), corner) &&
      -corner.depth < least_separation - k_absolute_tolerance) {
    candidates[count++] = corner;
  }
  if (count == 0) return 0;
  Vec3 centre = Vec3::zero();
  for (int k = 0; k < count; ++k)
    centre += candidates[k].position / Real(count);
  // The corner farthest from their centre across the normal (in inc's frame: no transform a
  // corner).
  const Vec3 normal_in_inc = f.to_inc(f.normal());
  const Vec3 centre_in_inc = f.to_inc_point(centre);
  std::uint32_t far = 0;
  Real farthest = -1;
  for (std::uint32_t v = 0; v < f.inc.vertices.size(); ++v) {
    const Real off = length_squared(reject(f.inc.vertices[v] - centre_in_inc, normal_in_inc));
    if (off > farthest) {
      farthest = off;
      far = v;
    }
  }
  const Vec3 lengthwise = reject(f.incident_corner(far) - centre, f.normal());
  if (!(length_squared(lengthwise) > k_absolute_tolerance * k_absolute_tolerance)) return count;
  // How far the candidates and the incident face's corners reach along the line, either way.
  const Vec3 d = normalize(lengthwise);
  Real least = k_infinity, most = -k_infinity;
  const auto extend = [&](const Vec3& p) {
    least = std::min(least, dot(p - centre, d));
    most = std::max(most, dot(p - centre, d));
  };
  for (int k = 0; k < count; ++k)
    extend(candidates[k].position);
  for (std::uint32_t c = 0; c < inc_outline.count; ++c)
    extend(f.incident_corner(inc_outline.vertex(c)));
  const Real reach = most - least;
  for (const Real sign : {Real(1), Real(-1)}) {
    if (!f.corner_candidate(f.inc.support_index(f.to_inc(sign * d)), corner)) continue;
    const Real past = sign * dot(corner.position - centre, d) - (sign > 0 ? most : -least);
    if (past > reach) candidates[count++] = corner;
  }
  return count;
}

// Where the incident face is a sliver (no corner off the line through its farthest apart by a
// tenth of its length) and the manifold has room, the corner over the reference face within the
// margin farthest off the line through the manifold's points, on the side of the body's inside
// point, where that is more than twice as far as any of them or the face's corners and the
// tolerance: a thin plate's rim, tilted, can be the incident face, and its points then lie along
// one edge while the other edge falls (a plate 3 mm thick and 1.7 x 0.5 m, tilted 5 degrees, went
// through the floor within two steps).
void add_far_edge_corner(const FaceFrame& f, const Outline& inc_outline, Manifold& out) {
  if (out.count == 0 || out.count >= Manifold::k_max_points) return;
  std::array<Vec3, k_max_outline> face;
  const std::size_t corners = inc_outline.count;
  for (std::uint32_t c = 0; c < inc_outline.count; ++c)
    face[c] = f.incident_corner(inc_outline.vertex(c));
  const Spine face_spine(f.normal(), corners, [&](std::size_t i) { return face[i]; });
  Real face_width = 0;
  for (std::size_t i = 0; i < corners; ++i)
    face_width = std::max(face_width, face_spine.off(face[i]));
  if (!(face_width < Real(0.01) * face_spine.squared_length())) return;  // a tenth, squared
  const auto point = [&](std::size_t i) {
    return i < corners ? face[i] : out.points[i - corners].position;
  };
  const std::size_t held = corners + std::size_t(out.count);
  const Spine spine(f.normal(), held, point);
  Real width = k_absolute_tolerance * k_absolute_tolerance / 4;
  for (std::size_t i = 0; i < held; ++i)
    width = std::max(width, spine.off(point(i)));
  const Vec3 side = spine.across_towards(f.incident_corner_at(f.inc.interior));
  ContactPoint corner;
  if (f.corner_candidate(f.inc.support_index(f.to_inc(side)), corner) &&
      spine.off(corner.position) > 4 * width) {  // squared: twice as far
    out.add(corner);
  }
}

// Face contact: face ref_face of ref (its normal towards the other polyhedron) against the face
// of inc most anti-parallel to it, clipped to the reference face's sides; the points within
// margin of the reference plane kept, reduced and written to out. With `along`, the gaps are
// measured along that edge axis, which is the manifold's normal.
void face_contact(const PolyhedronView& ref, const Transform& tref, std::uint32_t ref_face,
                  const PolyhedronView& inc, const Transform& tinc, bool ref_is_a, Real margin,
                  Manifold& out, const EdgeAxis* along = nullptr) {
  const PolyFace& rf = ref.faces[ref_face];
  const Transform inc_to_ref = inverse(tref) * tinc;
  // The incident face: inc's most anti-parallel to the reference normal.
  const std::uint32_t inc_face = inc.face_along(-inverse_rotate(inc_to_ref.orientation, rf.normal));

  const Outline ref_outline(ref, rf);
  const Outline inc_outline(inc, inc.faces[inc_face]);
  const Motion to_ref(inc_to_ref);
  ClipVertex buffer0[k_max_clip_points];
  ClipVertex buffer1[k_max_clip_points];
  int n = int(inc_outline.count);
  for (std::uint32_t c = 0; c < inc_outline.count; ++c) {
    const std::uint32_t v = inc_outline.vertex(c);
    buffer0[c] = {to_ref.point(inc.vertices[v]),
                  make_id(FeatureType::face, ref_face, FeatureType::vertex, v), false, c};
  }
  ClipVertex* in = buffer0;
  ClipVertex* clipped = buffer1;
  for (std::uint32_t s = 0; s < ref_outline.count && n > 0; ++s) {
    const Vec3& p0 = ref.vertices[ref_outline.vertex(s)];
    const Vec3& p1 = ref.vertices[ref_outline.vertex((s + 1) % ref_outline.count)];
    const Vec3 side_normal = cross(p1 - p0, rf.normal);  // outward: the face is CCW from outside
    n = clip_against_side(in, n, ref_outline, s, side_normal, dot(side_normal, p0), inc_face,
                          clipped);
    std::swap(in, clipped);
  }

  // The clipped corners, the patch's (at most four) and three left out.
  const FaceFrame frame{ref, tref, rf, ref_face, inc, to_ref, ref_is_a, margin, along};
  ContactPoint candidates[k_max_clip_points + Manifold::k_max_points + 3];
  int count = 0;
  for (int k = 0; k < n; ++k) {
    if (frame.candidate(in[k].p, in[k].id, candidates[count])) ++count;
  }
  const Vec3 normal = frame.normal();
  // A thin polyhedron's incident face may be a sliver that leaves out where it touches.
  if (inc.thin) {
    count = add_patch_corners(frame, inc_face, candidates, count);
    count = add_left_out_corners(frame, inc_outline, candidates, count);
  }
  reduce_manifold(std::span<const ContactPoint>(candidates, std::size_t(count)),
                  along != nullptr ? along->normal : (ref_is_a ? normal : -normal), out);
  if (inc.thin) add_far_edge_corner(frame, inc_outline, out);
  out.normal_face =
      along != nullptr ? NormalFace::none : (ref_is_a ? NormalFace::a : NormalFace::b);
  for (int k = 0; k < out.count; ++k) {
    FeatureId& id = out.points[std::size_t(k)].id;
    if (id.type_a == std::uint8_t(FeatureType::edge)) {
      id.index_a = ref_outline.side_edge(id.index_a);
      id.index_b = inc_outline.side_edge(id.index_b);
    }
    if (!ref_is_a) id = id.flipped();
  }
}

// Edge-edge contact: one point, the closest point of b's edge to a's (clamped to the segments).
void edge_contact(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                  const Motion& b_to_a, const EdgeQuery& query, Manifold& out) {
  const PolyEdge& ea = a.edges[query.edge_a];
  const PolyEdge& eb = b.edges[query.edge_b];
  const Vec3& pa = a.vertices[ea.vertices[0]];
  const Vec3 da = a.vertices[ea.vertices[1]] - pa;
  const Vec3 qb = b_to_a.point(b.vertices[eb.vertices[0]]);
  const Vec3 db = b_to_a.point(b.vertices[eb.vertices[1]]) - qb;
  Real s, t;
  closest_segment_parameters(pa, da, qb, db, s, t);
  out.normal = rotate(ta.orientation, query.normal);
  out.add({apply(ta, qb + t * db), -query.separation,
           make_id(FeatureType::edge, query.edge_a, FeatureType::edge, query.edge_b)});
}

}  // namespace

bool collide_polyhedra(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                       const Transform& tb, Real margin, Manifold& out) {
  out.count = 0;
  const Transform b_in_a = inverse(ta) * tb;
  const Motion b_to_a(b_in_a);
  const Motion a_to_b(inverse(b_in_a));
  FaceQuery face_a, face_b;
  EdgeQuery edge;
  if (!query_faces(a, b, b_to_a, margin, face_a)) return false;
  if (!query_faces(b, a, a_to_b, margin, face_b)) return false;
  if (!query_edges(a, b, b_to_a, margin, edge)) return false;

  const bool use_b = beats(face_b.separation, face_a.separation);
  if (beats(edge.separation, use_b ? face_b.separation : face_a.separation)) {
    // As collide_box_box: the face most nearly across the edge axis clipped, its gaps measured
    // along the axis, where any lies within the margin; else the edges' one point.
    const Vec3 normal_b = a_to_b.vector(edge.normal);  // from a to b, in b's frame
    const std::uint32_t ref_a = a.face_along(edge.normal), ref_b = b.face_along(-normal_b);
    const Real cosine_a = dot(a.faces[ref_a].normal, edge.normal);
    const Real cosine_b = -dot(b.faces[ref_b].normal, normal_b);
    const Vec3 normal = rotate(ta.orientation, edge.normal);
    if (cosine_a >= std::max(cosine_b, EdgeAxis::k_min_cosine)) {
      const EdgeAxis along{normal, cosine_a, -edge.separation};
      face_contact(a, ta, ref_a, b, tb, true, margin, out, &along);
    } else if (cosine_b >= std::max(cosine_a, EdgeAxis::k_min_cosine)) {
      const EdgeAxis along{normal, cosine_b, -edge.separation};
      face_contact(b, tb, ref_b, a, ta, false, margin, out, &along);
    }
    if (out.count == 0) edge_contact(a, ta, b, b_to_a, edge, out);
    return true;
  }
  if (use_b) {
    face_contact(b, tb, face_b.face, a, ta, false, margin, out);
  } else {
    face_contact(a, ta, face_a.face, b, tb, true, margin, out);
  }
  const Real separation = use_b ? face_b.separation : face_a.separation;
  if (out.count == 0 && separation > 0) {
    const Vec3 axis = use_b ? -rotate(tb.orientation, b.faces[face_b.face].normal)
                            : rotate(ta.orientation, a.faces[face_a.face].normal);
    closest_feature_contact(a, ta, b, tb, axis, margin, out);
  }
  return out.count > 0;
}

bool collide_polyhedron_face(const PolyhedronView& a, const Transform& ta, const PolyhedronView& b,
                             const Transform& tb, std::uint32_t face, Real margin, Manifold& out) {
  out.count = 0;
  face_contact(b, tb, face, a, ta, false, margin, out);
  return out.count > 0;
}

}  // namespace impulse
