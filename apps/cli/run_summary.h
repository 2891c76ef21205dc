#pragma once
// What `impulse run` reports: the contract's --json summary and the human-readable one.

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
  // The steps whose solve found its structure anew (SolveStats::layout_changed).
  int layout_changes = 0;
  // The steps that ran on more than one thread (StepStats::threads).
  int team_steps = 0;
};

/// The summary object of scene-format.md ("--json"), keys in the contract's order.
nlohmann::ordered_json summary_json(const RunResult& run);

/// A short human-readable summary.
std::string summary_text(const RunResult& run);

}  // namespace impulse::cli
