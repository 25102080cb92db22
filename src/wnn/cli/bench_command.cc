// `wnn bench GRAPH`: compile time, then run latency (min, median, p90) over timed runs after
// warm-up, and peak RSS. Inputs are given (.npy) or deterministic.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/cli/session_args.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/runtime/inputs.h"
#include "wnn/runtime/session.h"

namespace wnn::cli {
namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

int run_bench(Args& args) {
  format::LoadOptions load;
  load.weights_path = args.value("weights");
  const auto input_files = args.values("input");
  const runtime::SessionOptions options = session_options(args);
  const int64_t runs = args.int_value("runs").value_or(20);
  const int64_t warmup = args.int_value("warmup").value_or(3);
  const bool json = args.flag("json");
  check(runs >= 1, "--runs must be at least 1, got {}", runs);
  check(warmup >= 0, "--warmup must not be negative, got {}", warmup);
  const auto rest = args.finish();
  check(rest.size() == 1, "expected one graph file (see wnn bench --help)");

  format::Model model = format::load_model(rest[0], load);
  auto graph = std::make_shared<const Graph>(std::move(model.graph));
  const auto tensors = graph_inputs(*graph, input_files, true, 0);
  const auto inputs = views_of(tensors);

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  runtime::Session session(graph, options);
  const double compile_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  for (int64_t i = 0; i < warmup; ++i) session.run(inputs);
  std::vector<double> ms;
  for (int64_t i = 0; i < runs; ++i) {
    const auto s = clock::now();
    session.run(inputs);
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - s).count());
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double q) {
    return ms[std::min(ms.size() - 1, size_t(q * double(ms.size() - 1) + 0.5))];
  };
  size_t regions = session.execution_plan().partition.regions.size(), on_ref = 0;
  for (int r : session.execution_plan().partition.region_of) on_ref += r < 0;
  const nlohmann::json j = {{"graph", rest[0]},
                            {"backend", options.backend},
                            {"threads", options.threads},
                            {"fold", options.fold},
                            {"regions", regions},
                            {"reference_nodes", on_ref},
                            {"runs", runs},
                            {"warmup", warmup},
                            {"compile_ms", compile_ms},
                            {"min_ms", ms.front()},
                            {"median_ms", pct(0.5)},
                            {"p90_ms", pct(0.9)},
                            {"peak_rss_mb", peak_rss_mb()}};
  if (json) {
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s on %s, %d thread%s%s: %zu regions, %zu nodes on reference\n", rest[0].c_str(),
                options.backend.c_str(), options.threads, options.threads == 1 ? "" : "s",
                options.fold ? "" : ", no folding", regions, on_ref);
    std::printf(
        "compile %.2f ms; run over %lld: min %.3f ms, median %.3f ms, p90 %.3f ms; "
        "peak RSS %.1f MB\n",
        compile_ms, (long long)runs, ms.front(), pct(0.5), pct(0.9), peak_rss_mb());
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "bench",
    "measure compile time, run latency and peak memory of a graph",
    "usage: wnn bench GRAPH [--backend NAME] [--threads N] [--runs N] [--warmup N]\n"
    "                 [--input NAME=FILE.npy]... [--no-fold] [--weights PATH] [--json]\n\n"
    "Compiles GRAPH once (timed), runs it --warmup times untimed, then --runs times timed,\n"
    "and prints min, median and p90 latency and the process's peak RSS. Inputs not given are\n"
    "the deterministic values of wnn run --random-inputs (seed 0).\n\n"
    "options:\n" WNN_SESSION_OPTIONS_HELP
    "  --runs N               timed runs (default 20)\n"
    "  --warmup N             untimed runs first (default 3)\n"
    "  --input NAME=FILE.npy  the value of input NAME (repeatable)\n"
    "  --weights PATH         the weights file (default: found beside the graph)\n"
    "  --json                 an object with compile_ms, min_ms, median_ms, p90_ms, peak_rss_mb",
    run_bench,
}};

}  // namespace
}  // namespace wnn::cli
