#include "wnn/cli/graph_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "wnn/core/error.h"
#include "wnn/format/weights.h"
#include "wnn/runtime/inputs.h"

namespace wnn::cli {

std::string single_positional(const std::vector<std::string>& rest, std::string_view command,
                              std::string_view what) {
  check(!rest.empty(), "wnn {}: missing {} (see wnn {} --help)", command, what, command);
  check(rest.size() == 1, "wnn {}: expected one {}, got {} arguments: {}", command, what,
        rest.size(), fmt::join(rest, " "));
  return rest[0];
}

bool has_extension(std::string_view path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  return std::equal(ext.begin(), ext.end(), path.end() - long(ext.size()), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

std::vector<runtime::NamedTensor> graph_inputs(const Graph& graph,
                                               const std::vector<std::string>& specs,
                                               bool fill_missing, uint64_t seed) {
  std::map<std::string, Tensor> given;
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    check(eq != std::string::npos && eq > 0, "--input takes NAME=FILE.npy, got '{}'", spec);
    const std::string name = spec.substr(0, eq);
    check(graph.find(name).has_value() &&
              graph.operand(*graph.find(name)).kind == OperandKind::kInput,
          "--input {}: the graph has no input '{}'", spec, name);
    given[name] = with_error_context("--input " + spec,
                                     [&] { return format::read_npy(spec.substr(eq + 1)); });
  }
  std::vector<runtime::NamedTensor> out;
  for (const auto& in : graph.inputs()) {
    const std::string& name = graph.name_of(in.id);
    if (auto it = given.find(name); it != given.end()) {
      out.push_back({name, it->second});
      continue;
    }
    check(fill_missing, "input '{}' ({}) needs --input {}=FILE.npy, or pass --random-inputs", name,
          graph.desc(in.id).to_string(), name);
    out.push_back({name, runtime::deterministic_tensor(graph.desc(in.id), name, seed)});
  }
  return out;
}

std::vector<runtime::NamedView> views_of(const std::vector<runtime::NamedTensor>& tensors) {
  std::vector<runtime::NamedView> views;
  for (const auto& t : tensors) views.push_back({t.name, t.tensor.view()});
  return views;
}

}  // namespace wnn::cli
