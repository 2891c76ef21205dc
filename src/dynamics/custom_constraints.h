#pragma once
// The step's handling of users' custom constraints: collect their rows (before anything changes,
// so a bad row leaves the world untouched), write them into the row store with last step's
// impulses as the warm start, and store the impulses back.

#include "dynamics/world_impl.h"

namespace impulse {

/// Calls every custom constraint; throws (InvalidArgument, StaleHandle) on a bad row.
void collect_custom_rows(const World& world, World::Impl& impl, Real dt);

/// Appends the collected rows to impl.rows, each constraint one block.
void write_custom_rows(World::Impl& impl);

/// Keeps the solved impulses: the reactions of the API and the next warm start.
void store_custom_impulses(World::Impl& impl);

}  // namespace impulse
