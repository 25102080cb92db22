// The int8 quantized forms on XNNPACK: quantizeLinear/dequantizeLinear with per-tensor
// constant parameters as Convert nodes between fp32 and qint8 values, and the QDQ pattern
// DQ(int8 x) -> conv2d / gemm / matmul with DQ(int8 constant weight) -> Q, run as one
// quantized convolution or fully connected node. Everything here reads the graph only, so
// supports() can use it before any library call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wnn/runtime/delegate.h"

namespace wnn::runtime::xnnpack {

// A value's per-tensor quantization: real = (q - zero_point) * scale.
struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
  DataType dtype = DataType::kInt8;
  bool operator==(const QuantParams&) const = default;
};

// The per-tensor params of a quantizeLinear/dequantizeLinear node (scale and zero point
// constant, one element, scale positive and normal), or why not.
Support per_tensor_params(const Graph& g, const Node& qdq, QuantParams* out);

// The params every quantizeLinear/dequantizeLinear node touching the 8-bit value `v` agrees on
// (its producer and its readers), or why they do not. XNNPACK holds one scale per value.
Support value_params(const Graph& g, OperandId v, QuantParams* out);

// The dequantizeLinear node producing `id` from a constant, or null.
const Node* dequantized_constant(const Graph& g, OperandId id);

// A constant operand or one dequantized from a constant: XNNPACK takes either as static data.
bool is_static(const Graph& g, OperandId id);

// A matched QDQ convolution or fully connected node.
struct QdqMatch {
  uint32_t dq_input = 0, dq_filter = 0, q_output = 0;  // node indices
  QuantParams input, output;
  std::vector<float> filter_scales;  // one per output channel, or one for the tensor
};

// Whether `node` (conv2d, gemm or matmul) is the middle of a QDQ pattern XNNPACK runs
// quantized; `why` says what failed when it is not (for docs and tests).
std::optional<QdqMatch> match_qdq(const Graph& g, uint32_t node, std::string* why = nullptr);

// A float bias as int32 in units of `scale` (input scale * filter scale), rounded half to even
// and saturated.
int32_t quantize_bias(float bias, float scale);

// The node indices that read `id`.
std::vector<uint32_t> readers(const Graph& g, OperandId id);

}  // namespace wnn::runtime::xnnpack
