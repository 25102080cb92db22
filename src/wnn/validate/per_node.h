// `wnn validate --per-node` (Polygraphy's "mark all outputs"): every ONNX value that is also an
// operand of the converted graph is compared, in topological order, to find the first node
// whose result leaves the tolerance. ONNX Runtime runs a copy of the model with those values
// added as graph outputs (reference_model.h), wnn the converted graph with the same operands
// marked as outputs. Values are taken in batches whose tensors fit a memory budget: one ORT run
// and one wnn run per batch, then the batch's tensors are freed.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wnn/core/graph.h"
#include "wnn/onnx/model.h"
#include "wnn/runtime/session.h"
#include "wnn/validate/compare.h"
#include "wnn/validate/noise_floor.h"
#include "wnn/validate/reference.h"

namespace wnn::validate {

struct PerNodeOptions {
  bool enabled = false;
  // Bytes of compared tensors held at once, ORT's and wnn's together (--per-node-memory).
  uint64_t memory_budget = uint64_t(1) << 30;
};

struct NodeRecord {
  std::string value;    // the ONNX value (an output of `node`)
  std::string operand;  // its operand in the converted graph ("" when it has none)
  std::string node;     // the ONNX node's name ("" when unnamed)
  std::string op_type;  // with "domain::" for a non-default domain
  std::vector<std::string> inputs;
  DataType dtype = DataType::kFloat32;  // ORT's value (set once compared)
  Shape shape;
  std::string skipped;   // why the value was not compared; "" when it was
  std::string mismatch;  // compared but wnn's dtype or shape differs (a divergence)
  bool pass = false;
  Tolerance tol;
  OutputMetrics metrics;  // when compared without mismatch
  std::optional<NoiseFloor> floor;
  size_t batch = 0;
  bool compared() const { return skipped.empty(); }
  bool has_metrics() const { return skipped.empty() && mismatch.empty(); }
};

struct PerNodeReport {
  std::vector<NodeRecord> nodes;  // topological order (the importer's conversion order)
  size_t compared = 0, skipped = 0, failing = 0;
  std::optional<size_t> first_divergent;  // index into nodes
  std::vector<size_t> worst;              // indices, by max_normalized, largest first
  size_t batches = 0;
  uint64_t memory_budget = 0;
  size_t noise_floor_batches = 0;  // batches whose floor was measured
  std::string noise_floor_error;   // the first batch whose noise-floor runs failed
  double ms = 0;
  // A failure of the per-node run itself; the stage is "reference" or "runtime".
  std::string error, error_stage;
};

// What a per-node run needs from the validation that precedes it.
struct PerNodeInputs {
  std::string onnx_path;
  const onnx::ModelProto* model = nullptr;
  std::vector<std::pair<std::string, std::string>> values;  // NameMaps::values
  std::shared_ptr<const Graph> graph;                       // the reloaded (and run) graph
  std::vector<runtime::NamedTensor> wnn_inputs;             // by operand name
  std::vector<FeedTensor> feeds;                            // ORT's
  runtime::SessionOptions session;
  ReferenceOptions reference;
  NoiseFloorMode noise_floor = NoiseFloorMode::kAuto;
  // The tolerance of a value of dtype `d` held by the converted graph's `operand` (the outputs'
  // rule: ProfileDtypes, then --atol/--rtol).
  std::function<Tolerance(DataType d, const std::string& operand)> tolerance;
  std::string work_dir;
  // Called before each ORT and wnn run with a one-line state ("batch 3/12: ONNX Runtime").
  std::function<void(const std::string&)> progress;
};

// Never throws for the model's failures: they end up in PerNodeReport::error.
PerNodeReport compare_per_node(const PerNodeInputs& in, const PerNodeOptions& options);

}  // namespace wnn::validate
