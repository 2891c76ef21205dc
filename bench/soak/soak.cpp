// Issue 9's soak: the built-in "soak" scene (500 dynamic bodies: ragdolls and a stirred pile)
// stepped for a long run while bodies are removed and created, checking that no state turns
// non-finite and measuring the heap in use (glibc's mallinfo2) and the resident set. Exits 1 on a
// non-finite body or when the heap in use grew by more than --max-growth-kib after warm-up.
//
//   impulse_soak [--steps N] [--report-every K] [--max-growth-kib G]

#include <impulse/scene.h>
#include <impulse/world.h>

#include <CLI/CLI.hpp>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

using namespace impulse;

constexpr int k_warm_up_steps = 1000;
constexpr int k_churn_every = 100;  // steps between removing a piece and dropping in a new one

double heap_in_use_mib() {
  return double(mallinfo2().uordblks) / (1024.0 * 1024.0);
}

double resident_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

bool every_body_finite(const World& world) {
  for (const BodyId id : world.bodies()) {
    const Transform t = world.transform(id);
    if (!is_finite(t.position) || !is_finite(t.orientation) ||
        !is_finite(world.linear_velocity(id)) || !is_finite(world.angular_velocity(id)))
      return false;
  }
  return true;
}

// Inside the bin's walls (5 m from the centre) and above the ground.
bool in_bin(const Vec3& p) {
  return std::abs(p.x) < 5 && std::abs(p.z) < 5 && p.y > -1;
}

// Removes the oldest piece still in the world and drops a new one of the next shape into the bin.
void churn(World& world, int round) {
  const std::vector<BodyId> bodies = world.bodies();
  const auto piece = std::find_if(bodies.begin(), bodies.end(),
                                  [&](BodyId id) { return world.name(id).starts_with("piece"); });
  if (piece == bodies.end()) return;
  BodySettings settings = world.body_settings(*piece);
  world.remove_body(*piece);
  settings.name = "piece-r" + std::to_string(round);
  settings.position = {Real(round % 7 - 3), 5, Real(round % 5 - 2)};
  settings.orientation = Quat::identity();
  settings.linear_velocity = settings.angular_velocity = Vec3::zero();
  world.create_body(settings);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 100000, report_every = 10000;
  double max_growth_kib = 256;
  CLI::App app{"Soak: the built-in scene \"soak\" for a long run, memory measured"};
  app.add_option("--steps", steps, "Steps to run")->check(CLI::PositiveNumber);
  app.add_option("--report-every", report_every, "Steps between lines of the table")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-growth-kib", max_growth_kib,
                 "Largest growth of the heap in use after warm-up that passes, KiB");
  CLI11_PARSE(app, argc, argv);

  World world = build_world(*builtin_scene("soak"), "soak");
  const double dt = world.settings().timestep;
  double heap_after_warm_up = 0, peak_heap = 0;
  std::size_t frozen = 0, clamped = 0;
  std::printf("%8s %10s %10s %12s %8s %8s\n", "step", "heap MiB", "RSS MiB", "kinetic J", "asleep",
              "outside");
  for (int i = 1; i <= steps; ++i) {
    world.step(Real(dt));
    for (const Diagnostic& d : world.diagnostics()) {
      frozen += d.kind == DiagnosticKind::non_finite_body;
      clamped += d.kind == DiagnosticKind::velocity_clamped;
    }
    if (i % k_churn_every == 0) churn(world, i / k_churn_every);
    if (frozen > 0 || (i % 100 == 0 && !every_body_finite(world))) {
      std::printf("step %d: a body's state is not finite (%zu frozen)\n", i, frozen);
      return 1;
    }
    const double heap = heap_in_use_mib();
    if (i == k_warm_up_steps) heap_after_warm_up = heap;
    if (i > k_warm_up_steps) peak_heap = std::max(peak_heap, heap);
    if (i % report_every == 0 || i == steps) {
      std::size_t asleep = 0, outside = 0;
      for (const BodyId id : world.bodies()) {
        asleep += world.is_asleep(id);
        outside += world.type(id) == BodyType::dynamic_body && !in_bin(world.position(id));
      }
      std::printf("%8d %10.3f %10.1f %12.1f %8zu %8zu\n", i, heap, resident_mib(),
                  world.kinetic_energy(), asleep, outside);
    }
  }
  const double growth_kib = (peak_heap - heap_after_warm_up) * 1024.0;
  std::printf(
      "bodies %zu, joints %zu; heap in use after %d steps %.3f MiB, largest after %.3f "
      "MiB (growth %.1f KiB); velocity clamps %zu; no non-finite state\n",
      world.body_count(), world.joints().size(), k_warm_up_steps, heap_after_warm_up, peak_heap,
      growth_kib, clamped);
  if (steps > k_warm_up_steps && growth_kib > max_growth_kib) {
    std::printf("the heap grew by more than %.0f KiB after warm-up\n", max_growth_kib);
    return 1;
  }
  return 0;
}
