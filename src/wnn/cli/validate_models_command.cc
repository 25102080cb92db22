// `wnn validate-models MANIFEST`: validates every selected manifest entry, each in its own
// subprocess, prints a summary in manifest order and writes JSON / JUnit reports.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/sweep/manifest.h"
#include "wnn/sweep/progress.h"
#include "wnn/sweep/report.h"
#include "wnn/sweep/runner.h"
#include "wnn/sweep/scratch.h"

namespace wnn::cli {
namespace {

namespace fs = std::filesystem;

int run_validate_models(Args& args) {
  const std::string selection = args.value("selection").value_or("all");
  const std::string shard = args.value("shard").value_or("1/1");
  const auto report_path = args.value("report");
  const auto junit_path = args.value("junit");
  const std::string weights = args.value("weights").value_or("real");
  check(weights == "real" || weights == "zeros", "--weights must be real or zeros, got '{}'",
        weights);
  const bool quiet = args.flag("quiet", 'q');
  sweep::RunOptions options;
  options.refresh = args.flag("refresh");
  options.jobs = int(args.int_value("jobs", 'j').value_or(1));
  options.threads = int(args.int_value("threads").value_or(1));
  check(options.jobs >= 1 && options.jobs <= 256, "--jobs must be 1..256, got {}", options.jobs);
  check(options.threads >= 1, "--threads must be at least 1, got {}", options.threads);
  options.zero_weights = weights == "zeros";
  const std::string manifest_path =
      single_positional(args.finish(), "validate-models", "manifest .json file");

  const sweep::Manifest manifest = sweep::read_manifest(manifest_path);
  const std::vector<size_t> chosen =
      sweep::shard_entries(sweep::select_entries(manifest, selection), shard);
  options.hub = hub::HubSettings::from_env();
  options.wnn_binary = fs::read_symlink("/proc/self/exe").string();
  const sweep::ScratchDir scratch(fs::temp_directory_path());
  options.work_dir = scratch.path();
  sweep::Progress progress(chosen.size(), ::isatty(2) != 0, quiet);
  options.on_finished = [&](const sweep::EntryResult& r) { progress.finished(r); };

  sweep::SweepReport report;
  report.manifest = manifest_path;
  report.weights = weights;
  report.selection = selection;
  report.shard = shard;
  report.manifest_entries = manifest.models.size();
  report.entries = sweep::run_sweep(manifest, chosen, options);
  progress.done();

  std::printf("%s", sweep::summary_text(report).c_str());
  if (report_path) write_file_atomic(*report_path, sweep::to_json(report).dump(2) + "\n");
  if (junit_path) write_file_atomic(*junit_path, sweep::junit_xml(report));
  return report.is_red() ? kExitCheckFailed : kExitOk;
}

const CommandRegistration registration{{
    "validate-models",
    "validate every model of a manifest (Hub, URL or local), in parallel, with reports",
    "usage: wnn validate-models MANIFEST.json [options]\n\n"
    "Fetches each selected entry's model (Hugging Face Hub cache, URL cache or a local path),\n"
    "runs `wnn validate` on it in a subprocess (a crash fails that entry only) and prints a\n"
    "summary in manifest order: passed, failed and expected failures, failures grouped by first\n"
    "blocker (download, conversion, runtime, reference, numerical, crash). Exit 1 when an entry\n"
    "fails unexpectedly or an expected failure passes. Manifest schema, cache and environment:\n"
    "docs/validate-models.md.\n\n"
    "options:\n"
    "  --selection SEL    all (default) | match=TEXT | id=ID[,ID...]\n"
    "  -j, --jobs N       entries validated in parallel (default 1); heavy entries run alone\n"
    "  --threads N        threads of each `wnn validate` (default 1)\n"
    "  --shard K/N        run every N-th selected entry from the K-th (merge: wnn report merge)\n"
    "  --report F.json    write the JSON report\n"
    "  --junit F.xml      write JUnit XML\n"
    "  --weights MODE     real (default) | zeros: only convert, with zero weights for missing\n"
    "                     weights and sidecars (checks convertibility; sidecars not downloaded)\n"
    "  --refresh          download every source again\n"
    "  -q, --quiet        no progress on stderr",
    run_validate_models,
}};

}  // namespace
}  // namespace wnn::cli
