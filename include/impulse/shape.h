#pragma once
// Shapes a body is made of. A body has one shape or several (a compound); each sits at a local
// transform in the body frame. Shapes are plain values: the world cooks them when a body is made.

#include <impulse/math.h>

#include <array>
#include <cstdint>
#include <variant>
#include <vector>

namespace impulse {

struct Sphere {
  Real radius = Real(0.5);  // m
  friend bool operator==(const Sphere&, const Sphere&) = default;
};

struct Box {
  Vec3 half_extents{Real(0.5), Real(0.5), Real(0.5)};  // m
  friend bool operator==(const Box&, const Box&) = default;
};

/// A segment along local y from -half_height to +half_height, swept by a sphere of radius.
struct Capsule {
  Real radius = Real(0.25);      // m
  Real half_height = Real(0.5);  // m, of the inner segment
  friend bool operator==(const Capsule&, const Capsule&) = default;
};

/// The convex hull of a point cloud (at most k_max_hull_points input points).
struct ConvexHull {
  std::vector<Vec3> points;
  friend bool operator==(const ConvexHull&, const ConvexHull&) = default;
};
inline constexpr std::size_t k_max_hull_points = 4096;

/// The half-space dot(normal, x) <= offset; static bodies only.
struct Plane {
  Vec3 normal = Vec3::unit_y();
  Real offset = 0;
  friend bool operator==(const Plane&, const Plane&) = default;
};

/// A triangle mesh, counter-clockwise seen from the front; static bodies only.
struct Mesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  friend bool operator==(const Mesh&, const Mesh&) = default;
};

using ShapeGeometry = std::variant<Sphere, Box, Capsule, ConvexHull, Plane, Mesh>;

/// One shape of a body, placed in the body frame.
struct ShapeSettings {
  ShapeGeometry geometry = Box{};
  Transform local;  // from the shape frame to the body frame
  friend bool operator==(const ShapeSettings&, const ShapeSettings&) = default;
};

/// The name of a geometry's type as the scene format spells it ("sphere", "box", ...).
const char* shape_type_name(const ShapeGeometry& geometry);

/// Whether a geometry may only belong to a static body (planes and meshes).
bool is_static_only(const ShapeGeometry& geometry);

}  // namespace impulse
