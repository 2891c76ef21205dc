#pragma once
// Reads the replay files of `impulse run --record` (docs/replay.md): the scene as run and every
// recorded step's body transforms and contact points.

#include <impulse/scene.h>

#include <filesystem>
#include <istream>
#include <string>
#include <vector>

namespace impulse::testbed {

struct ReplayContact {
  std::size_t body_a = 0, body_b = 0;  // indices in the scene's body order
  Vec3 position, normal, friction_impulse;
  Real depth = 0, normal_impulse = 0;
};

struct ReplayFrame {
  int step = 0;                       // 1-based
  double time = 0;                    // s, after the step
  std::vector<Transform> transforms;  // one per body, in the scene's order
  std::vector<ReplayContact> contacts;
};

struct Replay {
  Scene scene;  // as run, with the shapes; its bodies in the frames' order
  std::vector<std::string> body_names;
  std::vector<ReplayFrame> frames;
};

/// Parses a replay; `source` names it in errors. Throws impulse::Error naming the source, the
/// line and the problem.
Replay read_replay(std::istream& in, const std::string& source);
/// Reads a replay file; throws impulse::Error (also for an unreadable file).
Replay load_replay(const std::filesystem::path& path);

}  // namespace impulse::testbed
