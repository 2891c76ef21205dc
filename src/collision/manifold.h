#pragma once
// A contact manifold: what the narrowphase reports for one touching shape pair (DESIGN.md step 2).
// One normal pointing from shape A to shape B, at most four points, each with the id of the
// features that made it (seed 001 section 8.2) so the contact cache can match it next step.

#include <impulse/math.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace impulse {

/// Which features of A and B produced a point. Equal ids on consecutive steps mean the same
/// contact: its impulses carry over (warm starting). Indices are 32-bit so that a mesh can name
/// a feature of any of its triangles (see mesh_shape.h).
struct FeatureId {
  std::uint8_t type_a = 0;    // FeatureType of A's feature
  std::uint32_t index_a = 0;  // which face, edge or vertex of A
  std::uint8_t type_b = 0;
  std::uint32_t index_b = 0;
  /// The same features seen from the other side: A and B exchanged.
  FeatureId flipped() const { return {type_b, index_b, type_a, index_a}; }
  /// One number per id, unique while indices are under 2^30 (types fit in two bits).
  std::uint64_t key() const {
    const auto half = [](std::uint8_t type, std::uint32_t index) {
      return std::uint64_t(std::uint32_t(index << 2 | type));
    };
    return half(type_a, index_a) | half(type_b, index_b) << 32;
  }
  friend bool operator==(const FeatureId&, const FeatureId&) = default;
};

enum class FeatureType : std::uint8_t { none = 0, vertex = 1, edge = 2, face = 3 };

struct ContactPoint {
  Vec3 position;   // m, world: on shape B's surface
  Real depth = 0;  // m, penetration along the normal (> 0 overlapping, < 0 separated within margin)
  FeatureId id;
};

/// Whose face a manifold's normal is, so which shape the normal turns with. An edge pair's normal,
/// and the line from a rounded core to the nearest edge or corner, turn with both: none. Planes
/// and meshes, which never turn, leave it none.
enum class NormalFace : std::uint8_t { none, a, b };

/// An edge pair's axis, when a face clipped against another gives the pair's points rather than
/// the edges' one point (a box or hull turning about that point would swing the face's corners
/// into the other within a step): each point's gap is measured along the axis. Only for a face
/// within about 20 degrees of the axis: edges that cross at a wider angle keep their one point.
struct EdgeAxis {
  static constexpr Real k_min_cosine = Real(0.94);

  Vec3 normal;       // unit, world, from shape A to shape B: the manifold's normal
  Real cosine = 1;   // with the reference face's outward normal, > 0
  Real overlap = 0;  // m, the shapes' overlap along the axis: no point lies deeper
  /// A point's gap along the axis, from its gap along the reference face's normal.
  Real gap(Real face_gap) const { return std::max(face_gap / cosine, -overlap); }
};

struct Manifold {
  static constexpr int k_max_points = 4;
  Vec3 normal;  // unit, world, from shape A to shape B
  NormalFace normal_face = NormalFace::none;
  std::array<ContactPoint, k_max_points> points;
  int count = 0;

  void add(const ContactPoint& p) {
    if (count < k_max_points) points[std::size_t(count++)] = p;
  }
};

}  // namespace impulse
