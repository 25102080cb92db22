// Copying nodes through GraphBuilder (the only way to build a graph), so passes can rebuild a
// graph with some node outputs replaced by constants.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "wnn/core/builder.h"
#include "wnn/core/graph.h"

namespace wnn::passes {

// Re-adds `node` of `source` into `builder`, mapping every operand through `map` (indexed by
// source operand index) and keeping output names. Returns the new output ids.
std::vector<OperandId> copy_node(const Graph& source, const Node& node,
                                 const std::vector<OperandId>& map, GraphBuilder& builder);
// The same with the map as a function (source operand -> new id).
std::vector<OperandId> copy_node(const Graph& source, const Node& node,
                                 const std::function<OperandId(OperandId)>& map,
                                 GraphBuilder& builder);

// Starts rebuilding `source` into `builder`'s graph: copies its name, quantized flag, inputs
// and the constants marked in `needed` (indexed by operand), and returns the operand map
// (source operand index -> new id) with those entries filled.
std::vector<OperandId> copy_inputs_and_constants(const Graph& source,
                                                 const std::vector<bool>& needed,
                                                 GraphBuilder& builder);

// A name for a value a pass adds while rebuilding `source` into `builder`'s graph: unused in
// both (the nodes copied later keep their source names). `base`, else `base_1`, ...
std::string fresh_name(const Graph& source, const GraphBuilder& builder, const std::string& base);

// A copy of `source` without the graph inputs that no node reads and no output is; their
// names are appended to `removed`, in input order. Constants, nodes and names are kept.
Graph remove_unread_inputs(const Graph& source, std::vector<std::string>& removed);

}  // namespace wnn::passes
