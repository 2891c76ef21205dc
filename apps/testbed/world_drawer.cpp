#include "world_drawer.h"

#include <array>

namespace impulse::testbed {
namespace {

constexpr Color k_static_color{0.52f, 0.53f, 0.56f};
constexpr Color k_sleeping_color{0.36f, 0.40f, 0.52f};
constexpr std::array<Color, 8> k_palette{{{0.90f, 0.45f, 0.30f},
                                          {0.35f, 0.70f, 0.40f},
                                          {0.95f, 0.75f, 0.30f},
                                          {0.40f, 0.60f, 0.90f},
                                          {0.80f, 0.45f, 0.75f},
                                          {0.35f, 0.80f, 0.80f},
                                          {0.85f, 0.55f, 0.45f},
                                          {0.65f, 0.80f, 0.35f}}};

Color body_color(const World& world, BodyId id, const DrawOptions& options,
                 const std::vector<int>& island) {
  if (world.type(id) != BodyType::dynamic_body) return k_static_color;
  if (options.color_sleeping && world.is_asleep(id)) return k_sleeping_color;
  const bool by_island = options.color_islands && id.index < island.size();
  const auto key = std::size_t(by_island ? island[id.index] : int(id.index));
  return k_palette[(key * 5) % k_palette.size()];  // 5 is coprime to 8: neighbours differ
}

}  // namespace

void WorldDrawer::clear(Renderer& renderer) {
  renderer.clear_meshes();
  bodies_.clear();
}

const WorldDrawer::BodyMeshes& WorldDrawer::meshes_of(const World& world, BodyId id,
                                                      Renderer& renderer) {
  if (bodies_.size() <= id.index) bodies_.resize(id.index + 1);
  BodyMeshes& body = bodies_[id.index];
  if (body.id == id) return body;
  body.id = id;
  body.shapes.clear();
  for (const ShapeSettings& shape : world.body_settings(id).shapes)
    body.shapes.push_back({renderer.upload(shape_mesh(shape.geometry)), shape.local});
  return body;
}

void WorldDrawer::draw(const World& world, Renderer& renderer, const DrawOptions& options,
                       const std::vector<int>& island) {
  for (const BodyId id : world.bodies()) {
    const Color color = body_color(world, id, options, island);
    const Transform pose = world.transform(id);
    for (const ShapeMesh& shape : meshes_of(world, id, renderer).shapes)
      renderer.draw_mesh(shape.mesh, model_matrix(pose * shape.local), color);
  }
}

}  // namespace impulse::testbed
