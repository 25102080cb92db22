// The ONNX importer: turns a decoded ONNX model into a WebNN Graph. Every node is dispatched on
// (domain, op_type, opset) through the converter registry (registry.h); shape subgraphs whose
// inputs are known are folded to constants; unsupported nodes are all reported in one error.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "wnn/core/error.h"
#include "wnn/core/graph.h"
#include "wnn/onnx/model.h"

namespace wnn::onnx {

struct ImportOptions {
  // Free dimension name -> value (from --override-dim / --override-dims-file).
  std::map<std::string, int64_t> override_dims;
  // Graph input name -> value text ("3", "1,2,3"): the input becomes a constant of its
  // declared type and shape (one value fills the whole shape).
  std::map<std::string, std::string> pin_inputs;
  // The same with exact tensors (the backend-test runner pins shape inputs to test data).
  std::map<std::string, Tensor> pin_tensors;
  // Skeleton mode (`wnn convert --weights zeros`): external data whose file is missing, or
  // too short for the tensor, reads as zeros, so a model's structure converts without its
  // weights. Each substituted file is named in the warnings.
  bool zero_missing_weights = false;
  // The graph is only written out (`wnn convert`): weights constants may view bytes of the
  // model file that are not aligned for their element type, so nothing is copied. Otherwise
  // such constants are copied to aligned memory at the end, ready for a Session.
  bool keep_misaligned_weights = false;
  // Called after each top-level node with (nodes converted, total) for a progress line.
  std::function<void(size_t done, size_t total)> on_node;
};

// The ONNX node some WebNN nodes were converted from (`wnn view` shows it beside them).
struct NodeOrigin {
  std::string name;  // "" when the ONNX node is unnamed
  std::string op_type, domain;
  // (ONNX output name, operand name in the graph) of each output that became an operand.
  std::vector<std::pair<std::string, std::string>> outputs;
};

struct ImportResult {
  Graph graph;
  // (ONNX graph input/output name, operand name in `graph`), in the model's order. Graph inputs
  // that are pinned, pruned or are initializers are not listed. Names the text form cannot hold
  // are mapped (core/names.h).
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<std::pair<std::string, std::string>> outputs;
  // (ONNX graph input name, value) of every pinned input, in the model's order: what a
  // reference run of the original model must be fed for them.
  std::vector<std::pair<std::string, Tensor>> pinned;
  // (ONNX graph input name, declared type) of every input nothing reads once pinning, folding
  // and If inlining are done: removed from `graph` and not in `inputs` (a warning names them),
  // but a reference run of the original model must still be fed them.
  std::vector<std::pair<std::string, OperandDesc>> pruned;
  // Every output of a top-level ONNX node, in the order the nodes were converted (topological):
  // (ONNX value name, the operand of `graph` that holds it). The operand name is empty when
  // the value was folded to a constant at conversion (`wnn validate --per-node` lists those
  // as skipped). Values inside inlined If branches are not listed.
  std::vector<std::pair<std::string, std::string>> values;
  std::vector<std::string> warnings;
  size_t nodes_in = 0;
  // The ONNX nodes that became WebNN nodes, in conversion order (folded ones did not), and per
  // node of `graph` the index of its origin, -1 for nodes the importer adds on its own (the
  // identity that gives a graph output its name).
  std::vector<NodeOrigin> origins;
  std::vector<int32_t> origin_of;
};

// One node (or graph input/output) the importer could not convert.
struct UnsupportedNode {
  std::string name, op_type, domain;
  int64_t opset = 0;
  std::string reason;
  // Set when WebNN cannot express it at all (see unsupported.h): "strings", "sequences", ...
  std::string category;
};

// Thrown once, before anything is written, listing every unsupported node.
class UnsupportedModelError : public Error {
 public:
  UnsupportedModelError(std::string message, std::vector<UnsupportedNode> nodes)
      : Error(std::move(message)), nodes_(std::move(nodes)) {}
  const std::vector<UnsupportedNode>& nodes() const { return nodes_; }

 private:
  std::vector<UnsupportedNode> nodes_;
};

// Imports `model`; `model_dir` resolves external data ("" forbids it).
ImportResult import_model(const ModelProto& model, const std::string& model_dir,
                          const ImportOptions& options = {});
// Loads and imports the file at `path`.
ImportResult import_model(const std::string& path, const ImportOptions& options = {});

// Free dimensions that need no override: batch-like names resolve to 1.
bool is_batch_like_dim(std::string_view name);

}  // namespace wnn::onnx
