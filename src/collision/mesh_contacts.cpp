// collide_convex_mesh (mesh_shape.h): the convex against each triangle the tree finds near it,
// through polyhedron.h's pair routines with the triangle as a flat polyhedron; then contacts on
// inner edges and corners take the face normal (active edges), back-facing ones are dropped, edge
// and corner contacts already covered by a neighbour are dropped (voided features), and the rest
// are grouped by normal into manifolds of at most 4 points.

#include <algorithm>
#include <cmath>
#include <vector>

#include "collision/manifold_reduction.h"
#include "collision/mesh_shape.h"
#include "collision/polyhedron.h"

namespace impulse {
namespace {

// A contact normal this close to a triangle's face normal (cosine, about 0.8 degrees) is the
// face's: a contact on the face, whatever its feature.
constexpr Real k_face_cosine = Real(0.9999);
// A point within this fraction of the triangle (barycentric) of an edge or corner lies on it
// (Jolt's tolerance).
constexpr Real k_feature_tolerance = Real(1e-4);
// A contact whose normal would push the convex towards a triangle's back by more than this sine
// is dropped (one-sidedness); the slack keeps contacts on a ledge's side.
constexpr Real k_back_sine = Real(1e-3);
// A thin hull (PolyhedronView::thin) whose inside point lies behind a triangle's plane by more
// than this (m) is behind it; any other convex once it is behind at all. A body resting on a floor
// sinks to the slop and more under load, and a needle or plate thinner than twice that, its centre
// behind the floor at rest, lost every contact and fell through (of 400 needles 1 cm thick dropped
// on a two-triangle floor, 319). Not for the rest: a capsule lying 1.4 cm behind a floor was
// pushed up through it.
constexpr Real k_behind = Real(0.02);
// A thin hull reaching no farther than this (m) behind a triangle's plane may be pushed out of its
// front (add_triangle_contacts); farther, it is beside the triangle, not through it (a plate
// resting on a ledge near its edge reaches far behind the ledge's side), unless it touched the
// triangle's surface at the last step.
constexpr Real k_through = 2 * k_behind;
// A contact of the last step within k_behind of a triangle's plane whose normal is within this
// cosine (30 degrees) of the triangle's front touched that triangle or a neighbour of it on one
// surface (coplanar or gently bent), not a ledge's side across an edge from it.
constexpr Real k_touch_cosine = Real(0.866);
// A thin hull that touched a triangle's surface and reaches farther than k_through behind it keeps
// the pair routine's contact where that pushes it out of the front within 60 degrees (this
// cosine) of the face normal: a plate leaning across a ledge's edge down to the floor below, whose
// edge contact's normal is the plate's own. Otherwise it has sunk, and the front face is clipped.
constexpr Real k_out_cosine = Real(0.5);
// Points of one manifold closer than this (m) are the same point seen from neighbouring
// triangles sharing an edge or corner.
constexpr Real k_weld_distance = Real(1e-3);

// Contacts whose normals are within this angle (degrees) of the deepest one's share a manifold.
constexpr Real k_group_degrees = 3;

struct Candidate {
  ContactPoint point;
  Vec3 normal;  // world, from the convex to the mesh
  std::uint32_t triangle;
  // The triangle's corners the contact's feature spans (bit i: corner i); 0 for a contact the
  // pair routine made with the face normal, which always stands.
  std::uint8_t corners;
};

// A mesh vertex some accepted contact's triangle has, so that a neighbour's edge or corner
// contact there is redundant (Jolt's voided features in its internal edge removal).
struct Voided {
  std::uint32_t vertex;
  std::uint32_t triangle;
  friend bool operator<(const Voided& x, const Voided& y) {
    return x.vertex < y.vertex || (x.vertex == y.vertex && x.triangle < y.triangle);
  }
  friend bool operator==(const Voided&, const Voided&) = default;
};

// The scratch of one thread's calls, reused so that steady use allocates nothing.
struct Scratch {
  std::vector<Candidate> candidates;
  std::vector<Voided> voided;
  std::vector<ContactPoint> group;
};

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;  // for compilers without C++20's aggregate deduction

// a's bounds in the mesh frame, a_in_b being a's pose there.
AABB local_bounds(const ConvexRef& a, const Transform& a_in_b) {
  return std::visit(Overloaded{
                        [&](const Sphere& s) {
                          return AABB::from_center_half_extents(a_in_b.position,
                                                                Vec3::splat(s.radius));
                        },
                        [&](const Capsule& c) {
                          AABB box;
                          box.include(apply(a_in_b, {0, -c.half_height, 0}))
                              .include(apply(a_in_b, {0, c.half_height, 0}));
                          return box.expanded(c.radius);
                        },
                        [&](const PolyhedronView& p) {
                          AABB box;
                          for (const Vec3& v : p.vertices)
                            box.include(apply(a_in_b, v));
                          return box;
                        },
                    },
                    a);
}

bool collide_triangle(const ConvexRef& a, const Transform& ta, const PolyhedronView& triangle,
                      const Transform& tb, Real margin, Manifold& m) {
  return std::visit(Overloaded{
                        [&](const Sphere& s) {
                          return collide_sphere_polyhedron(s, ta, triangle, tb, margin, m);
                        },
                        [&](const Capsule& c) {
                          return collide_capsule_polyhedron(c, ta, triangle, tb, margin, m);
                        },
                        [&](const PolyhedronView& p) {
                          return collide_polyhedra(p, ta, triangle, tb, margin, m);
                        },
                    },
                    a);
}

// The corners of triangle t that the feature holding local point p spans (bit i: corner i): one
// for a corner, two for an edge, all three for the inside. Sets active when that corner or edge is
// active; the inside never is.
std::uint8_t feature_corners(const MeshShape& mesh, std::uint32_t t, const Vec3& p, bool& active) {
  const auto& tri = mesh.triangles[t];
  const Vec3& a = mesh.vertices[tri[0]];
  const Vec3& b = mesh.vertices[tri[1]];
  const Vec3& c = mesh.vertices[tri[2]];
  const Vec3 n = cross(b - a, c - a);
  const Real inv = Real(1) / length_squared(n);
  const Real w0 = dot(cross(c - b, p - b), n) * inv;
  const Real w1 = dot(cross(a - c, p - c), n) * inv;
  const Real w[3] = {w0, w1, 1 - w0 - w1};
  const std::uint8_t flags = mesh.active_features[t];
  for (int i = 0; i < 3; ++i) {
    if (w[i] > 1 - k_feature_tolerance) {
      active = flags & MeshShape::vertex_bit(i);
      return std::uint8_t(1u << i);
    }
  }
  for (int i = 0; i < 3; ++i) {
    // Edge i runs from corner i to corner i + 1, opposite corner i + 2.
    if (w[(i + 2) % 3] < k_feature_tolerance) {
      active = flags & MeshShape::edge_bit(i);
      return std::uint8_t(1u << i | 1u << ((i + 1) % 3));
    }
  }
  active = false;
  return 7;
}

// mesh_shape.h's id of a TrianglePolyhedron feature of triangle t.
std::uint32_t mesh_feature(std::uint32_t t, std::uint8_t type, std::uint32_t index) {
  switch (FeatureType(type)) {
    case FeatureType::edge:
      return 8 * t + 2 + index;
    case FeatureType::vertex:
      return 8 * t + 5 + index;
    default:
      return 8 * t + index;  // the front face 0 or the back face 1
  }
}

// A point inside a, in its frame, for the one-sided test: the centre of a sphere or capsule, a
// polyhedron's interior point. A hull need not hold its origin: one resting on a mesh with its
// origin below the surface was taken for a body behind it, lost its contacts and fell through.
Vec3 inside_point(const ConvexRef& a) {
  const PolyhedronView* polyhedron = std::get_if<PolyhedronView>(&a);
  return polyhedron ? polyhedron->interior : Vec3::zero();
}

// How far hull a, placed by a_in_b in the mesh frame, reaches behind and in front of the plane
// through v0 with normal `front` (m, each at least 0).
struct Reach {
  Real behind = 0, in_front = 0;
};
Reach reach(const PolyhedronView& a, const Transform& a_in_b, const Vec3& v0, const Vec3& front) {
  const Vec3 up = inverse_rotate(a_in_b.orientation, front);  // in a's frame
  return {std::max(Real(0), -dot(front, apply(a_in_b, a.support(-up)) - v0)),
          std::max(Real(0), dot(front, apply(a_in_b, a.support(up)) - v0))};
}

// Whether a touched the mesh at the last step on the surface of the triangle through v0 with
// normal front (world), or of a neighbour on one surface with it (k_touch_cosine).
bool touched_front(std::span<const MeshTouch> touched, const Vec3& v0, const Vec3& front) {
  return std::any_of(touched.begin(), touched.end(), [&](const MeshTouch& x) {
    return dot(x.normal, front) >= k_touch_cosine && std::abs(dot(front, x.point - v0)) <= k_behind;
  });
}

// a against triangle t; thin_hull is a's polyhedron where it is thin (PolyhedronView::thin),
// else null.
void add_triangle_contacts(const ConvexRef& a, const PolyhedronView* thin_hull, const Transform& ta,
                           const Transform& a_in_b, const Vec3& a_inside_local, const MeshShape& b,
                           const Transform& tb, std::span<const MeshTouch> touched, std::uint32_t t,
                           Real margin, std::vector<Candidate>& candidates) {
  const auto& tri = b.triangles[t];
  const Vec3& v0 = b.vertices[tri[0]];
  const Vec3& front = b.normals[t];
  const bool thin = thin_hull != nullptr;
  // A thin hull that touched the triangle's surface at the last step is in front of it, however
  // far it has sunk behind its plane since (a plate turning into the floor about one edge, its
  // far edge pressed on 5 cm or more): which side a body is on is what the contacts knew, where
  // its pose cannot tell a sunk plate from one beyond a ledge's edge.
  const bool in_front =
      thin && touched_front(touched, apply(tb, v0), rotate(tb.orientation, front));
  // One-sided: a is behind the triangle.
  if (!in_front && dot(front, a_inside_local - v0) < (thin ? -k_behind : 0)) return;
  const TrianglePolyhedron triangle(v0, b.vertices[tri[1]], b.vertices[tri[2]]);
  // A thin hull in front of the triangle, or within k_behind of it, that reaches farther behind
  // its plane than in front of it (a needle or plate lying half through) overlaps it least along
  // the back face, or an edge axis near it, whose normal would pull it on through: it is dropped
  // below, and the hull fell through. Where it reaches no farther behind than k_through, the
  // front face is clipped against it instead, which pushes it back out; likewise where the pair
  // routine's normal points to the back at all. Farther behind, a hull that touched the triangle
  // before (`sunk`) has its front face clipped where the pair routine finds nothing or nothing
  // pushing it out of the front by k_out_cosine.
  const Reach r = thin ? reach(*thin_hull, a_in_b, v0, front) : Reach{};
  const bool near = thin && r.behind <= k_through;
  const bool sunk = in_front && !near;
  const bool through = near && r.behind > r.in_front;
  const Vec3 face_normal = -rotate(tb.orientation, front);  // from a in front to the triangle
  Manifold m;
  bool touching = !through && collide_triangle(a, ta, triangle.view(), tb, margin, m);
  const Real pushes_out = touching ? dot(m.normal, face_normal) : -1;
  if (through || (near && touching && pushes_out < -k_back_sine) ||
      (sunk && pushes_out < k_out_cosine)) {
    touching = collide_polyhedron_face(*thin_hull, ta, triangle.view(), tb, 0, margin, m);
  }
  if (!touching) return;

  Real cosine = dot(m.normal, face_normal);
  bool face_contact = cosine >= k_face_cosine;
  // A capsule nearest an inner edge takes the face normal below, and then its segment clipped to
  // the face as well: from the edge's one point, the end over this triangle went unseen until the
  // capsule's turn had swung it through (a capsule dropped tilted across a quad's diagonal sank
  // 114 mm where on a box it stops within 1 mm).
  if (const Capsule* capsule = std::get_if<Capsule>(&a); capsule && !face_contact && m.count > 0) {
    bool active = false;
    feature_corners(b, t, apply_inverse(tb, m.points[0].position), active);
    Manifold over;
    if (!active && collide_capsule_face(*capsule, ta, triangle.view(), tb, 0, margin, over)) {
      m = over;
      cosine = dot(m.normal, face_normal);
      face_contact = true;
    }
  }
  for (int i = 0; i < m.count; ++i) {
    Candidate c{m.points[std::size_t(i)], m.normal, t, 0};
    // On the face, an inner edge or corner, or the inside: the face normal, and the depth of a's
    // witness point (position + depth * normal) below the triangle's plane. A normal that does not
    // push a out of the front at all is the wrong way round: no contact. Near the face's normal it
    // may be the convex's own face's (the pair routine prefers a's faces on a near tie): a box
    // tilted 0.02 degrees and dragged at 3 m/s over a grid slid along its own face's plane and
    // sank 0.8 mm/s until the slop held it.
    bool takes_face = face_contact;
    if (!face_contact) {
      bool active = false;
      c.corners = feature_corners(b, t, apply_inverse(tb, c.point.position), active);
      takes_face = !active;
    }
    if (takes_face) {
      if (cosine <= 0) continue;
      c.normal = face_normal;
      c.point.depth *= cosine;
    }
    if (dot(c.normal, face_normal) < -k_back_sine) continue;
    c.point.id.index_b = mesh_feature(t, c.point.id.type_b, c.point.id.index_b);
    candidates.push_back(c);
  }
}

// Drops edge and corner contacts whose corners all belong to other triangles that already have
// contacts: those neighbours cover the feature, and the edge's normal would only disagree with
// theirs. Face contacts stand and go first; then the others, deepest first.
void remove_voided(const MeshShape& mesh, std::vector<Candidate>& candidates,
                   std::vector<Voided>& voided) {
  voided.clear();
  const auto features = std::partition(candidates.begin(), candidates.end(),
                                       [](const Candidate& c) { return c.corners == 0; });
  if (features == candidates.end()) return;
  const auto void_corners = [&](const Candidate& c) {
    for (const std::uint32_t v : mesh.triangles[c.triangle])
      voided.push_back({v, c.triangle});
  };
  for (auto it = candidates.begin(); it != features; ++it)
    void_corners(*it);
  std::sort(voided.begin(), voided.end());
  voided.erase(std::unique(voided.begin(), voided.end()), voided.end());
  const std::size_t sorted = voided.size();
  // By another triangle: the sorted face part by binary search, the few added below by a scan.
  const auto is_voided = [&](std::uint32_t v, std::uint32_t t) {
    const auto end = voided.begin() + std::ptrdiff_t(sorted);
    for (auto it = std::lower_bound(voided.begin(), end, Voided{v, 0});
         it != end && it->vertex == v; ++it) {
      if (it->triangle != t) return true;
    }
    return std::any_of(end, voided.end(),
                       [&](const Voided& x) { return x.vertex == v && x.triangle != t; });
  };

  std::sort(features, candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.point.depth > y.point.depth ||
           (x.point.depth == y.point.depth && x.triangle < y.triangle);
  });
  auto kept = features;
  for (auto it = features; it != candidates.end(); ++it) {
    const auto& tri = mesh.triangles[it->triangle];
    bool covered = true;
    for (int i = 0; i < 3 && covered; ++i) {
      if (it->corners & (1u << i)) covered = is_voided(tri[i], it->triangle);
    }
    if (covered) continue;
    void_corners(*it);
    *kept++ = *it;
  }
  candidates.erase(kept, candidates.end());
}

// Keeps the deeper of any two points closer than k_weld_distance; for the few points that
// reduce_manifold would otherwise keep all of.
void weld(std::vector<ContactPoint>& points) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = points.size(); j-- > i + 1;) {
      if (length_squared(points[j].position - points[i].position) >=
          k_weld_distance * k_weld_distance) {
        continue;
      }
      if (points[j].depth > points[i].depth) points[i] = points[j];
      points.erase(points.begin() + std::ptrdiff_t(j));
    }
  }
}

