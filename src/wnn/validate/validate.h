// `wnn validate`: converts an ONNX model (or takes it from the cache), reloads the converted pair
// from disk, runs it, runs the original model in ONNX Runtime on the same inputs and compares
// every output. The report (report.h) records every outcome, failures included.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wnn/onnx/import.h"
#include "wnn/runtime/session.h"
#include "wnn/validate/compare.h"
#include "wnn/validate/noise_floor.h"
#include "wnn/validate/per_node.h"
#include "wnn/validate/reference.h"

namespace wnn::validate {

enum class Storage {
  kTemporary,   // convert into a temporary directory, removed afterwards
  kDirectory,   // convert into output_dir as <stem>.webnn + <stem>.safetensors
  kCache,       // convert into the cache (or reuse a valid entry)
  kCachedOnly,  // use an existing cache entry; never convert
};

struct ValidateOptions {
  onnx::ImportOptions import;
  std::vector<std::pair<std::string, std::string>> input_files;  // --input NAME=FILE.npy
  std::optional<double> atol, rtol;
  runtime::SessionOptions session;
  ReferenceOptions reference;
  Storage storage = Storage::kTemporary;
  std::string output_dir;  // kDirectory
  NoiseFloorMode noise_floor = NoiseFloorMode::kAuto;
  PerNodeOptions per_node;
  // Progress of long stages (--per-node), one line at a time; unset for none.
  std::function<void(const std::string&)> progress;
};

struct InputRecord {
  std::string name;  // the ONNX input name
  DataType dtype = DataType::kFloat32;
  bool onnx_bool = false;
  Shape shape;
  std::string source;  // "file PATH", "pinned", or the generation rule
};

struct OutputRecord {
  std::string name;  // the ONNX output name
  DataType dtype = DataType::kFloat32;
  Shape shape;
  bool pass = false;
  DataType profile = DataType::kFloat32;  // whose tolerance profile `tol` is (ProfileDtypes)
  Tolerance tol;
  OutputMetrics metrics;
  bool compared = false;            // false when shapes or dtypes differ (metrics stay empty)
  std::optional<NoiseFloor> floor;  // when measured (float outputs only)
};

// What the noise-floor step did (noise_floor.h).
struct NoiseFloorRecord {
  NoiseFloorMode mode = NoiseFloorMode::kAuto;
  bool measured = false;
  std::vector<std::string> runs;  // describe_run of each run, when measured
  std::string error;              // the extra ORT runs failed: no floor was applied
};

struct UnsupportedRecord {
  std::string node, op_type, domain;
  int64_t opset = 0;
  std::string reason;
};

struct Timings {
  // ms; unset when the stage did not run
  std::optional<double> convert, load, wnn_run, ort_run, noise_floor, per_node;
};

struct Report {
  std::string model;
  std::string sha256;
  bool pass = false;
  std::string stage;    // "" (pass), "conversion", "runtime", "reference", "numerical"
  std::string message;  // one line; "" on pass
  std::vector<UnsupportedRecord> unsupported;
  std::vector<InputRecord> inputs;
  std::vector<OutputRecord> outputs;
  NoiseFloorRecord noise_floor;
  std::optional<PerNodeReport> per_node;  // with --per-node, once both sides ran
  Timings timings;
  int exit_code = 0;  // 0 pass, 1 mismatch/reference/runtime failure, 2 conversion/user, 3 bug
  std::vector<std::string> warnings;    // importer warnings
  std::string graph_path;               // the converted graph that ran
  std::string cache_note;               // "reused cache entry DIR", "rebuilt ... because ...", ...
  std::vector<std::string> arithmetic;  // how quantized nodes compute (quantized_arithmetic)
};

// Never throws for a model's failures: they become the report's stage, message and exit code.
Report validate_onnx_model(const std::string& onnx_path, const ValidateOptions& options);

}  // namespace wnn::validate
