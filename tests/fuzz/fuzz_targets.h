// The bodies of wnn's fuzz targets, shared by the libFuzzer binaries (one per target, built
// with clang in the WNN_FUZZ configuration) and by the regression replay test that runs the
// normal build's readers over every checked-in input. A target feeds its bytes to one reader
// and accepts success or wnn::Error; anything else (a crash, another exception, a sanitizer
// report) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace wnn::fuzz {

struct FuzzTarget {
  std::string_view name;  // also the folder name under corpus/ and regressions/
  void (*run)(std::span<const uint8_t> data);
};

// Every target, in the order `make fuzz` runs them. Adding a target: write its function in
// fuzz_targets.cc, list it here, add corpus/<name>/ seeds (make_corpus.py) and an empty
// regressions/<name>/ folder. tests/fuzz/CMakeLists.txt builds one binary per entry.
const std::vector<FuzzTarget>& all_targets();
const FuzzTarget* find_target(std::string_view name);

}  // namespace wnn::fuzz
