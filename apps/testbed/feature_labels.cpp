#include "feature_labels.h"

#include <imgui.h>

#include <cstdio>

namespace impulse::testbed {

void draw_feature_labels(const std::vector<DebugContact>& contacts, const OrbitCamera& camera) {
  // ImGui draws in window coordinates, which may differ from the framebuffer's pixels.
  const float width = ImGui::GetIO().DisplaySize.x, height = ImGui::GetIO().DisplaySize.y;
  if (width <= 0 || height <= 0) return;
  const Mat4 clip_from_world = camera.projection(width / height) * camera.view();
  ImDrawList* list = ImGui::GetBackgroundDrawList();
  for (const DebugContact& c : contacts) {
    float clip[4];
    for (int row = 0; row < 4; ++row) {
      clip[row] = clip_from_world(row, 3);
      for (int k = 0; k < 3; ++k)
        clip[row] += clip_from_world(row, k) * float(c.position[k]);
    }
    if (clip[3] <= 0) continue;  // behind the camera
    const ImVec2 at{(clip[0] / clip[3] + 1) * 0.5f * width,
                    (1 - clip[1] / clip[3]) * 0.5f * height};
    char text[24];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(c.feature_id));
    list->AddText(at, c.warm ? IM_COL32(120, 230, 120, 255) : IM_COL32(255, 170, 60, 255), text);
  }
}

}  // namespace impulse::testbed
