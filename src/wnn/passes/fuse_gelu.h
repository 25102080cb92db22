// Recognises gelu written out as x * 0.5 * (1 + erf(x / sqrt(2))) (how PyTorch exports
// nn.GELU to ONNX before opset 20) and replaces the five nodes with one gelu node, which a
// delegate runs as a single kernel or fuses into the matmul before it.
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

using GeluFusion = PatternFusion;

// Deterministic. Only patterns whose intermediate values have no other reader and are not
// graph outputs are replaced; the gelu node keeps the name of the pattern's result.
GeluFusion fuse_gelu(const Graph& graph);

}  // namespace wnn::passes
