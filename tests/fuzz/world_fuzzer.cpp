// libFuzzer target: bytes into a small world, stepped (fuzz_checks.h says what must hold).
#include "fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  impulse::fuzz::check_world_bytes({data, size});
  return 0;
}
