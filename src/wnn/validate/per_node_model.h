// The ONNX Runtime side of `wnn validate --per-node`: ORT can only fetch graph outputs, so it
// runs a copy of the model whose graph lists the compared values as extra outputs. The copy is
// the original's bytes with outputs appended to its GraphProto; nothing else changes.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace wnn::validate {

// `model` (a serialized ModelProto) with a name-only ValueInfoProto appended to its graph's
// outputs for each of `names` (ORT infers their types). Throws when there is no graph.
std::string model_with_outputs(std::span<const std::byte> model,
                               const std::vector<std::string>& names);

// Writes model_with_outputs of the file `onnx_path` to `copy_path`. ORT must then resolve the
// model's external data from the original's directory (ReferenceOptions::external_data_dir):
// it refuses data files reached through symlinks that leave the copy's directory.
void write_model_with_outputs(const std::string& onnx_path, const std::vector<std::string>& names,
                              const std::string& copy_path);

}  // namespace wnn::validate
