// A world made from a scene: what the world refuses becomes a SceneError naming the scene's path.

#include <impulse/error.h>
#include <impulse/scene.h>

#include "dynamics/validation.h"

#include <string>
#include <unordered_map>

namespace impulse {

World build_world(const Scene& scene, const std::string& file) {
  if (auto problem = find_problem(scene.settings))
    throw SceneError(file, problem->path, problem->message);
  World world(scene.settings);

  std::unordered_map<std::string, BodyId> ids;  // named bodies only: "" names no body
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const BodySettings& body = scene.bodies[i];
    try {
      const BodyId id = world.create_body(body);
      if (!body.name.empty()) ids.emplace(body.name, id);
    } catch (const Error& e) {
      throw SceneError(file, "/bodies/" + std::to_string(i), e.what());
    }
  }

  for (std::size_t i = 0; i < scene.joints.size(); ++i) {
    const SceneJoint& joint = scene.joints[i];
    const std::string path = "/joints/" + std::to_string(i);
    const auto resolve = [&](const std::string& name, const char* key) {
      const auto it = ids.find(name);
      if (it == ids.end()) throw SceneError(file, path + "/" + key, "unknown body '" + name + "'");
      return it->second;
    };
    JointSettings settings = joint.settings;
    settings.body_a = resolve(joint.body_a, "body_a");
    settings.body_b = joint.body_b.empty() ? BodyId{} : resolve(joint.body_b, "body_b");
    try {
      world.create_joint(settings);
    } catch (const Error& e) {
      throw SceneError(file, path, std::string("cannot create the joint: ") + e.what());
    }
  }
  return world;
}

}  // namespace impulse
