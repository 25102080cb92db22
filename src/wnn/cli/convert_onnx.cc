// `wnn convert model.onnx -o DIR`: imports an ONNX model and writes DIR/<stem>.webnn and
// DIR/<stem>.safetensors. `wnn convert` dispatches .onnx inputs to convert_onnx_main.
#include <nlohmann/json.hpp>
#include <optional>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/core/error.h"
#include "wnn/format/model.h"
#include "wnn/onnx/import.h"

namespace wnn::cli {

namespace {

namespace fs = std::filesystem;

std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     std::string_view option) {
  const size_t eq = text.find('=');
  check(eq != std::string::npos && eq > 0, "{} expects NAME=VALUE, got '{}'", option, text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_dim(const std::string& name, const std::string& v, std::string_view where) {
  size_t used = 0;
  int64_t n = -1;
  try {
    n = std::stoll(v, &used);
  } catch (...) {
  }
  check(used == v.size() && n >= 0, "{}: dimension '{}' must be a non-negative integer, got '{}'",
        where, name, v);
  return n;
}

void read_dims_file(const std::string& path, std::map<std::string, int64_t>& dims) {
  std::ifstream f(path);
  check(f.good(), "--override-dims-file: cannot read '{}'", path);
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  check(!j.is_discarded() && j.is_object(), "{}: expected a JSON object", path);
  if (j.contains("freeDimensionOverrides")) j = j["freeDimensionOverrides"];
  check(j.is_object(), "{}: freeDimensionOverrides must be an object", path);
  for (auto& [name, v] : j.items()) {
    check(v.is_number_integer() && v.get<int64_t>() >= 0,
          "{}: dimension '{}' must be a non-negative integer", path, name);
    dims[name] = v.get<int64_t>();
  }
}

}  // namespace

int convert_onnx_main(Args& args, const std::optional<std::string>& out) {
  const auto start = std::chrono::steady_clock::now();
  const bool json = args.flag("json");
  onnx::ImportOptions options;
  if (auto f = args.value("override-dims-file")) read_dims_file(*f, options.override_dims);
  for (const auto& d : args.values("override-dim")) {
    auto [name, v] = split_assignment(d, "--override-dim");
    options.override_dims[name] = parse_dim(name, v, "--override-dim");
  }
  const std::string weights = args.value("weights").value_or("real");
  check(weights == "real" || weights == "zeros", "--weights must be real or zeros, got '{}'",
        weights);
  options.zero_missing_weights = weights == "zeros";
  for (const auto& p : args.values("pin-input")) {
    auto [name, v] = split_assignment(p, "--pin-input");
    options.pin_inputs[name] = v;
  }
  const std::string in = single_positional(args.finish(), "convert", "input .onnx file");
  check(out.has_value(), "wnn convert: missing -o DIR (see wnn convert --help)");
  onnx::ImportResult r = onnx::import_model(in, options);
  for (const auto& w : r.warnings) std::fprintf(stderr, "wnn: warning: %s\n", w.c_str());
  fs::create_directories(*out);
  const std::string stem = fs::path(in).stem().string();
  const std::string graph_path = (fs::path(*out) / (stem + ".webnn")).string();
  const std::string weights_path = (fs::path(*out) / (stem + ".safetensors")).string();
  format::save_model(r.graph, graph_path, weights_path);
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
