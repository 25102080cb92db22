// `wnn convert model.onnx -o DIR`: imports an ONNX model and writes DIR/<stem>.webnn and
// DIR/<stem>.safetensors. `wnn convert` dispatches .onnx inputs to convert_onnx_main.
#include <nlohmann/json.hpp>
#include <optional>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include "wnn/cli/command.h"
#include "wnn/cli/conversion_args.h"
#include "wnn/cli/convert_progress.h"
#include "wnn/cli/graph_args.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/onnx/import.h"
#include "wnn/validate/conversion.h"
#include "wnn/validate/validate.h"

namespace wnn::cli {

namespace fs = std::filesystem;

int convert_onnx_main(Args& args, const std::optional<std::string>& out) {
  const auto start = std::chrono::steady_clock::now();
  const bool json = args.flag("json");
  const bool quiet = args.flag("quiet", 'q');
  const onnx::ImportOptions options = conversion_options(args);
  const bool cache = args.flag("cache");
  const bool validate = args.flag("validate");
  const bool validate_cached = args.flag("validate-cached");
  if (validate || validate_cached) {
    check(!(validate && validate_cached),
          "wnn convert: --validate and --validate-cached are exclusive");
    check(!validate_cached || (!cache && !out),
          "wnn convert: --validate-cached reads the cache entry; it takes neither -o nor --cache");
    check(!(cache && out), "wnn convert: give either -o DIR or --cache, not both");
    validate::ValidateOptions v;
    v.import = options;
    read_validation_options(args, v);
    const auto report_path = args.value("report");
    const std::string in = single_positional(args.finish(), "convert", "input .onnx file");
    v.storage = validate_cached ? validate::Storage::kCachedOnly
                : cache         ? validate::Storage::kCache
                : out           ? validate::Storage::kDirectory
                                : validate::Storage::kTemporary;
    if (out) v.output_dir = *out;
    return finish_validation(run_validation(in, v, quiet, json), report_path, quiet, json);
  }
  const std::string in = single_positional(args.finish(), "convert", "input .onnx file");
  if (cache) {
    check(!out, "wnn convert: give either -o DIR or --cache, not both");
    const onnx::ModelProto model = onnx::load_model(in);
    const validate::CachedConversion c = validate::convert_cached(in, model, options);
    for (const auto& w : c.warnings) std::fprintf(stderr, "wnn: warning: %s\n", w.c_str());
    const auto& e = c.result.entry;
    if (json) {
      nlohmann::json j{{"input", in},
                       {"cache_entry", e.dir},
                       {"graph", e.graph_path},
                       {"weights", e.weights_path},
                       {"sha256", c.digest},
                       {"reused", !c.result.built},
                       {"rebuilt_because", c.result.rebuilt}};
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s: %s cache entry %s\n", in.c_str(),
                  !c.result.built            ? "reused"
                  : c.result.rebuilt.empty() ? "wrote"
                                             : "rebuilt",
                  e.dir.c_str());
      if (!c.result.rebuilt.empty()) {
        std::printf("(the previous entry was damaged: %s)\n", c.result.rebuilt.c_str());
      }
    }
    return kExitOk;
  }
  check(out.has_value(), "wnn convert: missing -o DIR or --cache (see wnn convert --help)");
  ConvertProgress progress(!json && !quiet && ::isatty(2) != 0);
  onnx::ImportOptions with_progress = options;
  with_progress.on_node = [&](size_t done, size_t total) { progress.nodes(done, total); };
  with_progress.keep_misaligned_weights = true;  // only written out: stream them from the file
  onnx::ImportResult r = onnx::import_model(in, with_progress);
  for (const auto& w : r.warnings) std::fprintf(stderr, "wnn: warning: %s\n", w.c_str());
  fs::create_directories(*out);
  const std::string stem = fs::path(in).stem().string();
  const std::string graph_path = (fs::path(*out) / (stem + ".webnn")).string();
  const std::string weights_path = (fs::path(*out) / (stem + ".safetensors")).string();
  format::save_model(r.graph, graph_path, weights_path,
                     [&](uint64_t done, uint64_t total) { progress.weights(done, total); });
  progress.done();
  uint64_t weight_bytes = 0;
  for (const auto& c : r.graph.constants()) {
    if (c.init == ConstantInitKind::kWeights) weight_bytes += c.data.size();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (json) {
    nlohmann::json j{{"input", in},
                     {"graph", graph_path},
                     {"weights", weights_path},
                     {"nodes_in", r.nodes_in},
                     {"ops_out", r.graph.nodes().size()},
                     {"weight_bytes", weight_bytes},
                     {"seconds", seconds},
                     {"warnings", r.warnings}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "%s: %zu ONNX nodes -> %zu WebNN ops, %llu weight bytes, %.2f s\nwrote %s\nwrote %s\n",
        in.c_str(), r.nodes_in, r.graph.nodes().size(),
        static_cast<unsigned long long>(weight_bytes), seconds, graph_path.c_str(),
        weights_path.c_str());
  }
  return kExitOk;
}

}  // namespace wnn::cli
