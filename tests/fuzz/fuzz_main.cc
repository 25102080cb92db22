// The libFuzzer entry point of one target; WNN_FUZZ_TARGET names it (set by CMake).
#include <cstdio>
#include <cstdlib>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const wnn::fuzz::FuzzTarget* target = [] {
    const auto* t = wnn::fuzz::find_target(WNN_FUZZ_TARGET);
    if (t == nullptr) {
      std::fprintf(stderr, "no fuzz target named '%s'\n", WNN_FUZZ_TARGET);
      std::abort();
    }
    return t;
  }();
  target->run({data, size});
  return 0;
}
