#pragma once
// Writes an RGB image as a PNG file (stb_image_write, from Debian's libstb).

#include <cstdint>
#include <string>
#include <vector>

namespace impulse::testbed {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // rows top to bottom, 3 bytes a pixel
};

/// Whether the file was written.
bool write_png(const std::string& path, const Image& image);

}  // namespace impulse::testbed
