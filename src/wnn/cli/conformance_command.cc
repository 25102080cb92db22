// `wnn conformance [DIR]`: runs WPT WebNN conformance vectors and prints per-operator counts
// and a closing "N passed, N failed, N skipped".
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "wnn/cli/command.h"
#include "wnn/conformance/wpt.h"
#include "wnn/core/error.h"

namespace wnn::cli {
namespace {

int run_conformance(Args& args) {
  conformance::RunOptions options;
  options.backend = args.value("backend").value_or("ref");
  options.filter = args.value("filter").value_or("");
  const bool json = args.flag("json");
  const bool verbose = args.flag("verbose", 'v');
  auto rest = args.finish();
  check(rest.size() <= 1, "expected at most one directory, got {}", rest.size());
  const std::string dir = rest.empty() ? "../shared/wpt/conformance" : rest[0];
  namespace fs = std::filesystem;
  check(fs::is_directory(dir), "{}: not a directory (pass the WPT conformance JSON directory)",
        dir);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  check(!files.empty(), "{}: no .json files", dir);

  struct Counts {
    int pass = 0, fail = 0, skip = 0;
  };
  std::map<std::string, Counts> per_op;
  std::vector<conformance::CaseResult> all;
  for (const auto& f : files) {
    for (auto& r : conformance::run_file(f, options)) {
      auto& c = per_op[r.op];
      if (r.status == conformance::CaseResult::Status::kPass) ++c.pass;
      if (r.status == conformance::CaseResult::Status::kFail) ++c.fail;
      if (r.status == conformance::CaseResult::Status::kSkip) ++c.skip;
      all.push_back(std::move(r));
    }
  }
  size_t nodes = 0, delegated = 0;
  for (const auto& r : all) {
    nodes += r.nodes;
    delegated += r.delegated_nodes;
  }
  Counts total;
  for (const auto& [op, c] : per_op) {
    total.pass += c.pass;
    total.fail += c.fail;
    total.skip += c.skip;
  }
  if (json) {
    nlohmann::json j;
    j["backend"] = options.backend;
    j["passed"] = total.pass;
    j["failed"] = total.fail;
    j["skipped"] = total.skip;
    j["nodes"] = nodes;
    j["delegated_nodes"] = delegated;
    for (const auto& [op, c] : per_op) {
      j["operators"][op] = {{"passed", c.pass}, {"failed", c.fail}, {"skipped", c.skip}};
    }
    j["cases"] = nlohmann::json::array();
    for (const auto& r : all) {
      const char* s = r.status == conformance::CaseResult::Status::kPass   ? "pass"
                      : r.status == conformance::CaseResult::Status::kFail ? "fail"
                                                                           : "skip";
      nlohmann::json e = {{"file", r.file}, {"name", r.name}, {"op", r.op}, {"status", s}};
      if (!r.detail.empty()) e["detail"] = r.detail;
      j["cases"].push_back(std::move(e));
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%-24s %7s %7s %7s\n", "operator", "passed", "failed", "skipped");
    for (const auto& [op, c] : per_op) {
      std::printf("%-24s %7d %7d %7d\n", op.c_str(), c.pass, c.fail, c.skip);
    }
    for (const auto& r : all) {
      if (r.status == conformance::CaseResult::Status::kFail) {
        std::printf("FAIL %s: %s: %s\n", r.file.c_str(), r.name.c_str(), r.detail.c_str());
      } else if (r.status == conformance::CaseResult::Status::kSkip) {
        std::printf("SKIP %s: %s: %s\n", r.file.c_str(), r.name.c_str(), r.detail.c_str());
      } else if (verbose) {
        std::printf("PASS %s: %s\n", r.file.c_str(), r.name.c_str());
      }
    }
    if (options.backend != "ref") {
      std::printf("%zu of %zu nodes ran on delegates (after folding)\n", delegated, nodes);
    }
    std::printf("%d passed, %d failed, %d skipped\n", total.pass, total.fail, total.skip);
  }
  return total.fail == 0 ? kExitOk : kExitCheckFailed;
}

const CommandRegistration registration{{
    "conformance",
    "run WPT WebNN conformance vectors and report per-operator results",
    "usage: wnn conformance [DIR] [--backend NAME] [--filter TEXT] [--json] [-v]\n\n"
    "Runs every test in DIR/*.json (default ../shared/wpt/conformance), laid out as the WPT\n"
    "WebNN conformance tests dumped to JSON. Each graph is built through the same builder as\n"
    "every other front end, run, and compared with the WPT tolerances (ULP or absolute).\n"
    "Tests whose data holds null (NaN or infinity lost by an older dump) are skipped, each\n"
    "with its reason. There are no expected failures: exit 1 when any case fails.\n\n"
    "options:\n"
    "  --backend NAME   the executor to test: ref, onednn, xnnpack or auto (default ref)\n"
    "  --filter TEXT    only cases whose name contains TEXT\n"
    "  --json           machine-readable results, one entry per case\n"
    "  -v, --verbose    list passing cases too",
    run_conformance,
}};

}  // namespace
}  // namespace wnn::cli
