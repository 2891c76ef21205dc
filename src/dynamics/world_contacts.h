#pragma once
// The step's contact stages (DESIGN.md steps 1-3, 5 and 9): keep the bodies' shapes in the
// broadphase, find and cache contacts, write their rows, and store the solved impulses.

#include "dynamics/world_impl.h"

namespace impulse {

/// Puts a new body's cooked shapes into the broadphase at its pose.
void add_body_shapes(World::Impl& impl, std::uint32_t slot, std::vector<CookedShape> shapes);
/// Takes a body's shapes out, with their pairs and contacts.
void remove_body_shapes(World::Impl& impl, std::uint32_t slot);
/// Moves a body's shapes to its pose (set there, not moving: the step's broadphase places them
/// again with its motion).
void move_body_shapes(World::Impl& impl, std::uint32_t slot);

/// The broadphase: moves every awake movable body's shapes and finds the new candidate pairs.
void find_pairs(World::Impl& impl, Real dt);
/// The narrowphase: manifolds for the pairs that need them, matched to the cache.
void find_contacts(World::Impl& impl);
/// Appends the contact rows, from the velocities after this step's forces (as Box2D does).
/// Restitution's collision pass (constraints/impact_pass.h) on this step's velocities, before
/// the contact rows are written.
void resolve_contact_impacts(World::Impl& impl, Real dt);

void write_contact_rows(World::Impl& impl, Real dt);
/// Stores the solved impulses in the cache: the next step's warm start.
void store_contact_impulses(World::Impl& impl, Real dt);

}  // namespace impulse
