#include "replay_writer.h"

#include <impulse/error.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "replay_format.h"
#include "scene/json_values.h"

namespace impulse::cli {
namespace {

using Json = nlohmann::ordered_json;

// A body's index in the world's order, which is the header's.
std::size_t index_of(const std::vector<BodyId>& ids, BodyId id) {
  return std::size_t(std::find(ids.begin(), ids.end(), id) - ids.begin());
}

}  // namespace

ReplayWriter::ReplayWriter(const std::string& path, const Scene& scene, const World& world)
    : out_(path) {
  if (!out_) throw Error(path + ": cannot open the replay file for writing");
  Json names = Json::array();
  const std::vector<BodyId> ids = world.bodies();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string& name = world.name(ids[i]);
    names.push_back(name.empty() ? std::to_string(i) : name);  // unnamed: the index, as --json
  }
  Json header;
  header[replay::k_format] = replay::k_format_name;
  header[replay::k_version_key] = replay::k_version;
  header[replay::k_name] = scene.name;
  header[replay::k_timestep] = json_number<Json>(scene.settings.timestep);
  header[replay::k_body_names] = std::move(names);
  header[replay::k_scene] = Json::parse(scene_to_json(scene));
  out_ << header.dump() << "\n";
}

void ReplayWriter::write(int step, const World& world) {
  const std::vector<BodyId> ids = world.bodies();
  Json bodies = Json::array();
  for (const BodyId id : ids) {
    const Transform t = world.transform(id);
    bodies.push_back({{replay::k_position, json_vec3<Json>(t.position)},
                      {replay::k_orientation, json_quat<Json>(t.orientation)}});
  }
  Json contacts = Json::array();
  for (const DebugContact& c : world.debug_contacts()) {
    contacts.push_back({{replay::k_body_a, index_of(ids, c.body_a)},
                        {replay::k_body_b, index_of(ids, c.body_b)},
                        {replay::k_position, json_vec3<Json>(c.position)},
                        {replay::k_normal, json_vec3<Json>(c.normal)},
                        {replay::k_depth, json_number<Json>(c.depth)},
                        {replay::k_normal_impulse, json_number<Json>(c.normal_impulse)},
                        {replay::k_friction_impulse, json_vec3<Json>(c.friction_impulse)}});
  }
  Json line;
  line[replay::k_step] = step;
  line[replay::k_time] = world.time();
  line[replay::k_bodies] = std::move(bodies);
  line[replay::k_contacts] = std::move(contacts);
  out_ << line.dump() << "\n";
}

}  // namespace impulse::cli
