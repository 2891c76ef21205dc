#include "panels.h"

#include <impulse/error.h>

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace impulse::testbed {
namespace {

constexpr float k_panel_width = 300;
constexpr std::array<SolverType, 6> k_solvers{SolverType::pgs,           SolverType::global_dense,
                                              SolverType::global_sparse, SolverType::jacobi,
                                              SolverType::block,         SolverType::pivoting};
constexpr std::array<FrictionModel, 4> k_friction_models{
    FrictionModel::coulomb, FrictionModel::cone, FrictionModel::constant, FrictionModel::patch};

// A combo over an enum's values by their scene-format names; true when the choice changed.
template <typename Enum, std::size_t N, typename NameOf>
bool enum_combo(const char* label, Enum& value, const std::array<Enum, N>& values, NameOf name_of) {
  bool changed = false;
  if (ImGui::BeginCombo(label, name_of(value))) {
    for (const Enum v : values) {
      if (ImGui::Selectable(name_of(v), v == value)) {
        changed = v != value;
        value = v;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

void plot(const char* label, const Series& series, const char* unit) {
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "%.4g %s", double(series.latest()), unit);
  ImGui::PlotLines(label, series.data(), series.count(), series.offset(), overlay, FLT_MAX, FLT_MAX,
                   ImVec2(0, 50));
}

}  // namespace

SceneRequests scene_panel(ScenePanelState& state, Simulation& simulation, MouseDrag& drag,
                          BallShooter& shooter) {
  SceneRequests requests;
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(k_panel_width, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Scene");
  const std::string& current = simulation.scene().name;
  if (ImGui::BeginCombo("built-in", current.c_str())) {
    for (const std::string& name : state.builtin_names) {
      if (ImGui::Selectable(name.c_str(), name == current)) requests.load = name;
    }
    ImGui::EndCombo();
  }
  ImGui::InputText("file", &state.file_path);
  ImGui::SameLine();
  if (ImGui::Button("Load") && !state.file_path.empty()) requests.load = state.file_path;
  if (!state.error.empty()) ImGui::TextWrapped("%s", state.error.c_str());

  ImGui::Separator();
  ImGui::Checkbox("pause (P)", &simulation.paused);
  ImGui::SameLine();
  requests.step = ImGui::Button("step (N)");
  ImGui::SameLine();
  requests.reset = ImGui::Button("reset (R)");
  ImGui::SliderFloat("time scale", &simulation.time_scale, 0.05f, 1.0f, "%.2f");
  ImGui::Text("t = %.2f s, %zu bodies", simulation.world().time(), simulation.world().body_count());

  ImGui::Separator();
  ImGui::SliderFloat("drag strength", &drag.strength, 1, 200, "%.0f weights",
                     ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("ball speed", &shooter.speed, 1, 100, "%.0f m/s");
  ImGui::SliderFloat("ball radius", &shooter.radius, 0.05f, 2, "%.2f m");
  ImGui::TextDisabled("left drag: body or orbit, right: pan,\nwheel: zoom, space: shoot");
  ImGui::End();
  return requests;
}

void solver_panel(World& world) {
  ImGui::SetNextWindowPos(ImVec2(10, 330), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(k_panel_width, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Solver");
  WorldSettings settings = world.settings();
  SolverSettings& s = settings.solver;
  enum_combo("solver", s.type, k_solvers, solver_type_name);
  ImGui::SliderInt("iterations", &s.iterations, 1, 200, "%d", ImGuiSliderFlags_Logarithmic);
  ImGui::SliderInt("relax iterations", &s.relax_iterations, 0, 20);
  ImGui::SliderInt("sub-steps", &s.substeps, 1, 16);
  ImGui::SliderFloat("SOR", &s.sor, 0.1f, 1.9f, "%.2f");
  ImGui::SliderFloat("baumgarte", &s.baumgarte, 0, 1, "%.2f");
  ImGui::SliderFloat("slop", &s.slop, 0, 0.05f, "%.4f m");
  ImGui::SliderFloat("tolerance", &s.tolerance, 0, 0.1f, "%.4f", ImGuiSliderFlags_Logarithmic);
  ImGui::Checkbox("warm start", &s.warm_start);
  ImGui::SameLine();
  ImGui::Checkbox("shuffle", &s.shuffle);
  ImGui::Checkbox("geometric stiffness", &s.geometric_stiffness);
  enum_combo("friction", s.friction_model, k_friction_models, friction_model_name);
  ImGui::Checkbox("sleeping", &settings.sleeping);
  ImGui::SameLine();
  ImGui::Checkbox("gyroscopic", &settings.gyroscopic);
  if (!(settings == world.settings())) {
    try {
      world.set_settings(settings);
    } catch (const InvalidArgument&) {
      // A slider's end beyond what the solver takes: keep the last accepted settings.
    }
  }
  ImGui::End();
}

ReplayRequests replay_panel(ReplayPanelState& state, ReplayPlayer* player) {
  ReplayRequests requests;
  ImGui::SetNextWindowPos(ImVec2(320, 420), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(k_panel_width, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Replay");
  ImGui::InputText("replay", &state.file_path);
  ImGui::SameLine();
  if (ImGui::Button("Open") && !state.file_path.empty()) requests.open = state.file_path;
  if (!state.error.empty()) ImGui::TextWrapped("%s", state.error.c_str());
  if (player != nullptr) {
    ImGui::Separator();
    ImGui::Text("%s, %d steps", player->replay().scene.name.c_str(), player->frame_count());
    if (ImGui::Button(player->playing ? "pause (P)" : "play (P)")) {
      if (!player->playing && player->frame() + 1 >= player->frame_count()) player->seek(0);
      player->playing = !player->playing;
    }
    ImGui::SameLine();
    requests.close = ImGui::Button("close: back to the scene");
    int frame = player->frame();
    if (ImGui::SliderInt("frame", &frame, 0, std::max(player->frame_count() - 1, 0)))
      player->seek(frame);
    ImGui::SliderFloat("time scale", &player->time_scale, 0.05f, 2.0f, "%.2f");
    if (const ReplayFrame* current = player->current())
      ImGui::Text("step %d, t = %.3f s, %zu contacts", current->step, current->time,
                  current->contacts.size());
  }
  ImGui::End();
  return requests;
}

void debug_panel(DrawOptions& options) {
  ImGui::SetNextWindowPos(ImVec2(320, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(k_panel_width, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Debug draw");
  ImGui::Checkbox("grid", &options.grid);
  ImGui::Checkbox("islands in colours", &options.color_islands);
  ImGui::Checkbox("sleeping in grey-blue", &options.color_sleeping);
  ImGui::Checkbox("contact points", &options.contact_points);
  ImGui::Checkbox("contact normals", &options.contact_normals);
  ImGui::Checkbox("impulses", &options.contact_impulses);
  ImGui::Checkbox("feature ids", &options.feature_ids);
  if (options.contact_impulses)
    ImGui::SliderFloat("m per N s", &options.impulse_scale, 0.001f, 1, "%.3f",
                       ImGuiSliderFlags_Logarithmic);
  ImGui::Checkbox("AABBs (tree leaves)", &options.aabbs);
  ImGui::Checkbox("tree nodes", &options.tree);
  ImGui::Checkbox("centres of mass", &options.centers_of_mass);
  ImGui::Checkbox("joints", &options.joints);
  ImGui::End();
}

void plots_panel(const History& history, const World& world) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - 330, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(320, 0), ImGuiCond_FirstUseEver);
  ImGui::Begin("Plots");
  plot("kinetic", history.kinetic_energy, "J");
  plot("potential", history.potential_energy, "J");
  plot("penetration", history.max_penetration, "m");
  plot("joint error", history.max_joint_error, "m");
  const auto& residuals = history.residuals;
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, "%zu iterations, last %.3g", residuals.size(),
                residuals.empty() ? 0.0 : double(residuals.back()));
  ImGui::PlotLines("residual", residuals.data(), int(residuals.size()), 0, overlay, 0, FLT_MAX,
                   ImVec2(0, 60));
  ImGui::Separator();
  ImGui::TextUnformatted("step time split");
  for (std::size_t k = 0; k < StageTimes::k_count; ++k)
    plot(StageTimes::names[k], history.stage_ms[k], "ms");
  const StepStats& stats = world.last_step_stats();
  ImGui::Text("%zu rows, %zu contacts, cache hits %.0f%%, %zu pairs reused", stats.solve.rows,
              stats.contact_points, 100 * stats.cache_hit_rate(), stats.reused_pairs);
  ImGui::Text("rows' layout %s, %zu manifolds in lanes, sweeps on %zu thread%s",
              stats.solve.layout_changed ? "changed" : "held", stats.solve.units_batched,
              stats.solve.threads, stats.solve.threads == 1 ? "" : "s");
  ImGui::Text("mass-ratio islands: %zu solved directly, %zu left to the sweeps",
              stats.solve.ratio_islands_solved, stats.solve.ratio_islands_left);
  ImGui::End();
}

}  // namespace impulse::testbed
