#pragma once
// The debug-draw toggles as lines: contacts, their normals and impulses, the broadphase tree,
// centres of mass, joints.

#include <impulse/world.h>

#include <vector>

#include "draw_options.h"
#include "line_batch.h"

namespace impulse::testbed {

void add_debug_lines(const World& world, const std::vector<DebugContact>& contacts,
                     const DrawOptions& options, LineBatch& lines);
/// Each joint as its state after the last step has it: a line from each body's centre of mass to
/// its anchor, the anchors, a red line between them when they are apart; broken joints in grey.
void add_joint_lines(const World& world, LineBatch& lines);

}  // namespace impulse::testbed
