#pragma once
// A convex shape as the pair routines against planes and meshes take it: spheres and capsules by
// value (two numbers each), boxes and hulls as polyhedra (polyhedron.h).

#include <variant>

#include "collision/polyhedron.h"

namespace impulse {

using ConvexRef = std::variant<Sphere, Capsule, PolyhedronView>;

}  // namespace impulse
