// Resolving a graph's bounded dynamic input dims (`dyn("batch", 8)`) to actual sizes, so the
// runtime, which executes static shapes only, can run it: the graph is replayed through its
// canonical form with the sizes substituted, so every shape is inferred again by the builder.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "wnn/core/graph.h"

namespace wnn::format {

// A static copy of `graph` where each dynamic dim named in `sizes` takes that size (checked
// against 1..max) and every other dynamic dim its max. Constants share the original's bound
// data. Throws naming the dim when a size is out of range or names no dynamic dim, and naming the
// node when a literal in the graph (a reshape's shape) no longer fits the new size.
Graph resolve_dynamic_dims(const Graph& graph, const std::map<std::string, int64_t>& sizes);

}  // namespace wnn::format
