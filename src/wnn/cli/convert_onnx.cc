// `wnn convert model.onnx -o DIR`: imports an ONNX model and writes DIR/<stem>.webnn and
// DIR/<stem>.safetensors. `wnn convert` dispatches .onnx inputs to convert_onnx_main.
#include <nlohmann/json.hpp>
#include <optional>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include <unistd.h>

#include "wnn/cli/command.h"
#include "wnn/cli/conversion_args.h"
#include "wnn/cli/convert_progress.h"
#include "wnn/cli/graph_args.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/format/shared_weights.h"
#include "wnn/onnx/dim_overrides.h"
#include "wnn/onnx/import.h"
#include "wnn/validate/conversion.h"
#include "wnn/validate/validate.h"

namespace wnn::cli {

namespace fs = std::filesystem;

namespace {

// --phase NAME:DIM=V[,DIM=V...]: one graph per phase, its free dims bound on top of the
// --override-dim values.
struct Phase {
  std::string name;
  std::map<std::string, int64_t> dims;
};

std::vector<Phase> read_phases(Args& args) {
  std::vector<Phase> phases;
  for (const auto& spec : args.values("phase")) {
    const size_t colon = spec.find(':');
    check(colon != std::string::npos && colon > 0,
          "--phase expects NAME:DIM=V[,DIM=V...], got '{}'", spec);
    Phase p{spec.substr(0, colon), {}};
    for (char ch : p.name) {
      check(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-',
            "--phase: the name '{}' must be letters, digits, '_' or '-'", p.name);
    }
    for (const auto& q : phases) check(q.name != p.name, "--phase '{}' is given twice", p.name);
    std::string_view rest = std::string_view(spec).substr(colon + 1);
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const auto [key, v] = onnx::parse_dim_override(rest.substr(0, comma), "--phase");
      p.dims[key] = v;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    phases.push_back(std::move(p));
  }
  check(phases.size() != 1, "--phase: give two or more phases (one is plain --override-dim)");
  return phases;
}

// Imports the model once per phase and writes DIR/STEM.PHASE.webnn for each and one
// DIR/STEM.safetensors with the union of their weights: a tensor the phases agree on is stored
// once, one that differs (a folded shape constant, a mask) under KEY.PHASE.
int convert_phases(const std::string& in, const std::string& out,
                   const onnx::ImportOptions& options, const std::vector<Phase>& phases, bool quiet,
                   bool json) {
  const auto start = std::chrono::steady_clock::now();
  const std::string stem = fs::path(in).stem().string();
  std::vector<onnx::ImportResult> results;
  for (const Phase& p : phases) {
    ConvertProgress progress(!json && !quiet && ::isatty(2) != 0);
    onnx::ImportOptions o = options;
    for (const auto& [k, v] : p.dims) o.override_dims[k] = v;
    o.on_node = [&](size_t done, size_t total) { progress.nodes(done, total); };
    o.keep_misaligned_weights = true;
    results.push_back(with_error_context(fmt::format("phase '{}'", p.name),
                                         [&] { return onnx::import_model(in, o); }));
    progress.done();
    for (const auto& w : results.back().warnings) {
      std::fprintf(stderr, "wnn: warning: phase '%s': %s\n", p.name.c_str(), w.c_str());
    }
  }
  std::vector<Graph*> graphs;
  std::vector<std::string> names;
  std::vector<format::GraphToSave> saves;
  for (size_t i = 0; i < phases.size(); ++i) {
    graphs.push_back(&results[i].graph);
    names.push_back(phases[i].name);
    saves.push_back(
        {&results[i].graph, (fs::path(out) / (stem + "." + phases[i].name + ".webnn")).string()});
  }
  const size_t renamed = format::give_distinct_keys(graphs, names);
  fs::create_directories(out);
  const std::string weights_path = (fs::path(out) / (stem + ".safetensors")).string();
  ConvertProgress progress(!json && !quiet && ::isatty(2) != 0);
  format::save_models(saves, weights_path,
                      [&](uint64_t done, uint64_t total) { progress.weights(done, total); });
  progress.done();
  std::set<std::string> keys;
  uint64_t stored_bytes = 0, per_phase_bytes = 0;
  for (const Graph* g : graphs) {
    for (const auto& c : g->constants()) {
      if (c.init != ConstantInitKind::kWeights) continue;
      per_phase_bytes += c.data.size();
      if (keys.insert(c.key).second) stored_bytes += c.data.size();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (json) {
    nlohmann::json j{{"input", in},
                     {"weights", weights_path},
                     {"stored_tensors", keys.size()},
                     {"weight_bytes", stored_bytes},
                     {"phase_weight_bytes", per_phase_bytes},
                     {"renamed_keys", renamed},
                     {"seconds", seconds}};
    for (size_t i = 0; i < phases.size(); ++i) {
      j["phases"].push_back({{"name", phases[i].name},
                             {"graph", saves[i].path},
                             {"ops_out", results[i].graph.nodes().size()},
                             {"warnings", results[i].warnings}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf(
      "%s: %zu phases, %zu weights tensors (%zu only in one phase's form), %llu weight "
      "bytes stored (%llu over the phases), %.2f s\n",
      in.c_str(), phases.size(), keys.size(), renamed,
      static_cast<unsigned long long>(stored_bytes),
      static_cast<unsigned long long>(per_phase_bytes), seconds);
  for (size_t i = 0; i < phases.size(); ++i) {
    std::printf("wrote %s (%s, %zu WebNN ops)\n", saves[i].path.c_str(), phases[i].name.c_str(),
                results[i].graph.nodes().size());
  }
  std::printf("wrote %s\n", weights_path.c_str());
  return kExitOk;
}

}  // namespace

int convert_onnx_main(Args& args, const std::optional<std::string>& out) {
  const auto start = std::chrono::steady_clock::now();
  const bool json = args.flag("json");
  const bool quiet = args.flag("quiet", 'q');
  const onnx::ImportOptions options = conversion_options(args);
  const bool cache = args.flag("cache");
  const bool validate = args.flag("validate");
  const bool validate_cached = args.flag("validate-cached");
  const std::vector<Phase> phases = read_phases(args);
  check(phases.empty() || (!cache && !validate && !validate_cached),
        "wnn convert: --phase writes to -o DIR; it takes neither --cache nor --validate "
        "(validate each phase's graph with wnn validate)");
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
  if (!phases.empty()) return convert_phases(in, *out, options, phases, quiet, json);
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
