#include "run_summary.h"

#include "scene/json_values.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace impulse::cli {
namespace {

struct Timing {
  double median = 0, mean = 0;
};

Timing timing_of(std::vector<double> ms) {
  if (ms.empty()) return {};
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
  const auto mid = ms.begin() + std::ptrdiff_t(ms.size() / 2);
  std::nth_element(ms.begin(), mid, ms.end());
  double median = *mid;
  if (ms.size() % 2 == 0) median = 0.5 * (median + *std::max_element(ms.begin(), mid));
  return {median, mean};
}

using Json = nlohmann::ordered_json;

Json vec(const Vec3& v) {
  return json_vec3<Json>(v);
}
Json quat(const Quat& q) {
  return json_quat<Json>(q);
}

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// Each stage's mean time over the run's steps.
StageTimes mean_stages(const RunResult& run) {
  return run.steps > 0 ? run.stage_ms / double(run.steps) : StageTimes{};
}

// Unnamed bodies and joints are reported by their index (scene-format.md).
std::string name_or_index(const std::string& name, std::size_t index) {
  return name.empty() ? std::to_string(index) : name;
}

}  // namespace

void RunResult::add_reports(int step, const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics) {
    auto it = std::find_if(reports.begin(), reports.end(),
                           [&](const Reports& r) { return r.kind == d.kind; });
    if (it == reports.end()) it = reports.insert(reports.end(), {d.kind, 0, step, d.message});
    ++it->count;
  }
}

namespace {

double mechanical_energy(const World& world) {
  return world.kinetic_energy() + world.potential_energy();
}

}  // namespace

void RunResult::start_energy() {
  energy_start = energy_most = mechanical_energy(*world);
}

void RunResult::add_energy() {
  energy_most = std::max(energy_most, mechanical_energy(*world));
}

nlohmann::ordered_json summary_json(const RunResult& run) {
  const World& world = *run.world;
  const Timing timing = timing_of(run.step_ms);
  const StepStats& stats = world.last_step_stats();
  nlohmann::ordered_json out;
  out["scene"] = run.scene->name;
  out["steps"] = run.steps;
  out["time"] = world.time();
  out["timestep"] = json_number<Json>(world.settings().timestep);
  out["solver"] = {{"type", solver_type_name(world.settings().solver.type)},
                   {"iterations", world.settings().solver.iterations},
                   {"friction_model", friction_model_name(world.settings().solver.friction_model)},
                   {"final_residual", stats.solve.final_residual},
                   {"iterations_last_step", stats.solve.iterations},
                   {"rows", stats.solve.rows},
                   {"complementarity_error", stats.solve.complementarity_error},
                   {"layout_changes", run.layout_changes},
                   {"units_batched", stats.solve.units_batched},
                   {"ratio_islands_solved", stats.solve.ratio_islands_solved},
                   {"ratio_islands_left", stats.solve.ratio_islands_left},
                   {"threads", stats.solve.threads}};
  out["timing"] = {{"ms_per_step_median", timing.median},
                   {"ms_per_step_mean", timing.mean},
                   {"team_steps", run.team_steps}};
  Json stages = Json::object();
  const StageTimes mean = mean_stages(run);
  for (std::size_t k = 0; k < StageTimes::k_count; ++k)
    stages[StageTimes::names[k]] = mean.ms[k];
  out["timing"]["stages_ms_mean"] = std::move(stages);
  out["energy"] = {{"kinetic", world.kinetic_energy()},
                   {"potential", world.potential_energy()},
                   {"start", run.energy_start},
                   {"most", run.energy_most}};
  out["max_penetration"] = stats.max_penetration;
  out["contacts"] = {{"pairs", stats.contact_pairs},
                     {"manifolds", stats.contact_manifolds},
                     {"points", stats.contact_points},
                     {"cache_hit_rate", stats.cache_hit_rate()},
                     {"reused_pairs", stats.reused_pairs}};
  out["max_joint_error"] = stats.max_joint_error;
  out["max_joint_angular_error"] = stats.max_joint_angular_error;
  nlohmann::ordered_json bodies = nlohmann::ordered_json::array();
  const std::vector<BodyId> ids = world.bodies();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Transform t = world.transform(ids[i]);
    bodies.push_back({{"name", name_or_index(world.name(ids[i]), i)},
                      {"position", vec(t.position)},
                      {"orientation", quat(t.orientation)},
                      {"linear_velocity", vec(world.linear_velocity(ids[i]))},
                      {"angular_velocity", vec(world.angular_velocity(ids[i]))},
                      {"asleep", world.is_asleep(ids[i])}});
  }
  out["bodies"] = std::move(bodies);
  // The world lists joints in creation order, which is the scene's order.
  const std::vector<JointId> joint_ids = world.joints();
  const auto joint_name = [&](JointId id) {
    const auto it = std::find(joint_ids.begin(), joint_ids.end(), id);
    return name_or_index(world.joint_settings(id).name, std::size_t(it - joint_ids.begin()));
  };
  nlohmann::ordered_json joints = nlohmann::ordered_json::array();
  for (const JointId id : joint_ids) {
    const JointState& state = world.joint_state(id);
    joints.push_back({{"name", joint_name(id)},
                      {"type", joint_type_name(world.joint_settings(id).type)},
                      {"broken", state.broken},
                      {"error", state.error},
                      {"angular_error", state.angular_error},
                      {"force", vec(state.force)},
                      {"torque", vec(state.torque)}});
  }
  out["joints"] = std::move(joints);
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const RunResult::JointBreak& b : run.joint_breaks) {
    events.push_back({{"step", b.step},
                      {"type", "joint_broken"},
                      {"joint", joint_name(b.event.joint)},
                      {"force", vec(b.event.force)},
                      {"torque", vec(b.event.torque)}});
  }
  out["events"] = std::move(events);
  nlohmann::ordered_json reports = nlohmann::ordered_json::array();
  for (const RunResult::Reports& r : run.reports) {
    reports.push_back({{"kind", diagnostic_kind_name(r.kind)},
                       {"count", r.count},
                       {"first_step", r.first_step},
                       {"first_message", r.first_message}});
  }
  out["diagnostics"] = std::move(reports);
  out["state_hash"] = hex(world.state_hash());
  return out;
}

