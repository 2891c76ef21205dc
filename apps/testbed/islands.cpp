#include "islands.h"

#include <algorithm>
#include <numeric>

namespace impulse::testbed {
namespace {

int root(std::vector<int>& parent, int i) {
  while (parent[std::size_t(i)] != i) {
    parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];  // path halving
    i = parent[std::size_t(i)];
  }
  return i;
}

}  // namespace

std::vector<int> find_islands(const World& world, const std::vector<DebugContact>& contacts) {
  const std::vector<BodyId> bodies = world.bodies();
  std::size_t size = 0;
  for (const BodyId id : bodies)
    size = std::max(size, std::size_t(id.index) + 1);
  std::vector<int> parent(size);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> dynamic(size, false);
  for (const BodyId id : bodies)
    dynamic[id.index] = world.type(id) == BodyType::dynamic_body;
  for (const DebugContact& c : contacts) {
    if (!world.is_valid(c.body_a) || !world.is_valid(c.body_b)) continue;
    if (!dynamic[c.body_a.index] || !dynamic[c.body_b.index]) continue;
    const int a = root(parent, int(c.body_a.index)), b = root(parent, int(c.body_b.index));
    parent[std::size_t(std::max(a, b))] = std::min(a, b);  // the smallest index names the island
  }
  std::vector<int> island(size, -1);
  for (const BodyId id : bodies) {
    if (dynamic[id.index]) island[id.index] = root(parent, int(id.index));
  }
  return island;
}

}  // namespace impulse::testbed
