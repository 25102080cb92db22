#include "wnn/sweep/runner.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "wnn/core/atomic_file.h"
#include "wnn/core/digest.h"
#include "wnn/core/error.h"
#include "wnn/sweep/subprocess.h"

namespace wnn::sweep {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

std::string tail_of(const fs::path& log) {
  std::error_code ec;
  if (!fs::exists(log, ec)) return "";
  std::string text = read_file(log.string());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string last_line(const std::string& text) {
  const size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

class SweepRun {
 public:
  SweepRun(const Manifest& m, const RunOptions& o) : manifest_(m), options_(o) {}

  EntryResult run_entry(const ManifestEntry& e) {
    const auto start = std::chrono::steady_clock::now();
    EntryResult r = result_for(e);
    try {
      r.model_path = fetch(e, r.commit);
    } catch (const std::exception& ex) {
      mark_failed(r, "download", ex.what());
    }
    if (!r.model_path.empty()) {
      try {
        run_subprocess(e, r);
      } catch (const std::exception& ex) {
        mark_failed(r, "crash", ex.what());  // the subprocess could not even start
      }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

 private:
  // Refresh each Hub file or URL once per sweep, even when several entries share it.
  bool take_refresh(const std::string& key) {
    if (!options_.refresh) return false;
    const std::lock_guard lock(mutex_);
    return refreshed_.insert(key).second;
  }

  std::string fetch(const ManifestEntry& e, std::string& commit) {
    hub::FetchOptions fo;
    fo.sha256 = e.sha256;
    if (e.hf) {
      std::vector<std::string> files = {e.hf->file};
      // Zero weights need no sidecars: that is what makes huge models quick to check.
      if (!options_.zero_weights) {
        files.insert(files.end(), e.hf->sidecars.begin(), e.hf->sidecars.end());
      }
      std::string model;
      for (const auto& f : files) {
        hub::HubFileRef ref{e.hf->repo, e.hf->revision, f};
        hub::FetchOptions one = fo;
        if (f != e.hf->file) one.sha256.reset();  // the manifest's sha256 is the model file's
        one.refresh = take_refresh(e.hf->repo + "@" + e.hf->revision + "/" + f);
        const hub::FetchedFile got = hub::hf_hub_download(options_.hub, ref, one);
        if (model.empty()) {
          model = got.path.string();
          commit = got.commit;
        }
      }
      return model;
    }
    if (e.url) {
      fo.refresh = take_refresh(*e.url);
      return hub::url_download(options_.hub, *e.url, fo).path.string();
    }
    check(fs::is_regular_file(*e.path), "{}: no such file", e.path->string());
    if (e.sha256) {
      const std::string got = sha256_file_hex(e.path->string());
      check(got == *e.sha256, "{}: sha256 {} differs from the manifest's {}", e.path->string(), got,
            *e.sha256);
    }
    return e.path->string();
  }

  void run_subprocess(const ManifestEntry& e, EntryResult& r) {
    const fs::path report = options_.work_dir / fmt::format("entry-{}.json", e.index);
    const fs::path log = options_.work_dir / fmt::format("entry-{}.log", e.index);
    const fs::path out_dir = options_.work_dir / fmt::format("entry-{}.out", e.index);
    std::error_code ec;
    fs::remove(report, ec);
    fs::remove(log, ec);
    const ProcessExit exit =
        run_process(entry_command(e, r.model_path, options_, report, out_dir), log);
    const std::string output = tail_of(log);
    fs::remove_all(out_dir, ec);
    if (exit.signal != 0) {
      mark_failed(r, "crash", exit.describe());
      return;
    }
    if (options_.zero_weights) {
      if (exit.exit_code == 0) {
        r.passed = true;
      } else {
        classify_convert_failure(r, exit.exit_code, output);
      }
      return;
    }
    json j;
    if (fs::exists(report, ec)) {
      j = json::parse(read_file(report.string()), nullptr, false);
    }
    if (!j.is_object()) {
      const std::string said = last_line(output);
      mark_failed(r, "crash",
                  fmt::format("wnn validate: {} and no report{}", exit.describe(),
                              said.empty() ? "" : ": " + said));
      return;
    }
    classify_validate_report(r, j);
  }

  const Manifest& manifest_;
  const RunOptions& options_;
  std::mutex mutex_;
  std::set<std::string> refreshed_;
};

}  // namespace

std::vector<std::string> entry_command(const ManifestEntry& e, const std::string& model,
                                       const RunOptions& options, const fs::path& report,
                                       const fs::path& out_dir) {
  std::vector<std::string> argv = {options.wnn_binary};
  if (options.zero_weights) {
    argv.insert(argv.end(), {"convert", model, "-o", out_dir.string(), "--weights", "zeros"});
  } else {
    argv.insert(argv.end(), {"validate", model, "--report", report.string(), "--threads",
                             std::to_string(options.threads)});
    for (const auto& [name, file] : e.inputs)
      argv.push_back("--input=" + name + "=" + file.string());
    if (e.atol) argv.push_back(fmt::format("--atol={}", *e.atol));
    if (e.rtol) argv.push_back(fmt::format("--rtol={}", *e.rtol));
  }
  for (const auto& [name, v] : e.override_dims) {
    argv.push_back(fmt::format("--override-dim={}={}", name, v));
  }
  for (const auto& [name, v] : e.pin_inputs) argv.push_back("--pin-input=" + name + "=" + v);
  return argv;
}

std::vector<EntryResult> run_sweep(const Manifest& manifest, const std::vector<size_t>& selected,
                                   const RunOptions& options) {
  fs::create_directories(options.work_dir);
  SweepRun run(manifest, options);
  std::vector<EntryResult> results(manifest.models.size());
  std::vector<bool> done(manifest.models.size(), false);
  std::mutex finished_mutex;
  auto finish = [&](EntryResult r) {
    const std::lock_guard lock(finished_mutex);
    const size_t i = r.index;
    results[i] = std::move(r);
    done[i] = true;
    if (options.on_finished) options.on_finished(results[i]);
  };
  // Light entries on `jobs` workers, then heavy ones one at a time.
  std::vector<size_t> light, heavy;
  for (size_t i : selected) (manifest.models[i].heavy ? heavy : light).push_back(i);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < light.size();) {
      finish(run.run_entry(manifest.models[light[k]]));
    }
  };
  std::vector<std::thread> workers;
  const int n = std::max(1, std::min<int>(options.jobs, int(light.size())));
  for (int w = 0; w < n; ++w) workers.emplace_back(worker);
  for (auto& t : workers) t.join();
  for (size_t i : heavy) finish(run.run_entry(manifest.models[i]));
  std::vector<EntryResult> out;
  for (size_t i = 0; i < results.size(); ++i) {
    if (done[i]) out.push_back(std::move(results[i]));
  }
  return out;
}

}  // namespace wnn::sweep
