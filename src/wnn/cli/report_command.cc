// `wnn report merge A.json B.json... -o OUT.json`: combines shard reports of one
// validate-models manifest into one report (manifest order) and prints its summary.
#include <nlohmann/json.hpp>

#include <cstdio>

#include "wnn/cli/command.h"
#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/sweep/report.h"

namespace wnn::cli {
namespace {

int run_report(Args& args) {
  const auto out = args.value("output", 'o');
  const auto junit = args.value("junit");
  std::vector<std::string> rest = args.finish();
  check(!rest.empty() && rest[0] == "merge",
        "wnn report: expected 'merge A.json B.json... -o OUT.json' (see wnn report --help)");
  rest.erase(rest.begin());
  check(!rest.empty(), "wnn report merge: no reports given");
  check(out.has_value(), "wnn report merge: missing -o OUT.json");
  std::vector<std::pair<std::string, sweep::SweepReport>> reports;
  for (const auto& file : rest) {
    const auto j = nlohmann::json::parse(read_file(file), nullptr, false);
    check(!j.is_discarded(), "{}: not valid JSON", file);
    reports.emplace_back(file, sweep::sweep_report_from_json(j, file));
  }
  const sweep::SweepReport merged = sweep::merge_reports(reports);
  write_file_atomic(*out, sweep::to_json(merged).dump(2) + "\n");
  if (junit) write_file_atomic(*junit, sweep::junit_xml(merged));
  std::printf("%s", sweep::summary_text(merged).c_str());
  return merged.is_red() ? kExitCheckFailed : kExitOk;
}

const CommandRegistration registration{{
    "report",
    "merge validate-models shard reports",
    "usage: wnn report merge A.json B.json... -o OUT.json [--junit OUT.xml]\n\n"
    "Merges the --report files of `wnn validate-models --shard K/N` runs of one manifest into\n"
    "one report in manifest order and prints its summary. An entry in two reports, or reports\n"
    "of different manifests or weights modes, is an error. Exit 1 when the merged sweep has an\n"
    "unexpected failure or pass, like validate-models itself.\n\n"
    "options:\n"
    "  -o, --output F.json  the merged report (required)\n"
    "  --junit F.xml        also write JUnit XML for the merged report",
    run_report,
}};

}  // namespace
}  // namespace wnn::cli
