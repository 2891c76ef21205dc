#pragma once
// Which island each dynamic body is in, as the testbed colours them: dynamic bodies joined by the
// last step's contacts (union-find); static bodies join nothing, as in the world's own islands.

#include <impulse/world.h>

#include <vector>

namespace impulse::testbed {

/// By body handle index: the island's number (the smallest handle index in it), or -1 for bodies
/// that are not dynamic.
std::vector<int> find_islands(const World& world, const std::vector<DebugContact>& contacts);

}  // namespace impulse::testbed
