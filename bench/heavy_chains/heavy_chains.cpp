// docs/results.md's "A light chain under a heavy weight": chains of light links (builtin::
// heavy_chain) under weights of the given ratios, each released at each of the given angles, run
// without and with the joints' geometric stiffness. Prints one markdown row per chain length and
// ratio: the worst over the releases of the largest joint error at any step, and the mean over the
// releases and steps of the largest joint error, in m.
//
//   impulse_heavy_chains [--links 5,10,20] [--ratios 10,30,100,1000,10000]
//                        [--angles 0,-10,15,30,-40] [--steps 600] [--solver pgs] [--substeps 1]

#include <impulse/scene.h>
#include <impulse/settings.h>
#include <impulse/world.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "scene/builtin/builtin_scenes.h"

namespace {

using namespace impulse;

struct JointErrors {
  double worst = 0, mean = 0;
};

// The worst and the mean over the steps of one run's largest joint error.
JointErrors run_chain(Scene scene, bool geometric_stiffness, int steps) {
  scene.settings.solver.geometric_stiffness = geometric_stiffness;
  World world = build_world(scene);
  JointErrors errors;
  for (int step = 0; step < steps; ++step) {
    world.step(scene.settings.timestep);
    double largest = 0;
    for (const JointId j : world.joints())
      largest = std::max(largest, double(world.joint_state(j).error));
    errors.worst = std::max(errors.worst, largest);
    errors.mean += largest / steps;
  }
  return errors;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Light chains under heavy weights, without and with geometric stiffness"};
  std::vector<int> links{5, 10, 20};
  std::vector<double> ratios{10, 30, 100, 1000, 10000}, angles{0, -10, 15, 30, -40};
  int steps = 600, substeps = 1;
  std::string solver = "pgs";
  app.add_option("--links", links, "Links per chain")->delimiter(',')->check(CLI::Range(1, 1000));
  app.add_option("--ratios", ratios, "Weight over a link's mass")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--angles", angles, "Releases, degrees above the horizontal")
      ->delimiter(',')
      ->check(CLI::Range(-90.0, 90.0));
  app.add_option("--steps", steps, "Steps at 60 Hz per run")->check(CLI::PositiveNumber);
  app.add_option("--solver", solver, "Solver type (impulse run --help lists them)");
  app.add_option("--substeps", substeps, "Sub-steps per step")->check(CLI::Range(1, 64));
  CLI11_PARSE(app, argc, argv);
  const auto type = solver_type_from_name(solver);
  if (!type) {
    std::fprintf(stderr, "impulse_heavy_chains: unknown solver '%s' (--solver)\n", solver.c_str());
    return 2;
  }

  std::printf("| links | weight / link | without: worst / mean | with: worst / mean |\n");
  std::printf("|---|---|---|---|\n");
  for (const int n : links) {
    for (const double ratio : ratios) {
      JointErrors without, with;
      for (const double degrees : angles) {
        Scene scene = builtin::heavy_chain(n, Real(ratio), Real(degrees));
        scene.settings.solver.type = *type;
        scene.settings.solver.substeps = substeps;
        for (auto [stiffness, total] : {std::pair{false, &without}, std::pair{true, &with}}) {
          const JointErrors run = run_chain(scene, stiffness, steps);
          total->worst = std::max(total->worst, run.worst);
          total->mean += run.mean / double(angles.size());
        }
      }
      std::printf("| %d | %g | %.3f / %.4f | %.3f / %.4f |\n", n, ratio, without.worst,
                  without.mean, with.worst, with.mean);
      std::fflush(stdout);
    }
  }
  return 0;
}
