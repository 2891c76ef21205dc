#pragma once
// Built-in scenes in tests: building one, and skipping the long ones where they would take
// minutes.

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <string>

namespace impulse::testing {

// Long scenes take minutes unoptimised; the Release run of the test command covers them.
#ifdef NDEBUG
inline constexpr bool k_optimised = true;
#else
inline constexpr bool k_optimised = false;
#endif

inline World world_of(const std::string& name) {
  return build_world(*builtin_scene(name), name);
}

}  // namespace impulse::testing

#define SKIP_UNLESS_OPTIMISED() \
  if (!::impulse::testing::k_optimised) GTEST_SKIP() << "a long scene: run in the Release build"
