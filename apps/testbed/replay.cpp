#include "replay.h"

#include <impulse/error.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "replay_format.h"

namespace impulse::testbed {
namespace {

using Json = nlohmann::json;

Vec3 vec3(const Json& j) {
  return {j.at(0).get<Real>(), j.at(1).get<Real>(), j.at(2).get<Real>()};
}

Quat quat(const Json& j) {
  return {j.at(0).get<Real>(), j.at(1).get<Real>(), j.at(2).get<Real>(), j.at(3).get<Real>()};
}

void read_header(const Json& header, Replay& replay) {
  if (header.at(replay::k_format) != replay::k_format_name)
    throw Error(std::string("not a replay (its format is not '") + replay::k_format_name + "')");
  if (header.at(replay::k_version_key) != replay::k_version)
    throw Error("replay version " + header.at(replay::k_version_key).dump() + ", this reads " +
                std::to_string(replay::k_version));
  replay.scene = parse_scene(header.at(replay::k_scene).dump(), "the header's scene");
  replay.body_names = header.at(replay::k_body_names).get<std::vector<std::string>>();
  if (replay.body_names.size() != replay.scene.bodies.size())
    throw Error("the header names " + std::to_string(replay.body_names.size()) +
                " bodies, its scene has " + std::to_string(replay.scene.bodies.size()));
}

ReplayFrame read_frame(const Json& line, std::size_t body_count) {
  ReplayFrame frame;
  frame.step = line.at(replay::k_step).get<int>();
  frame.time = line.at(replay::k_time).get<double>();
  const Json& bodies = line.at(replay::k_bodies);
  if (bodies.size() != body_count)
    throw Error(std::to_string(bodies.size()) + " bodies, the header has " +
                std::to_string(body_count));
  for (const Json& body : bodies)
    frame.transforms.push_back(
        {vec3(body.at(replay::k_position)), quat(body.at(replay::k_orientation))});
  for (const Json& c : line.at(replay::k_contacts)) {
    frame.contacts.push_back(
        {c.at(replay::k_body_a).get<std::size_t>(), c.at(replay::k_body_b).get<std::size_t>(),
         vec3(c.at(replay::k_position)), vec3(c.at(replay::k_normal)),
         vec3(c.at(replay::k_friction_impulse)), c.at(replay::k_depth).get<Real>(),
         c.at(replay::k_normal_impulse).get<Real>()});
  }
  return frame;
}

}  // namespace

Replay read_replay(std::istream& in, const std::string& source) {
  Replay replay;
  int line_number = 0;
  try {
    for (std::string text; std::getline(in, text);) {
      ++line_number;
      const Json line = Json::parse(text);
      if (line_number == 1)
        read_header(line, replay);
      else
        replay.frames.push_back(read_frame(line, replay.body_names.size()));
    }
  } catch (const std::exception& e) {  // the JSON library's errors and ours alike
    throw Error(source + ":" + std::to_string(line_number) + ": " + e.what());
  }
  if (line_number == 0) throw Error(source + ": empty, not a replay");
  return replay;
}

Replay load_replay(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(path.string() + ": cannot open the replay");
  return read_replay(in, path.string());
}

}  // namespace impulse::testbed
