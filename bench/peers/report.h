#pragma once
// One row per scene and engine, printed as a table or as one JSON object.

#include "quality.h"

#include <impulse/stats.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace peers {

struct Result {
  std::string scene, engine;  // engine: its name in the table (impulse@2: Impulse on two threads)
  std::string kind;           // the engine as --engines names it (impulse for impulse@2)
  double median_ms = 0, mean_ms = 0;  // wall clock
  double cpu_median_ms = 0;           // the process's CPU time: what others' load leaves out
  std::optional<double> ratio_to_bullet, cpu_ratio_to_bullet;  // over Bullet's, same scene
  // Impulse at a later --threads count: the wall-clock median of its kind at the first count
  // (the row named by the kind alone) over its own, same scene
  std::optional<double> speedup;
  double max_penetration = 0;                    // m
  std::optional<Moved> moved;                    // resting scenes only
  std::optional<double> joint_error;             // scenes with joints only, m
  std::optional<double> angle_error;             // scenes with hinges or cone-twists only, rad
  std::optional<double> worst_joint_error;       // the largest after any step, m
  std::optional<double> worst_angle_error;       // the largest after any step, rad
  std::optional<impulse::StageTimes> stages_ms;  // mean per step, for an engine that reports it
  std::optional<int> layout_changes;  // steps whose solve found its structure anew (Impulse)
  // The CPU median over those steps, and over the others (none where there are none): a median
  // over both lies where they meet when about half the steps find a new layout (the ragdolls)
  std::optional<double> cpu_median_new_layout_ms, cpu_median_same_layout_ms;
  std::optional<int> team_steps;  // steps run on more than one thread (Impulse)
  // The wall-clock median over the steps on one thread and over those on several (Impulse; none
  // where there are none): what a world measuring its steps chose between
  std::optional<double> median_alone_ms, median_team_ms;
};

/// Fills each row's ratios from the Bullet row of its scene, where there is one, and an Impulse
/// row at another thread count's speedup from its kind's row at the first count.
void add_ratios(std::vector<Result>& results);

void print_table(std::ostream& out, const std::vector<Result>& results);

/// Where each step's time went (mean ms per stage), for the engines that report it.
void print_stages(std::ostream& out, const std::vector<Result>& results);

nlohmann::json to_json(const std::vector<Result>& results);

}  // namespace peers
