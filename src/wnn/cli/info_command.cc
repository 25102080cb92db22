// `wnn info`: what a graph holds. Reads the graph file and, for weights, only the Safetensors
// header (WeightsSource::tensors()), never tensor data, so it stays fast on multi-GB files.
#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "wnn/cli/command.h"
#include "wnn/cli/graph_args.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/weights.h"

namespace wnn::cli {
namespace {

using json = nlohmann::ordered_json;

std::string type_text(const OperandDesc& d, const std::vector<std::optional<DynamicDim>>& dyn) {
  std::string s = std::string(dtype_name(d.dtype)) + "[";
  for (size_t i = 0; i < d.shape.size(); ++i) {
    if (i) s += ", ";
    s += i < dyn.size() && dyn[i] ? fmt::format("{}<={}", dyn[i]->name, dyn[i]->max)
                                  : std::to_string(d.shape[i]);
  }
  return s + "]";
}

// `wnn info` of a tensor file rather than a graph: a .npy tensor, or the tensors of a
// Safetensors or legacy .weights file (validated as `wnn check` would open them).
int run_tensor_file_info(const std::string& path, bool as_json) {
  json report;
  report["file"] = path;
  json tensors = json::array();
  if (has_extension(path, ".npy")) {
    const Tensor t = format::read_npy(path);
    tensors.push_back({{"key", ""},
                       {"dtype", dtype_name(t.dtype)},
                       {"shape", t.shape},
                       {"bytes", t.byte_size()}});
  } else {
    const auto source = format::open_weights_for(path, path);
    for (const auto* t : source->tensors()) {
      tensors.push_back({{"key", t->key},
                         {"dtype", t->file_dtype},
                         {"shape", t->shape},
                         {"bytes", t->bytes.size()}});
    }
  }
  report["tensors"] = tensors;
  if (as_json) {
    std::printf("%s\n", report.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%s: %zu tensors\n", path.c_str(), tensors.size());
  for (const auto& t : tensors) {
    std::printf("  %s: %s%s, %llu bytes\n", t["key"].get<std::string>().c_str(),
                t["dtype"].get<std::string>().c_str(),
                shape_to_string(t["shape"].get<Shape>()).c_str(),
                (unsigned long long)t["bytes"].get<uint64_t>());
  }
  return kExitOk;
}

int run_info(Args& args) {
  const auto weights = args.value("weights");
  const bool as_json = args.flag("json");
  const std::string path = single_positional(args.finish(), "info", "graph file");
  if (has_extension(path, ".npy") || has_extension(path, ".safetensors") ||
      has_extension(path, ".weights")) {
    return run_tensor_file_info(path, as_json);
  }
  const Graph g = format::read_graph_file(path);

  json report;
  report["graph"] = path;
  report["name"] = g.name;
  json inputs = json::array();
  for (const auto& in : g.inputs()) {
    inputs.push_back(
        {{"name", g.name_of(in.id)}, {"type", type_text(g.desc(in.id), in.dynamic_dims)}});
  }
  report["inputs"] = inputs;
  json outputs = json::array();
  for (OperandId id : g.outputs()) {
    outputs.push_back({{"name", g.name_of(id)}, {"type", type_text(g.desc(id), {})}});
  }
  report["outputs"] = outputs;
  std::map<std::string, size_t> histogram;
  for (const auto& n : g.nodes()) ++histogram[std::string(n.attrs.schema().name)];
  std::vector<std::pair<std::string, size_t>> ops(histogram.begin(), histogram.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json op_counts = json::object();
  for (const auto& [op, count] : ops) op_counts[op] = count;
  report["nodes"] = g.nodes().size();
  report["ops"] = op_counts;
  int64_t parameters = 0;
  size_t weights_consts = 0;
  std::map<std::string, uint64_t> declared_bytes;
  for (const auto& c : g.constants()) {
    const OperandDesc& d = g.desc(c.id);
    parameters += element_count(d.shape);
    weights_consts += c.init == ConstantInitKind::kWeights;
    declared_bytes[std::string(dtype_name(d.dtype))] += d.byte_size();
  }
  report["constants"] = g.constants().size();
  report["parameters"] = parameters;
  json weights_report = nullptr;
  if (weights_consts > 0) {
    const auto source = format::open_weights_for(path, weights);
    if (source != nullptr) {
      std::map<std::string, uint64_t> by_dtype;
      uint64_t total = 0;
      const auto tensors = source->tensors();
      for (const auto* t : tensors) {
        by_dtype[t->file_dtype] += t->bytes.size();
        total += t->bytes.size();
      }
      weights_report = {{"path", source->path()},
                        {"tensors", tensors.size()},
                        {"bytes", total},
                        {"bytesByDtype", by_dtype}};
    }
  }
  report["weights"] = weights_report;
  report["declaredBytesByDtype"] = declared_bytes;

  if (as_json) {
    std::printf("%s\n", report.dump(2).c_str());
    return kExitOk;
  }
  std::printf("graph %s (\"%s\")\n", path.c_str(), g.name.c_str());
  std::printf("inputs:\n");
  for (const auto& i : inputs) {
    std::printf("  %s: %s\n", i["name"].get<std::string>().c_str(),
                i["type"].get<std::string>().c_str());
  }
  std::printf("outputs:\n");
  for (const auto& o : outputs) {
    std::printf("  %s: %s\n", o["name"].get<std::string>().c_str(),
                o["type"].get<std::string>().c_str());
  }
  std::printf("nodes: %zu\n", g.nodes().size());
  for (const auto& [op, count] : ops) std::printf("  %-24s %zu\n", op.c_str(), count);
  std::printf("constants: %zu, parameters: %lld\n", g.constants().size(), (long long)parameters);
  for (const auto& [dt, bytes] : declared_bytes) {
    std::printf("  declared %-10s %llu bytes\n", dt.c_str(), (unsigned long long)bytes);
  }
  if (weights_report.is_null()) {
    std::printf("weights: %s\n", weights_consts == 0 ? "none needed" : "no weights file found");
  } else {
    std::printf("weights: %s, %zu tensors, %llu bytes\n",
                weights_report["path"].get<std::string>().c_str(),
                weights_report["tensors"].get<size_t>(),
                (unsigned long long)weights_report["bytes"].get<uint64_t>());
    for (const auto& [dt, bytes] : weights_report["bytesByDtype"].items()) {
      std::printf("  %-10s %llu bytes\n", dt.c_str(), (unsigned long long)bytes.get<uint64_t>());
    }
  }
  return kExitOk;
}

const CommandRegistration registration{{
    "info",
    "summarise a graph: inputs, outputs, op histogram, parameters, weight bytes",
    "usage: wnn info GRAPH [--weights PATH] [--json]\n"
    "       wnn info TENSORS.{npy,safetensors,weights} [--json]\n\n"
    "Prints GRAPH's inputs and outputs with dtypes and shapes (dynamic dims as name<=max),\n"
    "the number of nodes per operator, the number of constants and parameters (elements),\n"
    "the bytes the constants declare per dtype, and the weights file's tensors and bytes\n"
    "per stored dtype. Only the weights file's header is read, never its data.\n"
    "Given a tensor file instead, validates it and lists its tensors (key, dtype, shape, "
    "bytes).\n\n"
    "options:\n"
    "  --weights PATH  the weights file; else looked up beside GRAPH as wnn check does\n"
    "  --json          machine-readable: {graph, name, inputs, outputs, nodes, ops,\n"
    "                  constants, parameters, weights, declaredBytesByDtype}",
    run_info,
}};

}  // namespace
}  // namespace wnn::cli
