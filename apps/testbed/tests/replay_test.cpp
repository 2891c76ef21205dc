// The replay reader against the command's writer: what `impulse run --record` writes reads back
// bit for bit, and the player poses its world as recorded.

#include <gtest/gtest.h>

#include <impulse/error.h>
#include <impulse/scene.h>

#include <unistd.h>
#include <filesystem>
#include <sstream>

#include "replay.h"
#include "replay_player.h"
#include "replay_writer.h"

namespace impulse::testbed {
namespace {

struct Recording {
  Scene scene = *builtin_scene("pyramid");
  std::vector<std::vector<Transform>> transforms;  // per step, per body
  std::vector<std::size_t> contact_counts;         // per step
  Replay replay;

  explicit Recording(int steps) {
    const auto file = std::filesystem::temp_directory_path() /
                      ("impulse_replay_test_" + std::to_string(::getpid()) + ".jsonl");
    World world = build_world(scene);
    {
      cli::ReplayWriter writer(file.string(), scene, world);
      for (int i = 0; i < steps; ++i) {
        world.step(scene.settings.timestep);
        writer.write(i + 1, world);
        std::vector<Transform> now;
        for (const BodyId id : world.bodies())
          now.push_back(world.transform(id));
        transforms.push_back(std::move(now));
        contact_counts.push_back(world.debug_contacts().size());
      }
    }
    replay = load_replay(file);
    std::filesystem::remove(file);
  }
};

void expect_same(const Transform& a, const Transform& b) {
  EXPECT_EQ(a.position.x, b.position.x);
  EXPECT_EQ(a.position.y, b.position.y);
  EXPECT_EQ(a.position.z, b.position.z);
  EXPECT_EQ(a.orientation.x, b.orientation.x);
  EXPECT_EQ(a.orientation.y, b.orientation.y);
  EXPECT_EQ(a.orientation.z, b.orientation.z);
  EXPECT_EQ(a.orientation.w, b.orientation.w);
}

TEST(Replay, ReadsBackWhatTheWriterWroteBitForBit) {
  const Recording r(5);
  EXPECT_EQ(r.replay.scene, r.scene);
  ASSERT_EQ(r.replay.body_names.size(), r.scene.bodies.size());
  ASSERT_EQ(r.replay.frames.size(), 5u);
  for (std::size_t s = 0; s < 5; ++s) {
    const ReplayFrame& frame = r.replay.frames[s];
    EXPECT_EQ(frame.step, int(s + 1));
    EXPECT_NEAR(frame.time, double(s + 1) * double(r.scene.settings.timestep), 1e-9);
    ASSERT_EQ(frame.transforms.size(), r.scene.bodies.size());
    for (std::size_t b = 0; b < frame.transforms.size(); ++b)
      expect_same(frame.transforms[b], r.transforms[s][b]);
    EXPECT_EQ(frame.contacts.size(), r.contact_counts[s]);
  }
  EXPECT_GT(r.replay.frames.back().contacts.size(), 0u);  // the pyramid stands on its ground
}

TEST(Replay, PlayerPosesItsWorldAsRecordedAndStopsAtTheEnd) {
  const Recording r(4);
  ReplayPlayer player(r.replay);
  player.seek(2);
  const std::vector<BodyId> ids = player.world().bodies();
  for (std::size_t b = 0; b < ids.size(); ++b)
    EXPECT_NEAR(distance(player.world().position(ids[b]), r.transforms[2][b].position), 0, 1e-6);
  EXPECT_EQ(player.contacts().size(), r.contact_counts[2]);

  player.seek(0);
  player.playing = true;
  player.advance(10.0);  // far more than the recording
  EXPECT_EQ(player.frame(), 3);
  EXPECT_FALSE(player.playing);
}

TEST(Replay, OtherFilesAreRefusedNamingTheLine) {
  std::istringstream scene_file(scene_to_json(*builtin_scene("pyramid")));
  EXPECT_THROW(read_replay(scene_file, "scene.json"), Error);
  std::istringstream empty("");
  EXPECT_THROW(read_replay(empty, "empty.jsonl"), Error);
  std::istringstream broken(R"({"format":"impulse-replay","version":1})"
                            "\n");
  try {
    read_replay(broken, "broken.jsonl");
    FAIL() << "a header without a scene was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.jsonl:1:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace impulse::testbed
