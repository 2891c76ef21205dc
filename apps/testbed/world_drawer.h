#pragma once
// Draws a world's bodies: a mesh per shape, built from its geometry the first time the body is
// seen, placed by the body's transform and the shape's local transform each frame.

#include <impulse/world.h>

#include <vector>

#include "draw_options.h"
#include "renderer.h"

namespace impulse::testbed {

class WorldDrawer {
 public:
  /// Forgets every body's meshes (a new or reset world).
  void clear(Renderer& renderer);
  /// island: find_islands's numbering, by body handle index.
  void draw(const World& world, Renderer& renderer, const DrawOptions& options,
            const std::vector<int>& island);

 private:
  struct ShapeMesh {
    std::size_t mesh;
    Transform local;
  };
  struct BodyMeshes {
    BodyId id;
    std::vector<ShapeMesh> shapes;
  };
  const BodyMeshes& meshes_of(const World& world, BodyId id, Renderer& renderer);

  std::vector<BodyMeshes> bodies_;  // by handle index
};

}  // namespace impulse::testbed
