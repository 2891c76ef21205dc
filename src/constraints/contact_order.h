#pragma once
// The order a step writes its contact manifolds' rows in, which is the order a Gauss-Seidel sweep
// visits them: first the manifolds that pushed, touch or would touch within two steps, then the
// idle ones (every point apart by more than the slop, carrying no impulse and not closing that gap
// within two steps at its approach speed), each in list order. A tower's ring neighbours hold idle
// manifolds at their inner corners; in list order they fell between the loaded contacts and cut the
// solver's batches short, so that its time followed its trajectory (docs/performance.md).
//
// The places are decided again only when the list's structure changes (a manifold comes, goes or
// gains or loses a point: the solver's layout usually changes then anyway), never by the numbers
// alone: a contact that came and went across the line would change the layout every step it did.
// An idle manifold that comes to push without such a change keeps its place at the end until the
// next: only the order of its visits differs.

#include <cstdint>
#include <span>
#include <vector>

#include "collision/contact_manager.h"
#include "dynamics/body_storage.h"

namespace impulse {

class ContactOrder {
 public:
  /// Takes this step's manifolds, its bodies' motions and velocities (the free ones, before the
  /// solve), the solver's slop (m) and the step (s); returns the manifolds' indices in the order
  /// their rows are to be written. Keeps its storage: no allocation once warmed up.
  std::span<const std::uint32_t> update(std::span<const ContactManifold> manifolds,
                                        std::span<const BodyMotion> motions,
                                        std::span<const BodyVelocity> velocities, Real slop,
                                        Real dt);

 private:
  // What the order was decided from: each manifold's shapes and point count, in list order.
  struct Entry {
    std::uint32_t shape_a, shape_b;
    int count;
    bool operator==(const Entry&) const = default;
  };
  // Takes the list's structure; returns whether it is last step's.
  bool take_structure(std::span<const ContactManifold> manifolds);

  std::vector<Entry> structure_;
  std::vector<std::uint32_t> order_;
};

}  // namespace impulse
