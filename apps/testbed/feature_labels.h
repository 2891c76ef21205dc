#pragma once
// Feature-id labels: each contact point's feature id (seed 001 section 8.2: what the contact cache
// matches points by) written beside it on screen, so id flips can be seen as they happen.

#include <impulse/query.h>

#include <vector>

#include "camera.h"

namespace impulse::testbed {

/// Queues the labels into ImGui's background draw list (call between NewFrame and Render).
/// Points behind the camera are skipped; warm-started points in green, new ones in orange.
void draw_feature_labels(const std::vector<DebugContact>& contacts, const OrbitCamera& camera);

}  // namespace impulse::testbed
