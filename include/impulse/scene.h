#pragma once
// Scenes: a world described as data, loaded from and saved to the JSON format of
// docs/scene-format.md, or taken from the built-in library.

#include <impulse/joint.h>
#include <impulse/settings.h>
#include <impulse/world.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace impulse {

/// A joint as a scene holds it: bodies named rather than addressed by handle.
struct SceneJoint {
  JointSettings settings;  ///< body_a and body_b unset; filled in when the world is built
  std::string body_a;
  std::string body_b;  ///< empty for the world
  friend bool operator==(const SceneJoint&, const SceneJoint&) = default;
};

struct Scene {
  std::string name;
  WorldSettings settings;
  std::vector<BodySettings> bodies;
  std::vector<SceneJoint> joints;
  friend bool operator==(const Scene&, const Scene&) = default;
};

/// Parses scene JSON text. `file` only names the source in errors. Throws SceneError naming the
/// JSON path and the problem; nothing is returned half-loaded.
Scene parse_scene(const std::string& text, const std::string& file = "<memory>");

/// Reads and parses a scene file; throws SceneError (also for an unreadable file).
Scene load_scene(const std::filesystem::path& path);

/// The scene as JSON text that parse_scene reads back to an identical Scene.
std::string scene_to_json(const Scene& scene);

/// Writes scene_to_json to a file; throws Error when the file cannot be written.
void save_scene(const Scene& scene, const std::filesystem::path& path);

/// Creates the scene's bodies and joints in a new world with its settings. Throws SceneError
/// (with the path of the offending body or joint) for what the world refuses.
World build_world(const Scene& scene, const std::string& file = "<scene>");

/// The names of the built-in scenes, sorted.
std::vector<std::string> builtin_scene_names();

/// A built-in scene by name, or nothing.
std::optional<Scene> builtin_scene(const std::string& name);

}  // namespace impulse
