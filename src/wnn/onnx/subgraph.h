// Inlining an ONNX subgraph (an `If` branch) into its enclosing graph: every value the branch
// defines gets a scoped name that no other value of the model uses, while the values it reads
// from enclosing graphs (outer-scope captures) keep their names, so the importer resolves them
// like any other input. Nested subgraphs see the renamed values they capture.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "wnn/onnx/model.h"

namespace wnn::onnx {

// Adds every value and node name of `g` and of its nested subgraphs to `names`.
void collect_names(const GraphProto& g, std::set<std::string>& names);

// A copy of `branch` whose initializers, node outputs and node names are renamed to
// "<scope>/<name>" (suffixed "$N" when that is already in `taken`), and whose reads of those
// values (in its nodes, its outputs and nested subgraphs, unless shadowed there) follow.
// Every new name is added to `taken`: deterministic, and injective over the whole model when
// `taken` starts with collect_names of the model.
GraphProto scope_subgraph(const GraphProto& branch, std::string_view scope,
                          std::set<std::string>& taken);

}  // namespace wnn::onnx