std::string summary_text(const RunResult& run) {
  const World& world = *run.world;
  const StepStats& stats = world.last_step_stats();
  const Timing timing = timing_of(run.step_ms);
  std::ostringstream out;
  out << "scene       " << run.scene->name << "\n"
      << "steps       " << run.steps << " x " << world.settings().timestep
      << " s = " << world.time() << " s\n"
      << "solver      " << solver_type_name(world.settings().solver.type) << ", "
      << world.settings().solver.iterations << " iterations, the rows' layout changed in "
      << run.layout_changes << " of " << run.steps << " steps\n"
      << "time/step   " << timing.median << " ms median, " << timing.mean << " ms mean, "
      << run.team_steps << " of " << run.steps << " steps on " << world.threads() << " threads\n"
      << "stages      ";
  const StageTimes mean = mean_stages(run);
  for (std::size_t k = 0; k < StageTimes::k_count; ++k)
    out << StageTimes::names[k] << " " << mean.ms[k] << ", ";
  out << "ms, mean\n"
      << "energy      kinetic " << world.kinetic_energy() << " J, potential "
      << world.potential_energy() << " J; kinetic and potential " << run.energy_start
      << " J at the start, " << run.energy_most << " J at the most\n"
      << "contacts    " << stats.contact_points << " points in " << stats.contact_manifolds
      << " manifolds, " << stats.cache_hit_rate() * 100 << "% warm, " << stats.reused_pairs
      << " pairs reused, deepest " << stats.max_penetration << " m\n"
      << "bodies      " << world.body_count() << "\n";
  const std::vector<BodyId> ids = world.bodies();
  constexpr std::size_t k_listed = 10;
  for (std::size_t i = 0; i < std::min(ids.size(), k_listed); ++i) {
    const Vec3 p = world.position(ids[i]);
    const Vec3 v = world.linear_velocity(ids[i]);
    out << "  " << name_or_index(world.name(ids[i]), i) << "  position (" << p.x << ", " << p.y
        << ", " << p.z << ")  velocity (" << v.x << ", " << v.y << ", " << v.z << ")\n";
  }
  if (ids.size() > k_listed) out << "  ... " << ids.size() - k_listed << " more\n";
  for (const RunResult::Reports& r : run.reports) {
    out << "reported    " << diagnostic_kind_name(r.kind) << " " << r.count
        << " times, first at step " << r.first_step << ": " << r.first_message << "\n";
  }
  out << "state_hash  " << hex(world.state_hash()) << "\n";
  return out.str();
}

}  // namespace impulse::cli
