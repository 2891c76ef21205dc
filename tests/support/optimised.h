#pragma once
// Skipping the long tests where they would take minutes: an unoptimised (sanitized) build.

#include <gtest/gtest.h>

namespace impulse::testing {

// Long scenes and long sweeps of problems take minutes unoptimised; the Release run of the test
// command covers them.
#ifdef NDEBUG
inline constexpr bool k_optimised = true;
#else
inline constexpr bool k_optimised = false;
#endif

}  // namespace impulse::testing

#define SKIP_UNLESS_OPTIMISED() \
  if (!::impulse::testing::k_optimised) GTEST_SKIP() << "a long test: run in the Release build"
