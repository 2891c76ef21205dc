// Replays the committed fuzz corpus and every past finding (tests/fuzz/corpus/<target>/) through
// the fuzzers' checks, so the normal suite holds what the fuzz runs found.
#include "fuzz/fuzz_checks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace impulse::fuzz {
namespace {

std::vector<std::filesystem::path> corpus(const std::string& target) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(IMPULSE_FUZZ_DIR) / "corpus" / target))
    files.push_back(entry.path());
  return files;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(FuzzCorpus, SceneInputsKeepTheLoaderPromises) {
  const auto files = corpus("scene");
  ASSERT_FALSE(files.empty());
  for (const auto& file : files)
    EXPECT_NO_THROW(check_scene_text(read(file))) << file;
}

TEST(FuzzCorpus, WorldInputsKeepTheStepPromises) {
  const auto files = corpus("world");
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    const std::string bytes = read(file);
    EXPECT_NO_THROW(
        check_world_bytes({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}))
        << file;
  }
}

}  // namespace
}  // namespace impulse::fuzz
