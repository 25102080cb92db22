// A whole model: the graph file plus its weights. Loading binds every weights constant through
// the WeightsSource (which checks dtype, shape and length); saving writes the graph file and a
// Safetensors file of every weights constant, both atomically.
#include "wnn/format/model.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "wnn/core/atomic_file.h"
#include "wnn/core/error.h"
#include "wnn/format/graph_file.h"
#include "wnn/format/shared_weights.h"
#include "wnn/format/sibling_paths.h"

namespace wnn::format {

namespace {

// The files open_weights_for looks at, for the message when none exists.
std::vector<std::string> looked_at(const std::string& graph_path,
                                   const std::optional<std::string>& explicit_path) {
  if (explicit_path) return {*explicit_path};
  return weights_candidates(graph_path);
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
         path, weights_consts, fmt::join(looked_at(path, options.weights_path), ", "));
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

namespace {

// The weights key of graph.constants()[i], renamed. Graph's constants are held in a non-const
// vector, so writing through the const view is defined; the key is the only field touched.
void set_key(Graph& graph, size_t i, const std::string& key) {
  const_cast<ConstantInfo&>(graph.constants()[i]).key = key;
}

bool same_tensor(DataType dtype, const Shape& shape, const Buffer& data, const OperandDesc& desc,
                 const Buffer& other) {
  return dtype == desc.dtype && shape == desc.shape &&
         std::equal(data.bytes().begin(), data.bytes().end(), other.bytes().begin(),
                    other.bytes().end());
}

}  // namespace

void save_model(const Graph& graph, const std::string& graph_path, const std::string& weights_path,
                const WriteProgress& on_weights_progress) {
  const GraphToSave one{&graph, graph_path};
  save_models({&one, 1}, weights_path, on_weights_progress);
}

void save_models(std::span<const GraphToSave> graphs, const std::string& weights_path,
                 const WriteProgress& on_weights_progress) {
  std::vector<TensorToWrite> tensors;
  std::map<std::string, size_t> by_key;
  for (const auto& [graph_ptr, graph_path] : graphs) {
    const Graph& graph = *graph_ptr;
    // MLGraphBuilder.build rejects a graph with no outputs, and so does every reader here.
    check(!graph.outputs().empty(), "{}: the graph has no outputs: nothing to save", graph_path);
    for (const auto& c : graph.constants()) {
      if (c.init != ConstantInitKind::kWeights) continue;
      const OperandDesc& desc = graph.desc(c.id);
      check(c.bound(), "constant '{}' has no data to save (its weights were never loaded)",
            graph.name_of(c.id));
      if (const auto it = by_key.find(c.key); it != by_key.end()) {
        // Two constants may share one stored tensor, but only when they agree on it.
        const TensorToWrite& seen = tensors[it->second];
        check(same_tensor(seen.dtype, seen.shape, seen.data, desc, c.data),
              "constants share the weights key '{}' but hold different tensors", c.key);
        continue;
      }
      by_key.emplace(c.key, tensors.size());
      tensors.push_back({c.key, desc.dtype, desc.shape, c.data});
    }
  }
  check(tensors.empty() || !weights_path.empty(),
        "the graph has {} weights tensors but no weights path was given", tensors.size());
  std::vector<std::string> texts;
  for (const auto& [graph, graph_path] : graphs) {
    texts.push_back(ends_with(graph_path, ".json") ? print_json(*graph)
                                                   : print_text_mapping_names(*graph));
  }
  // Output directories are made on demand, as `convert -o DIR` users expect.
  std::vector<const std::string*> paths{&weights_path};
  for (const auto& g : graphs) paths.push_back(&g.path);
  for (const std::string* p : paths) {
    const auto parent = std::filesystem::path(*p).parent_path();
    std::error_code ec;
    if (!p->empty() && !parent.empty()) std::filesystem::create_directories(parent, ec);
    check(!ec, "cannot create directory '{}': {}", parent.string(), ec.message());
  }
  if (!tensors.empty()) write_safetensors(weights_path, tensors, {}, on_weights_progress);
  for (size_t i = 0; i < graphs.size(); ++i) write_file_atomic(graphs[i].path, texts[i]);
}

size_t give_distinct_keys(std::span<Graph* const> graphs, std::span<const std::string> suffixes) {
  check(graphs.size() == suffixes.size(), "give_distinct_keys: {} graphs but {} suffixes",
        graphs.size(), suffixes.size());
  struct Stored {
    const Graph* graph;
    size_t constant;
  };
  std::map<std::string, Stored> stored;  // every key written so far, with its first holder
  size_t renamed = 0;
  for (size_t g = 0; g < graphs.size(); ++g) {
    Graph& graph = *graphs[g];
    std::map<std::string, std::string> new_key;  // per graph: one old key, one new key
    for (size_t i = 0; i < graph.constants().size(); ++i) {
      const ConstantInfo& c = graph.constants()[i];
      if (c.init != ConstantInitKind::kWeights) continue;
      if (const auto it = new_key.find(c.key); it != new_key.end()) {
        set_key(graph, i, it->second);
        continue;
      }
      const auto it = stored.find(c.key);
      if (it == stored.end()) {
        stored.emplace(c.key, Stored{&graph, i});
        continue;
      }
      const Graph& holder = *it->second.graph;
      if (&holder == &graph) continue;  // save_models checks keys shared within one graph
      const ConstantInfo& first = holder.constants()[it->second.constant];
      const OperandDesc& d = holder.desc(first.id);
      if (same_tensor(d.dtype, d.shape, first.data, graph.desc(c.id), c.data)) continue;
      std::string key = c.key + "." + suffixes[g];
      for (int n = 2; stored.count(key) != 0; ++n)
        key = fmt::format("{}.{}{}", c.key, suffixes[g], n);
      new_key.emplace(c.key, key);
      stored.emplace(key, Stored{&graph, i});
      set_key(graph, i, key);
      ++renamed;
    }
  }
  return renamed;
}

}  // namespace wnn::format
