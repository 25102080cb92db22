// ONNX Runtime's dynamic quantization of a float32 tensor to uint8 (DynamicQuantizeLinear and
// the com.microsoft DynamicQuantizeMatMul): one definition for both converters.
#pragma once

#include <string>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

struct DynamicQuantization {
  OperandId quantized;   // uint8, x's shape
  OperandId scale;       // float32 scalar
  OperandId zero_point;  // float32 scalar holding an integer in [0, 255]
};

// min = min(min(x), 0), max = max(max(x), 0); scale = 1 when max == min, else
// (max - min) / 255; zero point = round_half_even(saturate(0 - min / scale)); quantized =
// saturate(round_half_even(x / scale) + zero point), all in float32 as ORT's
// GetQuantizationParameter and MLAS's quantize kernels compute them. The quantized and scale
// operands get the given names.
DynamicQuantization dynamic_quantize_uint8(ConvertContext& c, OperandId x, std::string q_name = {},
                                           std::string scale_name = {});

}  // namespace wnn::onnx::ops
