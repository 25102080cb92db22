// Several graphs over one weights file: the phases of a decoder (`wnn convert --phase`,
// docs/transformers.md), each its own graph file, their weights stored once.
#pragma once

#include <span>
#include <string>

#include "wnn/core/graph.h"
#include "wnn/format/weights.h"

namespace wnn::format {

// Several graphs over ONE weights file (the phases of a decoder, docs/transformers.md): each
// graph file is written to its path and the union of their weights constants to
// `weights_path`. A key two graphs use is stored once, so it must hold the same tensor in both
// (give_distinct_keys makes that so).
struct GraphToSave {
  const Graph* graph;
  std::string path;
};
void save_models(std::span<const GraphToSave> graphs, const std::string& weights_path,
                 const WriteProgress& on_weights_progress = {});

// Before save_models: a weights constant of graphs[i] (i > 0) whose key an earlier graph
// stores with another dtype, shape or bytes (a folded shape constant, a mask) is renamed
// KEY.SUFFIX (SUFFIX = suffixes[i], then a counter while that is taken). Returns the number
// renamed. Tensors equal under one key stay shared.
size_t give_distinct_keys(std::span<Graph* const> graphs, std::span<const std::string> suffixes);

}  // namespace wnn::format
