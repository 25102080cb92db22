// Copies of the ONNX model that ONNX Runtime runs for validation, edited at the wire level so
// that everything but the edit stays byte for byte:
// - `wnn validate --per-node`: ORT can only fetch graph outputs, so it runs a copy whose graph
//   lists the compared values as extra outputs, appended to its GraphProto.
// - the noise floor of a graph with int8 activations (noise_floor.h): a copy whose MatMulNBits
//   nodes compute at accuracy_level 0 instead of 4.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wnn::validate {

// A node that quantizes its activations to int8 per block before an integer dot product: ONNX
// Runtime's MatMulNBits at accuracy_level 4. The one definition for the report's arithmetic
// line (compare.h, quantized_arithmetic) and for the accuracy_level 0 copy below.
inline constexpr int64_t kInt8ActivationsLevel = 4;
inline bool quantizes_activations(std::string_view op_type, std::string_view domain,
                                  int64_t accuracy_level) {
  return op_type == "MatMulNBits" && domain == "com.microsoft" &&
         accuracy_level == kInt8ActivationsLevel;
}

// `model` (a serialized ModelProto) with accuracy_level 0 in every node for which
// quantizes_activations holds, in every graph field of the model (not in subgraphs). Each
// varint keeps its length (0x80 bytes ending in 0x00), so nothing else moves. The model is
// only scanned, not copied, when no node changes (`bytes` then stays empty).
struct FloatActivationsCopy {
  std::string bytes;
  int64_t changed = 0;  // nodes
};
FloatActivationsCopy model_with_float_activations(std::span<const std::byte> model);

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
