#pragma once
// The promises the fuzzers test, as functions of the input bytes. The libFuzzer targets call them
// on generated inputs; the normal suite replays the committed corpus and every past finding
// through them. A broken promise throws std::logic_error saying which; Impulse's own errors are
// caught where the promise allows them.

#include <cstdint>
#include <span>
#include <string_view>

namespace impulse::fuzz {

/// Scene text: parse_scene succeeds or throws SceneError; what it returns saves and loads back
/// identical; build_world succeeds or throws SceneError, and the world steps.
void check_scene_text(std::string_view text);

/// A small world built from the bytes and stepped 60 times: refused calls throw InvalidArgument,
/// StaleHandle or Unsupported and leave the world unchanged; no position, orientation or velocity
/// turns non-finite when every accepted value was in range; two runs end in the same state_hash.
void check_world_bytes(std::span<const std::uint8_t> bytes);

}  // namespace impulse::fuzz
