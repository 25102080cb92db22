// Recognises hardSwish written out with elementwise ops and replaces it with one hardSwish
// node, which both delegates run as one kernel and oneDNN fuses into the convolution before it:
//   x * clamp(x + 3, 0, 6) / 6     paddle2onnx (ppocr), Keras through tf2onnx (/ 6 or * (1/6))
//   x * (clamp(x + 3, 0, 6) / 6)   the same with the division on the gate
//   x * hardSigmoid(x, 1/6, 0.5)   PyTorch's ONNX export of nn.Hardswish before opset 14
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

using HardSwishFusion = PatternFusion;

// Deterministic. Matched on structure only (ops, shapes, constant values, never names): the
// constants must be 3, 0, 6 and 6 (or 1/6; alpha 1/6 and beta 0.5 for hardSigmoid), every
// one-element float32, no operand broadcasts, and the intermediate values have no other reader
// and are not graph outputs. The hardSwish node keeps the name of the pattern's result.
HardSwishFusion fuse_hard_swish(const Graph& graph);

}  // namespace wnn::passes
