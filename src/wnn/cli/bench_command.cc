// `wnn bench GRAPH`: compile time, then run latency (min, median, p90) over timed runs after
// warm-up, and peak RSS. Inputs are given (.npy) or deterministic.
#include <sys/resource.h>

#include <fmt/format.h>
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
#include "wnn/runtime/thread_waiting.h"

namespace wnn::cli {
namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double per_run_ms(const runtime::ProfileRow& r) { return r.runs ? r.total_ms / double(r.runs) : 0; }

// Each row names its nodes by their first output (`wnn view --profile` matches them by it).
nlohmann::json profile_json(const Graph& graph, const std::vector<runtime::ProfileRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json nodes = nlohmann::json::array();
    for (uint32_t n : r.nodes) nodes.push_back(graph.name_of(graph.nodes()[n].outputs[0]));
    out.push_back({{"label", r.label},
                   {"where", r.where},
                   {"op", r.op},
                   {"flops", r.flops},
                   {"kernel", r.kernel},
                   {"ms", per_run_ms(r)},
                   {"nodes", nodes}});
  }
  return out;
}

void print_profile(const std::vector<runtime::ProfileRow>& rows) {
  double total = 0;
  for (const auto& r : rows) total += per_run_ms(r);
  auto rate = [](double flops, double ms) {
    return flops > 0 && ms > 0 ? fmt::format("{:8.1f}", flops / ms / 1e6) : std::string(8, ' ');
  };
  // Aggregates by op and by where it ran, largest first.
  auto print_groups = [&](const char* title, auto key) {
    std::map<std::string, std::tuple<double, double, int>> groups;
    for (const auto& r : rows) {
      auto& [ms, flops, count] = groups[key(r)];
      ms += per_run_ms(r), flops += r.flops, ++count;
    }
    std::vector<std::pair<std::string, std::tuple<double, double, int>>> sorted(groups.begin(),
                                                                                groups.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a.second) > std::get<0>(b.second);
    });
    std::printf("\n%-28s %6s %10s %6s %8s\n", title, "steps", "ms/run", "%", "GFLOP/s");
    for (const auto& [name, g] : sorted) {
      const auto [ms, flops, count] = g;
      std::printf("%-28s %6d %10.3f %6.1f %s\n", name.c_str(), count, ms,
                  total > 0 ? 100 * ms / total : 0.0, rate(flops, ms).c_str());
    }
  };
  std::printf("\nprofile: %.3f ms/run in steps (timed one by one, waiting after each)\n", total);
  print_groups("op", [](const runtime::ProfileRow& r) { return r.op; });
  print_groups("where", [](const runtime::ProfileRow& r) { return r.where; });
  std::vector<const runtime::ProfileRow*> top;
  for (const auto& r : rows) top.push_back(&r);
  std::sort(top.begin(), top.end(),
            [](auto* a, auto* b) { return per_run_ms(*a) > per_run_ms(*b); });
  top.resize(std::min<size_t>(top.size(), 25));
  std::printf("\n%-48s %-12s %10s %6s %8s  %s\n", "slowest steps", "where", "ms/run", "%",
              "GFLOP/s", "kernel");
  for (const auto* r : top) {
    std::printf("%-48.48s %-12s %10.3f %6.1f %s  %s\n", r->label.c_str(), r->where.c_str(),
                per_run_ms(*r), total > 0 ? 100 * per_run_ms(*r) / total : 0.0,
                rate(r->flops, per_run_ms(*r)).c_str(), r->kernel.c_str());
  }
}

