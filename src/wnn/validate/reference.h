// The ONNX Runtime reference: runs the original ONNX model through tools/ort-reference/run.js
// (Node.js + onnxruntime-node) as a subprocess with a timeout, feeding and reading tensors
// through Safetensors files. ORT's own error text is passed on verbatim.
#pragma once

#include <string>
#include <vector>

#include "wnn/core/tensor.h"
#include "wnn/runtime/session.h"

namespace wnn::validate {

// One input fed to ORT. WebNN has no bool: ONNX bool inputs are uint8 tensors with onnx_bool
// set, written as BOOL so ORT sees the model's own type.
struct FeedTensor {
  std::string name;
  Tensor tensor;
  bool onnx_bool = false;
};

struct ReferenceRun {
  enum class Status {
    kOk,
    kOrtFailed,    // ORT rejected the model or failed running it (or timed out)
    kUnavailable,  // Node.js, run.js or onnxruntime-node is missing: a set-up problem
  };
  Status status = Status::kOk;
  std::string message;                        // one line, for anything but kOk
  std::vector<runtime::NamedTensor> outputs;  // model order; ORT bool outputs become uint8
  double ms = 0;                              // wall time of the subprocess
};

struct ReferenceOptions {
  int timeout_seconds = 600;
  int threads = 1;
  std::string optimization = "all";  // ORT's graph optimization level (run.js --optimization)
  std::string external_data_dir;     // run.js --external-data-dir; "" resolves beside the model
};

// run.js: $WNN_ORT_REFERENCE (the file or its directory), else the source tree's
// tools/ort-reference/run.js. Empty with `why` set when it, Node.js or onnxruntime-node is
// missing (the message says to run `make deps` / scripts/install-deps.sh).
struct ReferenceLocation {
  std::string node;    // the node executable
  std::string run_js;  // absolute path of run.js
  std::string why;     // set when unusable
};
ReferenceLocation locate_ort_reference();

// Runs `model_path` in ORT on `feeds`, using `work_dir` (which must exist) for the tensor files
// (fresh names on every call, removed afterwards).
ReferenceRun run_ort_reference(const std::string& model_path, const std::vector<FeedTensor>& feeds,
                               const std::string& work_dir, const ReferenceOptions& options = {});

// Writes tensors as Safetensors (with BOOL for onnx_bool); exposed for tests.
void write_feeds(const std::string& path, const std::vector<FeedTensor>& feeds);
// Reads every tensor of a Safetensors file in file order; BOOL becomes uint8.
std::vector<runtime::NamedTensor> read_tensors(const std::string& path);

}  // namespace wnn::validate
