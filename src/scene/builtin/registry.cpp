#include "scene/builtin/builtin_scenes.h"

#include <algorithm>

namespace impulse {
namespace {

std::vector<builtin::BuiltinScene> all_scenes() {
  std::vector<builtin::BuiltinScene> scenes;
  for (auto family : {builtin::falling_scenes, builtin::spinning_scenes, builtin::stacking_scenes,
                      builtin::material_scenes, builtin::joint_scenes}) {
    for (builtin::BuiltinScene& scene : family())
      scenes.push_back(std::move(scene));
  }
  std::sort(scenes.begin(), scenes.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return scenes;
}

}  // namespace

namespace builtin {

BodySettings dynamic_body(std::string name, ShapeGeometry geometry, const Vec3& position) {
  BodySettings body;
  body.name = std::move(name);
  body.shapes = {ShapeSettings{std::move(geometry), {}}};
  body.position = position;
  return body;
}

}  // namespace builtin

std::vector<std::string> builtin_scene_names() {
  std::vector<std::string> names;
  for (const builtin::BuiltinScene& scene : all_scenes())
    names.push_back(scene.name);
  return names;
}

std::optional<Scene> builtin_scene(const std::string& name) {
  for (const builtin::BuiltinScene& scene : all_scenes()) {
    if (scene.name == name) return scene.make();
  }
  return std::nullopt;
}

}  // namespace impulse
