#include "scene_view.h"

#include <algorithm>

#include "debug_draw.h"
#include "islands.h"

namespace impulse::testbed {
namespace {

constexpr Color k_grid_color{0.30f, 0.32f, 0.36f};
constexpr Real k_grid_lift = Real(0.002);  // m above y = 0, clear of a ground's top face

}  // namespace

void SceneView::reset(const World& world) {
  drawer_.clear(renderer_);
  AABB box;
  for (const BodyId id : world.bodies()) {
    if (world.type(id) == BodyType::dynamic_body) box.include(world.position(id));
  }
  if (box.is_empty()) box = AABB::from_center_half_extents(Vec3::zero(), Vec3::splat(3));
  camera.frame(box.expanded(1));
}

void SceneView::draw(const World& world, const std::vector<DebugContact>& contacts, bool stepped,
                     int width, int height, const LineBatch& overlay) {
  const float aspect = float(width) / float(std::max(height, 1));
  renderer_.begin(width, height, camera.view(), camera.projection(aspect));
  drawer_.draw(world, renderer_, options, find_islands(world, contacts));
  grid_.clear();
  if (options.grid) grid_.grid(k_grid_lift, 20, 1, k_grid_color);
  renderer_.draw_lines(grid_, false);
  debug_.clear();
  add_debug_lines(world, contacts, options, debug_);
  if (options.joints && stepped) add_joint_lines(world, debug_);
  renderer_.draw_lines(debug_, true);
  renderer_.draw_lines(overlay, true);
}

}  // namespace impulse::testbed
