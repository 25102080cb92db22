// One ONNX conversion as validation and the cache see it: the options that define it (and key
// the cache), the files it writes, and the metadata that maps the ONNX model's inputs and
// outputs to the converted graph's operands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "wnn/onnx/import.h"
#include "wnn/validate/cache.h"

namespace wnn::validate {

// The options as canonical JSON: {"override_dims": {...}, "pin_inputs": {...}}.
nlohmann::json options_json(const onnx::ImportOptions& options);

// Binds the free dimensions of ONNX graph input `name` from the shape of a value given for it
// (--input NAME=FILE.npy) into options.override_dims. Throws when the model has no such input,
// the rank differs, a fixed dim differs, or an explicit --override-dim disagrees.
void bind_dims_from_value(const onnx::ModelProto& model, const std::string& name,
                          const Shape& shape, onnx::ImportOptions& options);

struct NameMaps {
  std::vector<std::pair<std::string, std::string>> inputs;   // (ONNX name, operand name)
  std::vector<std::pair<std::string, std::string>> outputs;  // (ONNX name, operand name)
  std::vector<std::string> pinned;                           // ONNX names
  // Inputs the converted graph no longer has (nothing read them): ONNX Runtime still needs
  // values for them, generated from these declarations.
  std::vector<std::pair<std::string, OperandDesc>> pruned;
  // ImportResult::values: every top-level node output in conversion order, with its operand
  // ("" when folded to a constant). `wnn validate --per-node` compares through it.
  std::vector<std::pair<std::string, std::string>> values;
};
nlohmann::json maps_json(const NameMaps& maps);
NameMaps maps_from_json(const nlohmann::json& metadata);  // throws naming a missing key

// Imports `onnx_path` and writes <dir>/model.webnn, model.safetensors and pinned.safetensors
// (the pinned inputs' values); returns the cache metadata (source, digest, options, versions,
// maps). Import errors propagate (onnx::UnsupportedModelError lists the nodes).
struct CacheBuild {
  nlohmann::json metadata;
  std::vector<std::string> warnings;
};
CacheBuild convert_into_cache_dir(const std::string& onnx_path, const onnx::ModelProto& model,
                                  const std::string& digest, const onnx::ImportOptions& options,
                                  const std::string& dir);

// `wnn convert --cache`: the entry for (model, options), converted now unless a valid one exists.
struct CachedConversion {
  ConversionCache::Result result;
  std::string key;
  std::string digest;
  std::vector<std::string> warnings;
  double convert_ms = 0;  // 0 when reused
};
CachedConversion convert_cached(const std::string& onnx_path, const onnx::ModelProto& model,
                                const onnx::ImportOptions& options);

}  // namespace wnn::validate
