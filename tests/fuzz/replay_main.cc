// Replays every checked-in fuzz input (seed corpus and regressions) through the fuzz targets'
// bodies in the normal build, so a fixed finding stays fixed without clang or libFuzzer. Under
// `make test-sanitize` the same replay runs with ASan and UBSan.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_targets.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s TESTS_FUZZ_DIR\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  int missing = 0;
  for (const auto& target : wnn::fuzz::all_targets()) {
    size_t files = 0;
    for (const char* kind : {"corpus", "regressions"}) {
      const fs::path dir = root / kind / std::string(target.name);
      if (!fs::is_directory(dir)) {
        std::fprintf(stderr, "missing %s\n", dir.c_str());
        ++missing;
        continue;
      }
      std::vector<fs::path> paths;
      for (const auto& e : fs::directory_iterator(dir)) {
        if (e.is_regular_file() && e.path().filename() != ".gitkeep") paths.push_back(e.path());
      }
      std::sort(paths.begin(), paths.end());
      for (const auto& p : paths) {
        std::ifstream in(p, std::ios::binary);
        const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
        std::fprintf(stderr, "%.*s: %s\n", int(target.name.size()), target.name.data(),
                     p.filename().c_str());
        target.run(bytes);
        ++files;
      }
    }
    std::printf("%-12.*s %zu inputs replayed\n", int(target.name.size()), target.name.data(),
                files);
  }
  return missing == 0 ? 0 : 1;
}
