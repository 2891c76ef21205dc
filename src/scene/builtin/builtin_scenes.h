#pragma once
// The built-in scene library: one file per family, each listing its scenes here.

#include <impulse/scene.h>

#include <string>
#include <vector>

namespace impulse::builtin {

struct BuiltinScene {
  std::string name;
  Scene (*make)();
};

std::vector<BuiltinScene> falling_scenes();
std::vector<BuiltinScene> spinning_scenes();

/// A dynamic body of one shape at a position, the common case of every family.
BodySettings dynamic_body(std::string name, ShapeGeometry geometry, const Vec3& position);

}  // namespace impulse::builtin