int run_bench(Args& args) {
  format::LoadOptions load;
  load.weights_path = args.value("weights");
  const auto input_files = args.values("input");
  const runtime::SessionOptions options = session_options(args);
  const int64_t runs = args.int_value("runs").value_or(20);
  const int64_t warmup = args.int_value("warmup").value_or(3);
  const bool json = args.flag("json");
  const bool profile = args.flag("profile");
  check(runs >= 1, "--runs must be at least 1, got {}", runs);
  check(warmup >= 0, "--warmup must not be negative, got {}", warmup);
  const auto rest = args.finish();
  check(rest.size() == 1, "expected one graph file (see wnn bench --help)");

  using clock = std::chrono::steady_clock;
  const auto elapsed_ms = [](clock::time_point since) {
    return std::chrono::duration<double, std::milli>(clock::now() - since).count();
  };
  const auto t_load = clock::now();
  format::Model model = format::load_model(rest[0], load);
  auto graph = std::make_shared<const Graph>(std::move(model.graph));
  const double load_ms = elapsed_ms(t_load);
  const auto tensors = graph_inputs(*graph, input_files, true, 0);
  const auto inputs = views_of(tensors);

  const auto t0 = clock::now();
  runtime::Session session(graph, options);
  const double compile_ms = elapsed_ms(t0);
  // The first run pays for first-touch page faults of the arena and of lazily mapped weights:
  // load + compile + first run is what a user waits for before the first answer.
  const auto t_first = clock::now();
  session.run(inputs);
  const double first_run_ms = elapsed_ms(t_first);
  for (int64_t i = 1; i < warmup; ++i) session.run(inputs);
  std::vector<double> ms;
  for (int64_t i = 0; i < runs; ++i) {
    const auto s = clock::now();
    session.run(inputs);
    ms.push_back(elapsed_ms(s));
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
                            {"load_ms", load_ms},
                            {"compile_ms", compile_ms},
                            {"first_run_ms", first_run_ms},
                            {"load_to_first_inference_ms", load_ms + compile_ms + first_run_ms},
                            {"min_ms", ms.front()},
                            {"median_ms", pct(0.5)},
                            {"p90_ms", pct(0.9)},
                            {"peak_rss_mb", peak_rss_mb()},
                            {"openmp_waiting", runtime::describe_openmp_waiting()}};
  std::vector<runtime::ProfileRow> rows;
  if (profile) {
    // Separate runs: the per-step clock reads and stream waits must not touch the latency.
    session.set_profiling(true);
    for (int64_t i = 0; i < runs; ++i) session.run(inputs);
    session.set_profiling(false);
    rows = session.profile();
  }
  if (json) {
    nlohmann::json out = j;
    if (profile) out["profile"] = profile_json(session.graph(), rows);
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s on %s, %d thread%s%s: %zu regions, %zu nodes on reference\n", rest[0].c_str(),
                options.backend.c_str(), options.threads, options.threads == 1 ? "" : "s",
                options.fold ? "" : ", no folding", regions, on_ref);
    std::printf(
        "load %.2f ms, compile %.2f ms, first run %.3f ms (load to first inference %.2f ms)\n"
        "run over %lld: min %.3f ms, median %.3f ms, p90 %.3f ms; peak RSS %.1f MB\n",
        load_ms, compile_ms, first_run_ms, load_ms + compile_ms + first_run_ms, (long long)runs,
        ms.front(), pct(0.5), pct(0.9), peak_rss_mb());
    if (options.threads > 1)
      std::printf("threads: %s\n", runtime::describe_openmp_waiting().c_str());
    if (profile) print_profile(rows);
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "bench",
    "measure compile time, run latency and peak memory of a graph",
    "usage: wnn bench GRAPH [--backend NAME] [--threads N] [--runs N] [--warmup N]\n"
    "                 [--input NAME=FILE.npy]... [--no-fold] [--weights PATH] [--profile]\n"
    "                 [--json]\n\n"
    "Loads GRAPH and its weights and compiles it once (both timed), runs it once (timed: the\n"
    "cold first run), --warmup - 1 more times untimed, then --runs times timed, and prints\n"
    "load-to-first-inference time, min, median and p90 latency and the process's peak RSS.\n"
    "With more than one thread it also says how the OpenMP workers wait between kernels\n"
    "(chosen per machine unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set: docs/delegates.md).\n"
    "Inputs not given are the deterministic values of wnn run --random-inputs (seed 0).\n\n"
    "options:\n" WNN_SESSION_OPTIONS_HELP
    "  --runs N               timed runs (default 20)\n"
    "  --warmup N             runs before the timed ones, the first of them always made\n"
    "                         (default 3)\n"
    "  --input NAME=FILE.npy  the value of input NAME (repeatable)\n"
    "  --weights PATH         the weights file (default: found beside the graph)\n"
    "  --profile              then --runs more runs timing every step: time per op, per\n"
    "                         delegate region and per kernel, GFLOP/s of conv and matmul\n"
    "  --json                 an object with load_ms, compile_ms, first_run_ms,\n"
    "                         load_to_first_inference_ms, min_ms, median_ms, p90_ms, peak_rss_mb,\n"
    "                         openmp_waiting\n"
    "                         (and \"profile\": rows of label, where, op, flops, kernel,\n"
    "                         ms per run, and nodes: the first output of each node the step\n"
    "                         computes, which wnn view --profile reads)",
    run_bench,
}};

}  // namespace
}  // namespace wnn::cli