// Manifolds from the candidates: the deepest point's normal gathers every candidate within
// k_group_degrees of it, reduced to 4 points; repeated on the rest.
void group_into_manifolds(std::vector<Candidate>& candidates, std::vector<ContactPoint>& group,
                          std::vector<Manifold>& out) {
  static const Real group_cosine = std::cos(k_group_degrees * k_pi / 180);
  const auto deeper = [](const Candidate& x, const Candidate& y) {
    return x.point.depth < y.point.depth;
  };
  // A non-finite pose gives non-finite candidates, which would gather no group, not even their own.
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                  [](const Candidate& c) {
                                    return !is_finite(c.normal) || !is_finite(c.point.depth);
                                  }),
                   candidates.end());
  auto begin = candidates.begin();
  while (begin != candidates.end()) {
    std::iter_swap(begin, std::max_element(begin, candidates.end(), deeper));
    const Vec3 normal = begin->normal;
    const auto end = std::partition(begin + 1, candidates.end(), [&](const Candidate& c) {
      return dot(c.normal, normal) > group_cosine;
    });
    group.clear();
    for (auto it = begin; it != end; ++it)
      group.push_back(it->point);
    if (group.size() <= std::size_t(Manifold::k_max_points)) weld(group);
    Manifold m;
    reduce_manifold(group, normal, m);
    out.push_back(m);
    begin = end;
  }
}

}  // namespace

