// The table and the JSON of the results.

#include "report.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace peers {
namespace {

std::string format(const char* spec, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, spec, value);
  return buffer;
}

std::string format_cell(const char* spec, const char* text) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, text);
  return buffer;
}

nlohmann::json stages_json(const std::optional<impulse::StageTimes>& stages) {
  if (!stages) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < impulse::StageTimes::k_count; ++k)
    out[impulse::StageTimes::names[k]] = stages->ms[k];
  return out;
}

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

void add_ratios(std::vector<Result>& results) {
  for (Result& r : results) {
    for (const Result& other : results) {
      if (other.scene != r.scene) continue;
      if (other.engine == "bullet") {
        r.ratio_to_bullet = r.median_ms / other.median_ms;
        r.cpu_ratio_to_bullet = r.cpu_median_ms / other.cpu_median_ms;
      }
      if (r.engine != r.kind && other.engine == r.kind) r.speedup = other.median_ms / r.median_ms;
    }
  }
}

void print_table(std::ostream& out, const std::vector<Result>& results) {
  const char* header = "%-10s %-16s %10s %10s %9s %10s %9s %8s %10s %11s %12s %14s %12s %14s\n";
  char line[256];
  std::snprintf(line, sizeof line, header, "scene", "engine", "median ms", "mean ms", "x bullet",
                "cpu ms", "cpu x", "speedup", "max pen m", "moved/fell", "joint err m",
                "angle err rad", "worst jnt m", "worst ang rad");
  out << line;
  for (const Result& r : results) {
    const std::string ratio = r.ratio_to_bullet ? format("%.2f", *r.ratio_to_bullet) : "-";
    const std::string cpu_ratio =
        r.cpu_ratio_to_bullet ? format("%.2f", *r.cpu_ratio_to_bullet) : "-";
    const std::string speedup = r.speedup ? format("%.2f", *r.speedup) : "-";
    const std::string moved =
        r.moved ? std::to_string(r.moved->moved) + "/" + std::to_string(r.moved->fell) : "-";
    const auto figure = [](const std::optional<double>& x) {
      return x ? format("%.4f", *x) : std::string("-");
    };
    std::snprintf(line, sizeof line, header, r.scene.c_str(), r.engine.c_str(),
                  format("%.3f", r.median_ms).c_str(), format("%.3f", r.mean_ms).c_str(),
                  ratio.c_str(), format("%.3f", r.cpu_median_ms).c_str(), cpu_ratio.c_str(),
                  speedup.c_str(), format("%.4f", r.max_penetration).c_str(), moved.c_str(),
                  figure(r.joint_error).c_str(), figure(r.angle_error).c_str(),
                  figure(r.worst_joint_error).c_str(), figure(r.worst_angle_error).c_str());
    out << line;
  }
}

void print_stages(std::ostream& out, const std::vector<Result>& results) {
  out << "\nmean ms per step by stage (impulse run --json's timing.stages_ms_mean), the steps\n"
         "whose solve found its structure anew (new_layout: solver.layout_changes) and the CPU\n"
         "median of those steps and of the others (new_ms, same_ms), the steps that ran on\n"
         "more than one thread (team_steps: World::set_thread_use) and the wall-clock median of\n"
         "those and of the steps on one thread (team_ms, alone_ms)\n";
  out << format_cell("%-10s ", "scene") << format_cell("%-16s", "engine");
  for (const char* name : impulse::StageTimes::names)
    out << ' ' << name;
  out << " new_layout   new_ms  same_ms team_steps  team_ms alone_ms\n";
  for (const Result& r : results) {
    if (!r.stages_ms) continue;
    out << format_cell("%-10s ", r.scene.c_str()) << format_cell("%-16s", r.engine.c_str());
    for (std::size_t k = 0; k < impulse::StageTimes::k_count; ++k) {
      const std::string value = format("%.4f", r.stages_ms->ms[k]);  // right-aligned under its name
      const std::size_t width = std::strlen(impulse::StageTimes::names[k]);
      out << ' ' << std::string(std::max(width, value.size()) - value.size(), ' ') << value;
    }
    out << format_cell(" %10s", r.layout_changes ? std::to_string(*r.layout_changes).c_str() : "-");
    for (const std::optional<double>& ms :
         {r.cpu_median_new_layout_ms, r.cpu_median_same_layout_ms})
      out << format_cell(" %8s", ms ? format("%.4f", *ms).c_str() : "-");
    out << format_cell(" %10s", r.team_steps ? std::to_string(*r.team_steps).c_str() : "-");
    for (const std::optional<double>& ms : {r.median_team_ms, r.median_alone_ms})
      out << format_cell(" %8s", ms ? format("%.4f", *ms).c_str() : "-");
    out << '\n';
  }
}

nlohmann::json to_json(const std::vector<Result>& results) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Result& r : results) {
    rows.push_back({{"scene", r.scene},
                    {"engine", r.engine},
                    {"median_ms", r.median_ms},
                    {"mean_ms", r.mean_ms},
                    {"ratio_to_bullet", optional_json(r.ratio_to_bullet)},
                    {"cpu_median_ms", r.cpu_median_ms},
                    {"cpu_ratio_to_bullet", optional_json(r.cpu_ratio_to_bullet)},
                    {"threads_speedup", optional_json(r.speedup)},
                    {"max_penetration_m", r.max_penetration},
                    {"moved", r.moved ? nlohmann::json(r.moved->moved) : nlohmann::json(nullptr)},
                    {"fell", r.moved ? nlohmann::json(r.moved->fell) : nlohmann::json(nullptr)},
                    {"joint_error_m", optional_json(r.joint_error)},
                    {"angle_error_rad", optional_json(r.angle_error)},
                    {"worst_joint_error_m", optional_json(r.worst_joint_error)},
                    {"worst_angle_error_rad", optional_json(r.worst_angle_error)},
                    {"stages_ms_mean", stages_json(r.stages_ms)},
                    {"layout_changes", optional_json(r.layout_changes)},
                    {"cpu_median_new_layout_ms", optional_json(r.cpu_median_new_layout_ms)},
                    {"cpu_median_same_layout_ms", optional_json(r.cpu_median_same_layout_ms)},
                    {"team_steps", optional_json(r.team_steps)},
                    {"median_team_ms", optional_json(r.median_team_ms)},
                    {"median_alone_ms", optional_json(r.median_alone_ms)}});
  }
  return rows;
}

}  // namespace peers
