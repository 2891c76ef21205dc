#pragma once
// The world's state behind the public World handle.

#include <impulse/world.h>

#include "dynamics/body_storage.h"

#include <map>
#include <string>
#include <vector>

namespace impulse {

struct World::Impl {
  WorldSettings settings;
  // Per slot; a removed body's slot is reused with a new generation.
  std::vector<BodyRecord> records;
  std::vector<BodyMotion> motions;
  std::vector<BodyVelocity> velocities;
  std::vector<std::uint32_t> free_slots;
  std::vector<std::uint32_t> live_slots;  // in creation order: the order of every iteration
  std::map<std::string, std::uint32_t, std::less<>> names;  // ordered: no hash-order effects
  StepStats stats;
  double time = 0;

  /// The slot of a live body; throws StaleHandle otherwise.
  std::uint32_t slot(BodyId id) const;
};

}  // namespace impulse
