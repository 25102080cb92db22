// `wnn onnx-test DIR...`: runs ONNX backend-test directories (see onnx/backend_test.h) and
// prints `N passed, N failed, N skipped`. Skips happen only for the documented inexpressible
// features listed in src/wnn/onnx/unsupported.cc; anything else passes or fails.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "wnn/cli/command.h"
#include "wnn/core/error.h"
#include "wnn/onnx/backend_test.h"

namespace wnn::cli {
namespace {

namespace fs = std::filesystem;
using onnx::TestOutcome;

int run_onnx_test(Args& args) {
  const bool json = args.flag("json");
  const bool quiet = args.flag("quiet", 'q');
  const auto dirs = args.finish();
  check(!dirs.empty(), "give one or more test directories");
  std::vector<fs::path> tests;
  for (const auto& d : dirs) {
    check(fs::is_directory(d), "'{}' is not a directory", d);
    if (fs::exists(fs::path(d) / "model.onnx")) {
      tests.push_back(d);
      continue;
    }
    std::vector<fs::path> sub;
    for (const auto& e : fs::directory_iterator(d)) {
      if (fs::exists(e.path() / "model.onnx")) sub.push_back(e.path());
    }
    std::sort(sub.begin(), sub.end());
    tests.insert(tests.end(), sub.begin(), sub.end());
  }
  int pass = 0, fail = 0, skip = 0;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& t : tests) {
    const onnx::BackendTestResult r = onnx::run_backend_test(t.string());
    const char* word = r.outcome == TestOutcome::kPass   ? "PASS"
                       : r.outcome == TestOutcome::kFail ? "FAIL"
                                                         : "SKIP";
    (r.outcome == TestOutcome::kPass ? pass : r.outcome == TestOutcome::kFail ? fail : skip)++;
    if (json) {
      results.push_back({{"test", t.string()}, {"result", word}, {"reason", r.reason}});
    } else if (!quiet || r.outcome != TestOutcome::kPass) {
      std::printf("%s %s%s%s\n", word, r.name.c_str(), r.reason.empty() ? "" : ": ",
                  r.reason.c_str());
    }
  }
  if (json) {
    nlohmann::json j{{"passed", pass}, {"failed", fail}, {"skipped", skip}, {"tests", results}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
  }
  return fail == 0 ? kExitOk : kExitCheckFailed;
}

const CommandRegistration registration{{
    "onnx-test",
    "run ONNX backend-test directories through the importer and the reference runtime",
    "usage: wnn onnx-test [--json] [-q] DIR...\n\n"
    "Each DIR is a test (model.onnx + test_data_set_*/) or a directory of tests. Each test is\n"
    "imported, run on the reference runtime and compared with output_N.pb (floats:\n"
    "|a-r| <= 1e-5 + 1e-3*|r|; integers and bools exactly). Integer inputs that decide shapes\n"
    "are pinned to each data set's values. Tests that need what WebNN cannot express\n"
    "(strings, sequences, optional, runtime control flow, data-dependent shapes, randomness,\n"
    "training) are skipped with the reason; everything else passes or fails.\n\n"
    "options:\n"
    "  --json       machine-readable results\n"
    "  -q, --quiet  print only failures, skips and the summary",
    run_onnx_test,
}};

}  // namespace
}  // namespace wnn::cli
