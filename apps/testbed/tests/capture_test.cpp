// The testbed's headless capture under Xvfb and Mesa's software renderer: the PNGs have the size
// asked for, show the bodies and the ground, and change as a scene moves.

#include <gtest/gtest.h>

#include <stb_image.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int k_width = 320;
constexpr int k_height = 180;

struct Picture {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / program)) return true;
  }
  return false;
}

// Runs the capture command; returns the picture, empty when it failed.
Picture capture(const std::string& scene, int steps, const std::string& name) {
  const std::string file = std::string(IMPULSE_TESTBED_OUTPUT_DIR) + "/" + name + ".png";
  std::filesystem::remove(file);
  const std::string command =
      "xvfb-run -a -s '-screen 0 1280x720x24' '" IMPULSE_TESTBED_PATH "' --scene '" + scene +
      "' --steps " + std::to_string(steps) + " --screenshot '" + file + "' --width " +
      std::to_string(k_width) + " --height " + std::to_string(k_height) + " > /dev/null";
  if (std::system(command.c_str()) != 0) return {};
  Picture picture;
  int channels = 0;
  std::unique_ptr<unsigned char, void (*)(void*)> data(
      stbi_load(file.c_str(), &picture.width, &picture.height, &channels, 3), stbi_image_free);
  if (!data) return {};
  picture.rgb.assign(data.get(), data.get() + std::size_t(picture.width * picture.height) * 3);
  return picture;
}

// The fraction of pixels that differ by more than a shade in some channel.
double fraction_different(const Picture& a, const Picture& b) {
  std::size_t different = 0;
  for (std::size_t i = 0; i < a.rgb.size(); i += 3) {
    for (std::size_t c = 0; c < 3; ++c) {
      if (std::abs(int(a.rgb[i + c]) - int(b.rgb[i + c])) > 8) {
        ++different;
        break;
      }
    }
  }
  return double(different) / double(a.rgb.size() / 3);
}

class TestbedCapture : public testing::Test {
 protected:
  void SetUp() override {
    if (!on_path("xvfb-run"))
      GTEST_SKIP() << "xvfb-run is not installed (Debian: apt-get install xvfb xauth "
                      "libgl1-mesa-dri): the testbed's captures are not checked";
  }
};

TEST_F(TestbedCapture, ShowsBodiesAndGroundAndTheirMotion) {
  const Picture empty = capture(IMPULSE_TESTBED_DATA_DIR "/empty.json", 0, "empty");
  const Picture pyramid = capture("pyramid", 30, "pyramid");
  const Picture dominoes = capture("dominoes", 30, "dominoes");
  const Picture bounce_start = capture("bounce", 0, "bounce-0");
  const Picture bounce_later = capture("bounce", 40, "bounce-40");

  for (const Picture* p : {&empty, &pyramid, &dominoes, &bounce_start, &bounce_later}) {
    ASSERT_EQ(p->width, k_width) << "a capture failed or has the wrong size";
    ASSERT_EQ(p->height, k_height);
  }
  // Bodies and ground cover a good part of the frame where the empty scene shows the grid only.
  EXPECT_GT(fraction_different(empty, pyramid), 0.10);
  EXPECT_GT(fraction_different(empty, dominoes), 0.10);
  EXPECT_GT(fraction_different(empty, bounce_start), 0.10);
  // The falling bodies have moved between the two step counts.
  EXPECT_GT(fraction_different(bounce_start, bounce_later), 0.002);
}

}  // namespace
