// libFuzzer target: scene text into the loader (fuzz_checks.h says what must hold).
#include "fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  impulse::fuzz::check_scene_text({reinterpret_cast<const char*>(data), size});
  return 0;
}
