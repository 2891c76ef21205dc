#pragma once
// The replay file of `impulse run --record` (docs/replay.md), as JSON lines: one header object,
// then one object per step. The field names live here only, so that the command's writer and the
// testbed's reader cannot drift apart.

namespace impulse::replay {

inline constexpr const char* k_format_name = "impulse-replay";
inline constexpr int k_version = 1;

// The header line.
inline constexpr const char* k_format = "format";
inline constexpr const char* k_version_key = "version";
inline constexpr const char* k_name = "name";              // the scene's name
inline constexpr const char* k_timestep = "timestep";      // s
inline constexpr const char* k_body_names = "body_names";  // in the world's (the scene's) order
inline constexpr const char* k_scene = "scene";  // the scene as run, in the scene-file format

// A step line.
inline constexpr const char* k_step = "step";  // 1-based
inline constexpr const char* k_time = "time";  // s, after the step
inline constexpr const char* k_bodies = "bodies";
inline constexpr const char* k_position = "position";        // a body's, or a contact's
inline constexpr const char* k_orientation = "orientation";  // x, y, z, w
inline constexpr const char* k_contacts = "contacts";
inline constexpr const char* k_body_a = "a";  // body indices in the header's order
inline constexpr const char* k_body_b = "b";
inline constexpr const char* k_normal = "normal";
inline constexpr const char* k_depth = "depth";
inline constexpr const char* k_normal_impulse = "normal_impulse";
inline constexpr const char* k_friction_impulse = "friction_impulse";

}  // namespace impulse::replay
