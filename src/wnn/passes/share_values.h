// Common subexpressions computed once: equal small constants become one constant, and a node
// computing what an earlier node computes (the same op, the same operands after that, the same
// options) is dropped, its readers reading the earlier node's outputs. Exporters repeat a
// computation per layer that every layer shares: a decoder's attention writes its positions,
// mask and cache indices once per layer from the same inputs (onnx/ops/attention.cc).
#pragma once

#include <cstddef>

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

// Constants up to this many bytes are compared by value (larger ones, the weights, only by
// operand).
inline constexpr size_t kSharedConstantBytes = 4096;

// `fused` counts the nodes dropped. A node with a graph output is kept (outputs keep their
// names), and so is every node when nothing repeats (a copy of the graph, fused 0).
PatternFusion share_common_values(const Graph& graph);

}  // namespace wnn::passes
