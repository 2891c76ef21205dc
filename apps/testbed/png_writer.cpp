#include "png_writer.h"

#include <stb_image_write.h>

namespace impulse::testbed {

bool write_png(const std::string& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != std::size_t(image.width) * std::size_t(image.height) * 3)
    return false;
  return stbi_write_png(path.c_str(), image.width, image.height, 3, image.rgb.data(),
                        image.width * 3) != 0;
}

}  // namespace impulse::testbed
