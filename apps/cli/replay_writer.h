#pragma once
// `impulse run --record FILE`: every body's transform and the contact points, one JSON line per
// step after a header line with the scene (the format: common/replay_format.h, docs/replay.md).

#include <impulse/scene.h>

#include <fstream>
#include <string>

namespace impulse::cli {

class ReplayWriter {
 public:
  /// Opens the file and writes the header for `scene`, as built into `world`; throws
  /// impulse::Error when it cannot be written.
  ReplayWriter(const std::string& path, const Scene& scene, const World& world);
  /// The line of a step just taken.
  void write(int step, const World& world);

 private:
  std::ofstream out_;
};

}  // namespace impulse::cli
