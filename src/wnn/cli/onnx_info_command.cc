// `wnn onnx-info`: what an ONNX file holds, read with wnn's own decoder: IR version, opsets,
// graph inputs and outputs, an operator histogram, initializers and external data files.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

#include "wnn/cli/command.h"
#include "wnn/core/error.h"
#include "wnn/onnx/external_data.h"
#include "wnn/onnx/model.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::cli {
namespace {

using nlohmann::json;

void count_ops(const onnx::GraphProto& g, std::map<std::string, int64_t>& ops, int64_t& total) {
  for (const auto& n : g.node) {
    ++ops[(n.domain.empty() ? std::string("ai.onnx") : n.domain) + "::" + n.op_type];
    ++total;
    for (const auto& a : n.attribute) {
      if (a.g) count_ops(*a.g, ops, total);
      for (const auto& sub : a.graphs) count_ops(*sub, ops, total);
    }
  }
}

// The bytes a tensor's elements take in raw form; 0 for types without one (strings).
uint64_t payload_bytes(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0 || (d > 0 && n > kMaxElements / d)) return 0;
    n *= d;
  }
  try {
    return onnx::raw_byte_size(t.data_type, n);
  } catch (const Error&) {
    return 0;
  }
}

json values_json(const std::vector<onnx::ValueInfoProto>& values,
                 const std::vector<onnx::TensorProto>& initializers) {
  json out = json::array();
  for (const auto& v : values) {
    const bool is_init = std::any_of(initializers.begin(), initializers.end(),
                                     [&](const onnx::TensorProto& t) { return t.name == v.name; });
    if (!is_init) out.push_back({{"name", v.name}, {"type", onnx::type_to_string(v.type)}});
  }
  return out;
}

json model_summary(const onnx::ModelProto& m) {
  json opsets = json::array();
  for (const auto& o : m.opset_import) {
    opsets.push_back({{"domain", o.domain.empty() ? "ai.onnx" : o.domain}, {"version", o.version}});
  }
  std::map<std::string, int64_t> ops;
  int64_t all_nodes = 0;
  count_ops(m.graph, ops, all_nodes);
  std::vector<std::pair<std::string, int64_t>> sorted(ops.begin(), ops.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json histogram = json::array();
  for (const auto& [op, count] : sorted) histogram.push_back({{"op", op}, {"count", count}});

  uint64_t init_bytes = 0;
  std::map<std::string, uint64_t> external;
  for (const auto& t : m.graph.initializer) {
    const uint64_t bytes = payload_bytes(t);
    init_bytes += bytes;
    if (t.is_external()) external[onnx::external_data_info(t).location] += bytes;
  }
  json files = json::array();
  for (const auto& [location, bytes] : external) {
    files.push_back({{"location", location}, {"bytes", bytes}});
  }
  return {
      {"ir_version", m.ir_version},
      {"producer", m.producer_name + (m.producer_version.empty() ? "" : " " + m.producer_version)},
      {"opsets", opsets},
      {"inputs", values_json(m.graph.input, m.graph.initializer)},
      {"outputs", values_json(m.graph.output, {})},
      {"nodes", m.graph.node.size()},
      {"nodes_including_subgraphs", all_nodes},
      {"ops", histogram},
      {"initializers", m.graph.initializer.size()},
      {"initializer_bytes", init_bytes},
      {"sparse_initializers", m.graph.sparse_initializer.size()},
      {"functions", m.functions.size()},
      {"external_data", files},
  };
}

std::string human_bytes(uint64_t b) {
  if (b < 1024) return fmt::format("{} B", b);
  if (b < 1024 * 1024) return fmt::format("{:.1f} KiB", double(b) / 1024);
  if (b < uint64_t(1) << 30) return fmt::format("{:.1f} MiB", double(b) / (1024 * 1024));
  return fmt::format("{:.2f} GiB", double(b) / double(uint64_t(1) << 30));
}

void print_text(const std::string& path, const json& s) {
  std::printf("%s\n", path.c_str());
  std::printf("  ir_version: %lld\n", (long long)s["ir_version"].get<int64_t>());
  if (!s["producer"].get<std::string>().empty()) {
    std::printf("  producer: %s\n", s["producer"].get<std::string>().c_str());
  }
  std::string opsets;
  for (const auto& o : s["opsets"]) {
    opsets += fmt::format("{}{} {}", opsets.empty() ? "" : ", ", o["domain"].get<std::string>(),
                          o["version"].get<int64_t>());
  }
  std::printf("  opsets: %s\n", opsets.c_str());
  for (const char* key : {"inputs", "outputs"}) {
    std::printf("  %s:\n", key);
    for (const auto& v : s[key]) {
      std::printf("    %s: %s\n", v["name"].get<std::string>().c_str(),
                  v["type"].get<std::string>().c_str());
    }
  }
  std::printf("  nodes: %zu (%lld including subgraphs)\n", s["nodes"].get<size_t>(),
              (long long)s["nodes_including_subgraphs"].get<int64_t>());
  std::printf("  ops:\n");
  for (const auto& o : s["ops"]) {
    std::printf("    %-32s %lld\n", o["op"].get<std::string>().c_str(),
                (long long)o["count"].get<int64_t>());
  }
  std::printf("  initializers: %zu (%s)\n", s["initializers"].get<size_t>(),
              human_bytes(s["initializer_bytes"].get<uint64_t>()).c_str());
  if (s["sparse_initializers"].get<size_t>() > 0) {
    std::printf("  sparse initializers: %zu\n", s["sparse_initializers"].get<size_t>());
  }
  if (s["functions"].get<size_t>() > 0) {
    std::printf("  local functions: %zu\n", s["functions"].get<size_t>());
  }
  for (const auto& f : s["external_data"]) {
    std::printf("  external data: %s (%s)\n", f["location"].get<std::string>().c_str(),
                human_bytes(f["bytes"].get<uint64_t>()).c_str());
  }
}

int run_onnx_info(Args& args) {
  const bool as_json = args.flag("json");
  const bool check_data = args.flag("check-data");
  const auto rest = args.finish();
  check(rest.size() == 1, "onnx-info takes one MODEL.onnx (got {} arguments)", rest.size());
  const onnx::ModelProto m = onnx::load_model(rest[0]);
  if (check_data) {
    // Decode every initializer's elements, reading external data through the same resolver
    // the importer uses (locations must stay inside the model's directory).
    const auto resolver = onnx::ExternalDataResolver::for_model(rest[0]);
    for (const auto& t : m.graph.initializer) {
      with_error_context(rest[0], [&] { onnx::tensor_data(t, resolver); });
    }
  }
  const json summary = model_summary(m);
  if (as_json) {
    std::printf("%s\n", summary.dump(2).c_str());
  } else {
    print_text(rest[0], summary);
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "onnx-info",
    "summarise an ONNX model: opsets, inputs, outputs, operators, weights",
    "usage: wnn onnx-info MODEL.onnx [--json] [--check-data]\n\n"
    "Decodes the model with wnn's ONNX reader and prints its IR version, opset imports,\n"
    "graph inputs and outputs with types and shapes, node count, a histogram of\n"
    "domain::op_type, initializer count and bytes, and the external data files it uses.\n\n"
    "options:\n"
    "  --json         machine-readable output\n"
    "  --check-data   also decode every initializer, reading its external data, and fail on\n"
    "                 the first that is malformed or points outside the model's directory",
    run_onnx_info,
}};

}  // namespace
}  // namespace wnn::cli
