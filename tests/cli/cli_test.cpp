// The `impulse` command against the contract of scene-format.md: exit statuses, error lines and
// the --json summary.

#include <impulse/scene.h>
#include <impulse/world.h>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#ifdef IMPULSE_CLI_PATH

namespace impulse {
namespace {

struct CommandResult {
  int exit_status = -1;
  bool signalled = false;
  std::string out;  // standard output
  std::string err;  // standard error
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

CommandResult run_cli(const std::string& arguments) {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path();
  const auto err_file =
      dir / ("impulse_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string command =
      std::string(IMPULSE_CLI_PATH) + " " + arguments + " 2>" + err_file.string();
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.signalled = WIFSIGNALED(status);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(err_file);
  std::filesystem::remove(err_file);
  return result;
}

int count_lines(const std::string& text) {
  return int(std::count(text.begin(), text.end(), '\n'));
}

TEST(Cli, ScenesListsEveryBuiltinSceneOneALine) {
  const CommandResult r = run_cli("scenes");
  ASSERT_EQ(r.exit_status, 0);
  std::string expected;
  for (const std::string& name : builtin_scene_names())
    expected += name + "\n";
  EXPECT_EQ(r.out, expected);
}

TEST(Cli, RunJsonHoldsEveryFieldOfTheContract) {
  const CommandResult r = run_cli("run free-fall --steps 60 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);  // exactly one object
  for (const char* key : {"scene", "steps", "time", "timestep", "solver", "timing", "energy",
                          "max_penetration", "max_joint_error", "bodies", "joints", "state_hash"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["scene"], "free-fall");
  EXPECT_EQ(j["steps"], 60);
  EXPECT_NEAR(j["time"].get<double>(), 1.0, 1e-5);
  for (const char* key : {"type", "iterations", "final_residual"})
    EXPECT_TRUE(j["solver"].contains(key)) << key;
  EXPECT_EQ(j["solver"]["final_residual"], 0);  // a falling sphere has no rows
  EXPECT_TRUE(j["timing"].contains("ms_per_step_median"));
  EXPECT_TRUE(j["timing"].contains("ms_per_step_mean"));
  EXPECT_TRUE(j["energy"].contains("kinetic"));
  EXPECT_TRUE(j["energy"].contains("potential"));
  EXPECT_EQ(j["state_hash"].get<std::string>().size(), 16u);

  const Scene scene = *builtin_scene("free-fall");
  ASSERT_EQ(j["bodies"].size(), scene.bodies.size());
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const auto& body = j["bodies"][i];
    EXPECT_EQ(body["name"], scene.bodies[i].name);  // file order
    EXPECT_EQ(body["position"].size(), 3u);
    EXPECT_EQ(body["orientation"].size(), 4u);
    EXPECT_EQ(body["linear_velocity"].size(), 3u);
    EXPECT_EQ(body["angular_velocity"].size(), 3u);
    EXPECT_TRUE(body["asleep"].is_boolean());
  }
  // The sphere fell for one second from 10 m: semi-implicit Euler's 61/60 of g t^2 / 2.
  EXPECT_NEAR(j["bodies"][1]["position"][1].get<double>(), 10 - 9.81 * 61 / 120.0, 1e-4);
}

// The summary's energy at the start and at its most over the run, which the end misses: the
// catapult's motor throws its load (its energy rises from 306 J to some 1400) and the load's
// landing takes some back by the end of two seconds. The summary's figures are those of the same
// scene stepped here, after every step.
TEST(Cli, RunJsonGivesTheMechanicalEnergyAtTheStartAndAtItsMost) {
  const CommandResult r = run_cli("run catapult --steps 120 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json energy = nlohmann::json::parse(r.out)["energy"];
  World world = build_world(*builtin_scene("catapult"));
  const auto mechanical = [&] { return world.kinetic_energy() + world.potential_energy(); };
  const double start = mechanical();
  double most = start;
  for (int i = 0; i < 120; ++i) {
    world.step(world.settings().timestep);
    most = std::max(most, mechanical());
  }
  EXPECT_DOUBLE_EQ(energy["start"].get<double>(), start);
  EXPECT_DOUBLE_EQ(energy["most"].get<double>(), most);
  EXPECT_GT(most, start + 500);
  EXPECT_GT(most, energy["kinetic"].get<double>() + energy["potential"].get<double>() + 100);
}

// The summary's profile: every stage's mean, which together take no more than the mean step.
TEST(Cli, RunJsonGivesEachStagesMeanTimeWithinTheStepsMean) {
  const CommandResult r = run_cli("run pyramid --steps 20 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json timing = nlohmann::json::parse(r.out)["timing"];
  ASSERT_TRUE(timing.contains("stages_ms_mean"));
  const nlohmann::json& stages = timing["stages_ms_mean"];
  double sum = 0;
  for (const char* key : {"broadphase", "narrowphase", "integrate_velocities", "rows", "solver",
                          "relax", "store", "integrate_positions"}) {
    ASSERT_TRUE(stages.contains(key)) << key;
    EXPECT_GE(stages[key].get<double>(), 0) << key;
    sum += stages[key].get<double>();
  }
  EXPECT_EQ(stages.size(), 8u);
  EXPECT_GT(stages["solver"].get<double>(), 0);  // 4800 rows a step
  EXPECT_LE(sum, timing["ms_per_step_mean"].get<double>());
}

// A resting pyramid keeps its contacts' layout after the first step, and its last step visits
// most of its 400 manifolds four at a time.
TEST(Cli, RunJsonCountsTheStepsWhoseRowsLayoutChanged) {
  const CommandResult r = run_cli("run pyramid --steps 20 --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json solver = nlohmann::json::parse(r.out)["solver"];
  EXPECT_EQ(solver["layout_changes"], 1);
  EXPECT_GT(solver["units_batched"].get<int>(), 300);
  EXPECT_EQ(solver["threads"], 1);
  const CommandResult falling = run_cli("run free-fall --steps 20 --json");
  EXPECT_EQ(nlohmann::json::parse(falling.out)["solver"]["layout_changes"], 0);  // no rows
}

// On two threads the pyramid's sweeps are shared by both (its 4800 rows in two parts).
TEST(Cli, RunJsonSaysHowManyThreadsSharedTheSweeps) {
  const CommandResult r = run_cli("run pyramid --steps 5 --json --threads 2");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["solver"]["threads"], 2);
}

// timing.team_steps: the steps run on more than one thread. Measured (the default), the world's
// first 24 steps settle on the team (8) and then try blocks of four alone, team, team, alone
// (TeamChoice), whatever they measure; with --every-step-on-threads every step is the team's.
TEST(Cli, RunJsonSaysHowManyStepsRanOnTheThreads) {
  const auto team_steps = [](const std::string& args) {
    const CommandResult r = run_cli("run seed001-stack10 --steps 24 --json " + args);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    return nlohmann::json::parse(r.out)["timing"]["team_steps"].get<int>();
  };
  EXPECT_EQ(team_steps(""), 0);
  EXPECT_EQ(team_steps("--threads 2"), 16);
  EXPECT_EQ(team_steps("--threads 2 --every-step-on-threads"), 24);
}

TEST(Cli, SameRunTwiceGivesTheSameStateHash) {
  const auto hash = [](const std::string& args) {
    return nlohmann::json::parse(run_cli(args).out)["state_hash"].get<std::string>();
  };
  EXPECT_EQ(hash("run dzhanibekov --steps 300 --json"), hash("run dzhanibekov --steps 300 --json"));
  EXPECT_EQ(hash("run dzhanibekov --steps 300 --json"),
            hash("run dzhanibekov --steps 300 --json --threads 2"));
  EXPECT_NE(hash("run dzhanibekov --steps 300 --json"), hash("run dzhanibekov --steps 301 --json"));
}

TEST(Cli, ExportedSceneRunsLikeTheBuiltin) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("impulse_export_" + std::to_string(::getpid()) + ".json");
  ASSERT_EQ(run_cli("export dzhanibekov " + file.string()).exit_status, 0);
  const auto from_file =
      nlohmann::json::parse(run_cli("run " + file.string() + " --steps 100 --json").out);
  const auto builtin = nlohmann::json::parse(run_cli("run dzhanibekov --steps 100 --json").out);
  EXPECT_EQ(from_file["state_hash"], builtin["state_hash"]);
  std::filesystem::remove(file);
}

// --trace lists every iteration's residual (the solver is asked to measure each) and changes no
// result: the same state as a run without it.
TEST(Cli, TraceListsEveryIterationAndChangesNothing) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("impulse_trace_" + std::to_string(::getpid()) + ".csv");
  const auto traced = nlohmann::json::parse(
      run_cli("run pyramid --steps 3 --iterations 7 --json --trace " + file.string()).out);
  const auto plain =
      nlohmann::json::parse(run_cli("run pyramid --steps 3 --iterations 7 --json").out);
  EXPECT_EQ(traced["state_hash"], plain["state_hash"]);
  // A header, then per step the warm start (iteration 0) and iterations 1 to 7.
  EXPECT_EQ(count_lines(read_file(file)), 1 + 3 * 8);
  std::filesystem::remove(file);
}

// The summary's residual is the last step's, measured (the world measures only when asked).
TEST(Cli, RunReportsTheLastStepsMeasuredResidual) {
  const auto j = nlohmann::json::parse(run_cli("run pyramid --steps 30 --json").out);
  EXPECT_GT(j["solver"]["final_residual"].get<double>(), 0);
  EXPECT_LT(j["solver"]["final_residual"].get<double>(), 1);
}

TEST(Cli, OverridesAreAppliedAndBadOnesRefused) {
  const auto j = nlohmann::json::parse(
      run_cli("run free-fall --steps 1 --solver jacobi --iterations 7 --json").out);
  EXPECT_EQ(j["solver"]["type"], "jacobi");
  EXPECT_EQ(j["solver"]["iterations"], 7);
  EXPECT_EQ(j["solver"]["friction_model"], "coulomb");
  // The patch model writes 3 friction rows a manifold instead of 2 a point: the pyramid's 400
  // manifolds of four points take 2800 rows rather than 4800.
  for (const auto& [model, rows] : {std::pair{"coulomb", 4800}, std::pair{"patch", 2800}}) {
    const auto run = nlohmann::json::parse(
        run_cli(std::string("run pyramid --steps 2 --json --friction-model ") + model).out);
    EXPECT_EQ(run["solver"]["friction_model"], model);
    EXPECT_EQ(run["contacts"]["manifolds"], 400);
    EXPECT_EQ(run["contacts"]["points"], 1600);
    EXPECT_EQ(run["solver"]["rows"], rows) << model;
  }
  for (const char* args : {"run free-fall --solver nonsense", "run free-fall --iterations 0",
                           "run free-fall --friction-model sticky", "run free-fall --steps -3",
                           "run free-fall --threads 0", "run no-such-scene", "frobnicate",
                           "export no-such-scene /tmp/x.json"}) {
    const CommandResult r = run_cli(args);
    EXPECT_EQ(r.exit_status, 2) << args;
    EXPECT_FALSE(r.signalled) << args;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

// Every file of tests/data/bad: exit status 2, one line on standard error naming the file and the
// JSON path, nothing on standard output, never a signal.
TEST(Cli, BadSceneFilesExitTwoWithOneLineNamingFileAndPath) {
  const std::filesystem::path dir = std::filesystem::path(IMPULSE_TEST_DATA_DIR) / "bad";
  const nlohmann::json expected = nlohmann::json::parse(read_file(dir / "expected.json"));
  ASSERT_GE(expected.size(), 15u);
  for (const auto& [file, pointer] : expected.items()) {
    const std::string path = (dir / file).string();
    const CommandResult r = run_cli("run " + path + " --json");
    EXPECT_EQ(r.exit_status, 2) << file;
    EXPECT_FALSE(r.signalled) << file;
    EXPECT_TRUE(r.out.empty()) << file;
    EXPECT_EQ(count_lines(r.err), 1) << file << ": " << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(pointer.get<std::string>() + ":"), std::string::npos)
        << file << ": " << r.err;
  }
}

TEST(Cli, UnreadableFileIsBadInput) {
  const CommandResult r = run_cli("run /nonexistent/dir/scene.json");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_EQ(count_lines(r.err), 1);
}

// The replay of docs/replay.md: a header line, then a line per step whose transforms are the run's.
TEST(Cli, RecordWritesAHeaderAndOneLinePerStepEndingWhereTheRunEnds) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("impulse_replay_" + std::to_string(::getpid()) + ".jsonl");
  const CommandResult r = run_cli("run pyramid --steps 10 --json --record " + file.string());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  std::ifstream in(file);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(nlohmann::json::parse(line));
  std::filesystem::remove(file);
  ASSERT_EQ(lines.size(), 11u);

  const nlohmann::json& header = lines.front();
  const Scene scene = *builtin_scene("pyramid");
  EXPECT_EQ(header["format"], "impulse-replay");
  EXPECT_EQ(header["version"], 1);
  EXPECT_EQ(header["name"], "pyramid");
  EXPECT_EQ(header["timestep"], summary["timestep"]);
  ASSERT_EQ(header["body_names"].size(), scene.bodies.size());
  EXPECT_EQ(header["body_names"][1], summary["bodies"][1]["name"]);
  EXPECT_EQ(parse_scene(header["scene"].dump()), scene);  // the shapes, as the scene file has them

  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["step"], i);
    EXPECT_EQ(lines[i]["bodies"].size(), scene.bodies.size());
  }
  const nlohmann::json& last = lines.back();
  EXPECT_EQ(last["time"], summary["time"]);
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {  // bit for bit: both print the shortest
    EXPECT_EQ(last["bodies"][b]["position"], summary["bodies"][b]["position"]) << b;
    EXPECT_EQ(last["bodies"][b]["orientation"], summary["bodies"][b]["orientation"]) << b;
  }
  ASSERT_FALSE(last["contacts"].empty());  // the pyramid stands on its ground
  for (const auto& contact : last["contacts"]) {
    EXPECT_LT(contact["a"].get<std::size_t>(), scene.bodies.size());
    EXPECT_LT(contact["b"].get<std::size_t>(), scene.bodies.size());
    EXPECT_EQ(contact["normal"].size(), 3u);
  }
}

TEST(Cli, RecordToAnUnwritableFileIsBadInput) {
  const CommandResult r = run_cli("run free-fall --steps 1 --record /nonexistent/dir/replay.jsonl");
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_EQ(count_lines(r.err), 1);
}

}  // namespace
}  // namespace impulse

#endif  // IMPULSE_CLI_PATH
