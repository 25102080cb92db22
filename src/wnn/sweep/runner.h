// Runs a sweep: fetches each selected entry's model (Hub, URL or local path), then validates it
// with `wnn validate` -- or, with zero weights, converts it with `wnn convert --weights zeros`
// -- in a subprocess. `jobs` workers run entries in parallel; heavy entries run alone after.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "wnn/hub/download.h"
#include "wnn/sweep/manifest.h"
#include "wnn/sweep/result.h"

namespace wnn::sweep {

struct RunOptions {
  std::string wnn_binary;  // the wnn executable the subprocesses run
  int jobs = 1;
  int threads = 1;  // --threads for each `wnn validate`
  bool zero_weights = false;
  bool refresh = false;
  hub::HubSettings hub;
  std::filesystem::path work_dir;  // scratch space for per-entry reports and logs
  // Called (serialised) as each entry finishes.
  std::function<void(const EntryResult&)> on_finished;
};

// Results of `selected` (manifest indices), in manifest order.
std::vector<EntryResult> run_sweep(const Manifest& manifest, const std::vector<size_t>& selected,
                                   const RunOptions& options);

// The subprocess command line for one entry with its model at `model`.
std::vector<std::string> entry_command(const ManifestEntry& e, const std::string& model,
                                       const RunOptions& options,
                                       const std::filesystem::path& report,
                                       const std::filesystem::path& out_dir);

}  // namespace wnn::sweep
