#pragma once
// Built-in scenes in tests: building one (and, from support/optimised.h, skipping the long ones
// where they would take minutes).

#include <impulse/scene.h>
#include <impulse/world.h>

#include "support/optimised.h"

#include <string>

namespace impulse::testing {

inline World world_of(const std::string& name) {
  return build_world(*builtin_scene(name), name);
}

}  // namespace impulse::testing
