#pragma once
// The debug-draw toggles as lines: contacts, their normals and impulses, the broadphase tree,
// centres of mass.

#include <impulse/world.h>

#include <vector>

#include "draw_options.h"
#include "line_batch.h"

namespace impulse::testbed {

void add_debug_lines(const World& world, const std::vector<DebugContact>& contacts,
                     const DrawOptions& options, LineBatch& lines);

}  // namespace impulse::testbed
