#pragma once
// Which bodies may touch: a body's collision filter, the rule of Box2D's filters and of Bullet's
// groups and masks, with Box2D's group for a ragdoll whose parts never meet one another.

#include <cstdint>

namespace impulse {

struct CollisionFilter {
  std::uint32_t category = 1;              ///< the bits this body is
  std::uint32_t mask = ~std::uint32_t(0);  ///< the bits of the bodies it touches
  /// 0: none. Two bodies of the same group > 0 always touch, of the same group < 0 never (the
  /// masks aside); otherwise each one's category must be in the other's mask.
  std::int32_t group = 0;
  friend constexpr bool operator==(const CollisionFilter&, const CollisionFilter&) = default;
};

/// Whether bodies with these filters may touch: the rule above, symmetric.
constexpr bool filters_collide(const CollisionFilter& a, const CollisionFilter& b) {
  if (a.group != 0 && a.group == b.group) return a.group > 0;
  return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

}  // namespace impulse
