#pragma once
// What `impulse run` reports: the contract's --json summary and the human-readable one.

#include <impulse/diagnostics.h>
#include <impulse/scene.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace impulse::cli {

struct RunResult {
  const Scene* scene = nullptr;
  const World* world = nullptr;
  int steps = 0;
  std::vector<double> step_ms;  // wall time of each step
  StageTimes stage_ms;          // each stage's time summed over the steps
  struct JointBreak {
    int step = 0;  // 1-based: the step in which it broke
    JointBreakEvent event;
  };
  std::vector<JointBreak> joint_breaks;  // every joint break of the run, in order
  // The world's reports (World::diagnostics), by kind in the order first seen: how many over the
  // run, and the first one's step and message.
  struct Reports {
    DiagnosticKind kind = DiagnosticKind::non_finite_body;
    int count = 0;
    int first_step = 0;  // 1-based
    std::string first_message;
  };
  std::vector<Reports> reports;
  /// Adds a step's diagnostics.
  void add_reports(int step, const std::vector<Diagnostic>& diagnostics);
  // The steps whose solve found its structure anew (SolveStats::layout_changed).
  int layout_changes = 0;
  // The steps that ran on more than one thread (StepStats::threads).
  int team_steps = 0;
  // Mechanical energy (World::kinetic_energy + potential_energy), J: before the first step, and
  // the most of that and of every step's end (a passive scene's never exceeds its start's).
  double energy_start = 0, energy_most = 0;
  /// Sets both from `world` before its first step.
  void start_energy();
  /// Takes `world`'s energy after a step into energy_most.
  void add_energy();
};

/// The summary object of scene-format.md ("--json"), keys in the contract's order.
nlohmann::ordered_json summary_json(const RunResult& run);

/// A short human-readable summary.
std::string summary_text(const RunResult& run);

}  // namespace impulse::cli