void collide_convex_mesh(const ConvexRef& a, const Transform& ta, const MeshShape& b,
                         const Transform& tb, Real margin, std::vector<Manifold>& out,
                         std::span<const MeshTouch> touched) {
  thread_local Scratch scratch;
  scratch.candidates.clear();
  const Transform a_in_b = inverse(tb) * ta;
  const Vec3 inside = apply(a_in_b, inside_point(a));
  AABB bounds = local_bounds(a, a_in_b);
  // A thin hull pushed wholly behind the surface it touched at the last step, beyond the margin
  // (a plate slammed flat 12 cm into a floor), looks for its triangles there still.
  const PolyhedronView* hull = std::get_if<PolyhedronView>(&a);
  const PolyhedronView* thin_hull = hull != nullptr && hull->thin ? hull : nullptr;
  if (thin_hull != nullptr) {
    for (const MeshTouch& x : touched)
      bounds.include(apply_inverse(tb, x.point));
  }
  b.tree.query(bounds.expanded(margin), [&](std::uint32_t t) {
    add_triangle_contacts(a, thin_hull, ta, a_in_b, inside, b, tb, touched, t, margin,
                          scratch.candidates);
    return true;
  });
  remove_voided(b, scratch.candidates, scratch.voided);
  group_into_manifolds(scratch.candidates, scratch.group, out);
}

}  // namespace impulse
