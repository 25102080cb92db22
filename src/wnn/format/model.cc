// A whole model: the graph file plus its weights. Loading binds every weights constant through
// the WeightsSource (which checks dtype, shape and length); saving writes the graph file and a
// Safetensors file of every weights constant, both atomically.
#include "wnn/format/model.h"

#include <filesystem>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"

namespace wnn::format {

namespace {

// The files open_weights_for looks at, for the message when none exists.
std::vector<std::string> weights_candidates(const std::string& graph_path,
                                            const std::optional<std::string>& explicit_path) {
  if (explicit_path) return {*explicit_path};
  const std::filesystem::path p(graph_path);
  const std::filesystem::path dir = p.parent_path();
  const std::string stem = p.stem().string();
  return {(dir / "model.safetensors").string(), (dir / (stem + ".safetensors")).string(),
          (dir / (stem + ".weights")).string(), (dir / "model.weights").string()};
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Model load_model(const std::string& path, const LoadOptions& options) {
  Model model;
  model.graph = read_graph_file(path);
  model.graph_path = path;
  Graph& g = model.graph;
  with_error_context(path, [&] { g.bind_inline_constants(); });
  size_t weights_consts = 0;
  for (const auto& c : g.constants()) weights_consts += c.init == ConstantInitKind::kWeights;
  if (weights_consts == 0) return model;

  const std::unique_ptr<WeightsSource> source = open_weights_for(path, options.weights_path);
  if (source == nullptr && !options.skeleton) {
    fail("{}: the graph has {} weights constants but no weights file was found (looked for {})",
         path, weights_consts, fmt::join(weights_candidates(path, options.weights_path), ", "));
  }
  if (source != nullptr) model.weights_path = source->path();
  const auto constants = g.constants();
  for (size_t i = 0; i < constants.size(); ++i) {
    const ConstantInfo& c = constants[i];
    if (c.init != ConstantInitKind::kWeights) continue;
    const OperandDesc& desc = g.desc(c.id);
    if (source == nullptr || (options.skeleton && source->find(c.key) == nullptr)) {
      // Skeleton mode only: zeros stand in for the missing tensor.
      g.bind_constant(i, Buffer::allocate(desc.byte_size()));
      continue;
    }
    // The weights source names its own file in its messages; the context names the graph's.
    with_error_context(fmt::format("{}: constant '{}'", path, g.name_of(c.id)),
                       [&] { g.bind_constant(i, source->load(c.key, desc)); });
  }
  return model;
}

void save_model(const Graph& graph, const std::string& graph_path, const std::string& weights_path,
                const WriteProgress& on_weights_progress) {
  // MLGraphBuilder.build rejects a graph with no outputs, and so does every reader here.
  check(!graph.outputs().empty(), "{}: the graph has no outputs: nothing to save", graph_path);
  std::vector<TensorToWrite> tensors;
  std::map<std::string, size_t> by_key;
  for (const auto& c : graph.constants()) {
    if (c.init != ConstantInitKind::kWeights) continue;
    const OperandDesc& desc = graph.desc(c.id);
    check(c.bound(), "constant '{}' has no data to save (its weights were never loaded)",
          graph.name_of(c.id));
    if (const auto it = by_key.find(c.key); it != by_key.end()) {
      // Two constants may share one stored tensor, but only when they agree on it.
      const TensorToWrite& seen = tensors[it->second];
      check(seen.dtype == desc.dtype && seen.shape == desc.shape &&
                std::equal(seen.data.bytes().begin(), seen.data.bytes().end(),
                           c.data.bytes().begin(), c.data.bytes().end()),
            "constants share the weights key '{}' but hold different tensors", c.key);
      continue;
    }
    by_key.emplace(c.key, tensors.size());
    tensors.push_back({c.key, desc.dtype, desc.shape, c.data});
  }
  check(tensors.empty() || !weights_path.empty(),
        "the graph has {} weights tensors but no weights path was given", tensors.size());
  const std::string text =
      ends_with(graph_path, ".json") ? print_json(graph) : print_text_mapping_names(graph);
  // Output directories are made on demand, as `convert -o DIR` users expect.
  for (const std::string* p : {&graph_path, &weights_path}) {
    const auto parent = std::filesystem::path(*p).parent_path();
    std::error_code ec;
    if (!p->empty() && !parent.empty()) std::filesystem::create_directories(parent, ec);
    check(!ec, "cannot create directory '{}': {}", parent.string(), ec.message());
  }
  if (!tensors.empty()) write_safetensors(weights_path, tensors, {}, on_weights_progress);
  write_file_atomic(graph_path, text);
}

}  // namespace wnn::format
