#include "wnn/format/resolve_dims.h"

#include <nlohmann/json.hpp>
#include <set>

#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {

Graph resolve_dynamic_dims(const Graph& graph, const std::map<std::string, int64_t>& sizes) {
  std::set<std::string> known;
  for (const auto& in : graph.inputs()) {
    for (size_t i = 0; i < in.dynamic_dims.size(); ++i) {
      const auto& d = in.dynamic_dims[i];
      if (!d) continue;
      known.insert(d->name);
      const auto it = sizes.find(d->name);
      if (it == sizes.end()) continue;
      check(it->second >= 1 && it->second <= d->max,
            "dynamic dim '{}' (input '{}', dim {}) must be in [1, {}], got {}", d->name,
            graph.name_of(in.id), i, d->max, it->second);
    }
  }
  for (const auto& [name, size] : sizes) {
    check(known.count(name), "the graph has no dynamic dim named '{}'", name);
  }
  // The JSON form writes a dynamic dim as {"name", "maxSize"}: replace each by its size.
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(print_json(graph));
  for (auto& [input, desc] : doc["inputs"].items()) {
    for (auto& dim : desc["shape"]) {
      if (!dim.is_object()) continue;
      const auto it = sizes.find(dim["name"].get<std::string>());
      dim = it != sizes.end() ? it->second : dim["maxSize"].get<int64_t>();
    }
  }
  Graph resolved = with_error_context("resolving dynamic dims", [&] {
    return parse_json(doc.dump(), graph.name + " (dynamic dims resolved)");
  });
  const auto constants = resolved.constants();
  for (size_t i = 0; i < constants.size(); ++i) {
    const ConstantInfo* original =
        graph.constant_of(*graph.find(resolved.name_of(constants[i].id)));
    check_internal(original != nullptr, "constant '{}' lost while resolving dynamic dims",
                   resolved.name_of(constants[i].id));
    if (original->init == ConstantInitKind::kWeights && original->bound())
      resolved.bind_constant(i, original->data);
  }
  resolved.bind_inline_constants();
  resolved.name = graph.name;
  resolved.quantized = graph.quantized;
  return resolved;
}

}  // namespace wnn::format
