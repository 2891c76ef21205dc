#pragma once
// What the world's collision queries and debug views report (World::raycast, World::overlap_*,
// World::debug_contacts, World::debug_tree).

#include <impulse/body.h>

#include <cstdint>

namespace impulse {

/// Where a ray met a body.
struct RaycastHit {
  BodyId body;
  std::uint32_t shape = 0;      ///< which of the body's shapes, in its settings' order
  std::uint32_t sub_shape = 0;  ///< the triangle of a mesh, else 0
  Real fraction = 0;            ///< the hit is at origin + fraction * direction
  Vec3 point;                   ///< m, world
  Vec3 normal;                  ///< unit, world, outward from the body at the point
};

/// One contact point of the last step, for drawing and inspection.
struct DebugContact {
  BodyId body_a, body_b;
  Vec3 position;                 ///< m, world: on body b's surface
  Vec3 normal;                   ///< unit, from body a to body b
  Real depth = 0;                ///< m, > 0 overlapping, < 0 a speculative contact's gap
  Real normal_impulse = 0;       ///< N s, what the solver applied along the normal
  Vec3 friction_impulse;         ///< N s, in the contact plane
  std::uint64_t feature_id = 0;  ///< the features that made it (equal ids: the same contact)
  bool warm = false;             ///< matched last step's point and started from its impulses
};

/// One box of the broadphase tree.
struct DebugTreeBox {
  AABB box;
  int height = 0;  ///< 0 for a leaf (a shape's fat box)
};

}  // namespace impulse
