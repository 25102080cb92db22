// `wnn run GRAPH`: runs a graph on given or deterministic inputs and prints each output.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/cli/session_args.h"
#include "wnn/core/error.h"
#include "wnn/core/file_names.h"
#include "wnn/format/model.h"
#include "wnn/runtime/inputs.h"
#include "wnn/runtime/session.h"

namespace wnn::cli {
namespace {

int run_run(Args& args) {
  format::LoadOptions load;
  load.weights_path = args.value("weights");
  const auto input_files = args.values("input");
  const bool random = args.flag("random-inputs");
  const uint64_t seed = uint64_t(args.int_value("seed").value_or(0));
  const auto output_dir = args.value("output-dir");
  const runtime::SessionOptions options = session_options(args);
  const bool json = args.flag("json");
  const bool quiet = args.flag("quiet", 'q');
  const auto rest = args.finish();
  check(rest.size() == 1, "expected one graph file (see wnn run --help)");

  format::Model model = format::load_model(rest[0], load);
  auto graph = std::make_shared<const Graph>(std::move(model.graph));

  const auto tensors = graph_inputs(*graph, input_files, random, seed);
  const auto inputs = views_of(tensors);

  const auto t0 = std::chrono::steady_clock::now();
  runtime::Session session(graph, options);
  const auto t1 = std::chrono::steady_clock::now();
  const auto outputs = session.run(inputs);
  const auto t2 = std::chrono::steady_clock::now();
  const double compile_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double run_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();

  if (output_dir) {
    std::filesystem::create_directories(*output_dir);
  }
  nlohmann::json report = {{"graph", rest[0]},
                           {"backend", options.backend},
                           {"compile_ms", compile_ms},
                           {"run_ms", run_ms}};
  report["outputs"] = nlohmann::json::array();
  for (const auto& out : outputs) {
    const auto stats = runtime::tensor_stats(out.tensor.view());
    std::string file;
    if (output_dir) {
      file =
          (std::filesystem::path(*output_dir) / (file_name_component(out.name) + ".npy")).string();
      format::write_npy(file, out.tensor.view());
    }
    report["outputs"].push_back({{"name", out.name},
                                 {"dtype", dtype_name(out.tensor.dtype)},
                                 {"shape", out.tensor.shape},
                                 {"min", stats.min},
                                 {"max", stats.max},
                                 {"mean", stats.mean},
                                 {"nan_count", stats.nan_count},
                                 {"file", file}});
    if (!json) {
      std::printf("%s: %s%s min %.6g max %.6g mean %.6g%s%s\n", out.name.c_str(),
                  std::string(dtype_name(out.tensor.dtype)).c_str(),
                  shape_to_string(out.tensor.shape).c_str(), stats.min, stats.max, stats.mean,
                  stats.nan_count ? fmt::format(" nan {}", stats.nan_count).c_str() : "",
                  file.empty() ? "" : (" -> " + file).c_str());
    }
  }
  if (json) {
    std::printf("%s\n", report.dump(2).c_str());
  } else if (!quiet) {
    std::fflush(stdout);
    std::fprintf(stderr, "ran %zu nodes on %s: compile %.2f ms, run %.2f ms\n",
                 graph->nodes().size(), options.backend.c_str(), compile_ms, run_ms);
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "run",
    "run a WebNN graph on CPU and print (or save) its outputs",
    "usage: wnn run GRAPH [--input NAME=FILE.npy]... [--random-inputs [--seed N]]\n"
    "               [--output-dir DIR] [--weights PATH] [--backend NAME] [--threads N]\n"
    "               [--no-fold] [--json]\n\n"
    "Loads GRAPH (.webnn text or JSON) with its weights, runs it once and prints each output's\n"
    "name, dtype, shape, min, max and mean.\n\n"
    "options:\n"
    "  --input NAME=FILE.npy  the value of input NAME (repeatable)\n"
    "  --random-inputs        fill every input not given with deterministic values: floats are\n"
    "                         multiples of 1/64 in [-1, 1) (negatives and zeros included),\n"
    "                         signed integers in [-8, 8), unsigned in [0, 16); the stream is\n"
    "                         splitmix64 seeded by --seed and the input's name\n"
    "  --seed N               seed for --random-inputs (default 0)\n"
    "  --output-dir DIR       write each output to DIR/<name>.npy (bytes of the name other\n"
    "                         than letters, digits, _ - . become %XX: /a/b -> %2Fa%2Fb.npy)\n"
    "  --weights PATH         the weights file (default: found beside the "
    "graph)\n" WNN_SESSION_OPTIONS_HELP
    "  --json                 print a JSON report instead of text\n"
    "  -q, --quiet            no timing line on stderr",
    run_run,
}};

}  // namespace
}  // namespace wnn::cli
