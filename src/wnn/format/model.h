// Loading and saving a whole model: the graph file plus its weights.
#pragma once

#include <optional>
#include <string>

#include "wnn/core/graph.h"
#include "wnn/format/weights.h"

namespace wnn::format {

struct LoadOptions {
  std::optional<std::string> weights_path;  // --weights PATH; else looked up beside the graph
  bool skeleton = false;  // missing weights become zeros (asked for explicitly, never default)
};

struct Model {
  Graph graph;
  std::string graph_path;
  std::string weights_path;  // empty when the graph has no weights constants
};

// Parses the graph (text or JSON), finds its weights and binds every constant. Every const
// must resolve with the right dtype, shape and length; a missing entry is an error naming it.
Model load_model(const std::string& path, const LoadOptions& options = {});

// Writes `graph` as canonical `.webnn` text (or JSON when the path ends in .json) and its
// weights constants to `weights_path` as Safetensors. Both files are written atomically.
void save_model(const Graph& graph, const std::string& graph_path, const std::string& weights_path,
                const WriteProgress& on_weights_progress = {});

}  // namespace wnn::format
