#pragma once
// Range checks of settings, shared by the world's API (which throws) and the scene loader (which
// names the JSON path). A problem's path is a JSON pointer relative to the checked object, spelled
// with the scene format's keys, e.g. "/shapes/0/radius".

#include <impulse/body.h>
#include <impulse/joint.h>
#include <impulse/settings.h>

#include <optional>
#include <string>

namespace impulse {

/// The smallest length of a quaternion accepted as an orientation, or of a vector as an axis or a
/// normal, before normalising.
inline constexpr Real k_min_direction_length = Real(1e-6);

struct SettingsProblem {
  std::string path;
  std::string message;
};

std::optional<SettingsProblem> find_problem(const WorldSettings& settings);
std::optional<SettingsProblem> find_problem(const BodySettings& settings);
std::optional<SettingsProblem> find_problem(const ShapeGeometry& geometry);
/// The joint's own values (anchors, axes, limits, motor, springs, thresholds); which bodies it
/// joins is the world's to check.
std::optional<SettingsProblem> find_problem(const JointSettings& settings);

/// Throws InvalidArgument "what: path: message" when the problem is set.
void throw_if_problem(const std::optional<SettingsProblem>& problem, const char* what);

}  // namespace impulse
