#pragma once
// What a frame shows of a world: its bodies seen from the orbit camera, the ground grid and the
// debug drawing. Shared by the window and the headless capture.

#include <impulse/world.h>

#include <vector>

#include "camera.h"
#include "draw_options.h"
#include "line_batch.h"
#include "renderer.h"
#include "world_drawer.h"

namespace impulse::testbed {

class SceneView {
 public:
  /// Drops the meshes of the last world and frames the new one's dynamic bodies.
  void reset(const World& world);
  /// Draws into the bound framebuffer; overlay: lines drawn over everything (e.g. the drag).
  /// contacts: the world's own (debug_contacts) or a replay's; stepped: false for a replay's
  /// world, which is posed but never stepped, so that its joint states are not of this pose.
  void draw(const World& world, const std::vector<DebugContact>& contacts, bool stepped, int width,
            int height, const LineBatch& overlay);

  OrbitCamera camera;
  DrawOptions options;

 private:
  Renderer renderer_;
  WorldDrawer drawer_;
  LineBatch grid_;
  LineBatch debug_;
};

}  // namespace impulse::testbed
