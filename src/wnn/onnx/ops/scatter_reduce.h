// ScatterElements and ScatterND with a reduction (add, mul, max, min), which WebNN's scatters
// lack: duplicate indices must combine, so each target position reduces over a one-hot mask
// of the updates that land on it.
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

// `indices` (input 1) already made non-negative; `axis` normalized.
void scatter_elements_reduced(ConvertContext& c, OperandId indices, int64_t axis,
                              const std::string& reduction);
void scatter_nd_reduced(ConvertContext& c, const std::string& reduction);

}  // namespace wnn::onnx::ops
