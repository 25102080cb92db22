// The order the importer converts a graph's nodes in: each node after the producers of every
// value it reads, directly or from inside its subgraphs (outer-scope captures). Files need not
// list nodes in that order: onnxconverter-common's float16 conversion appends its Casts last.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "wnn/onnx/model.h"

namespace wnn::onnx {

// The values `g` reads from enclosing scopes: the names its nodes (and their nested subgraphs)
// read that `g` does not define as an input, initializer or node output.
std::set<std::string> outer_reads(const GraphProto& g);

// Indices into `nodes`, each node after the producers of what it reads. Stable: of the nodes
// whose inputs are ready, the one listed first comes first, so a sorted list keeps its order.
// `available(name)` says a value exists before any node runs (graph input, initializer, outer
// value). A read that is neither available nor produced, and a cycle, are errors that name the
// node.
std::vector<size_t> topo_order(const std::vector<NodeProto>& nodes,
                               const std::function<bool(const std::string&)>& available);

}  // namespace wnn::onnx
