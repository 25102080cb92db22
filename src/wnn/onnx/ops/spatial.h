// Shared by the Conv and pooling converters: ONNX spatial attributes (kernel, strides, pads,
// dilations, auto_pad) resolved to WebNN's 2-D options, with 1-D ops lifted to 2-D.
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

struct Spatial2d {
  IntList strides{1, 1}, dilations{1, 1};
  IntList padding{0, 0, 0, 0};  // WebNN order: [begin_h, end_h, begin_w, end_w]
};

// Reads strides, dilations, pads and auto_pad for an op of `rank` spatial dims (1 or 2) over
// `in` (spatial sizes) with `kernel` (spatial sizes). SAME_* pads are computed as ONNX does for
// forward ops. A 1-D op becomes H=1.
Spatial2d read_spatial(const ConvertContext& c, const IntList& in, const IntList& kernel);

// Lifts an [N, C, L] operand to [N, C, 1, L]; other ranks pass through.
OperandId lift_1d(ConvertContext& c, OperandId x, const Shape& shape);

// conv2d (1-D lifted) of x and w with the node's kernel_shape, strides, pads, dilations,
// auto_pad and group; the last op gets `name`.
OperandId conv_from_attributes(ConvertContext& c, OperandId x, OperandId w,
                               std::optional<OperandId> bias, std::string name = {});

}  // namespace wnn::onnx::ops
