// Recognises hardSigmoid written out with elementwise ops and replaces it with one hardSigmoid
// node (a single oneDNN post-op chain after the producer, and the form fuse_hard_swish reads
// in x * hardSigmoid(x, 1/6, 0.5)):
//   clamp(x * a + b, 0, 1)    a * x, b + ..., x / c (alpha 1/c) and x + b (alpha 1) as well
//   min(max(t, 0), 1), max(min(t, 1), 0)    the clamp as two binaries with constants
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

// Deterministic. Matched on structure only: a, b, c, 0 and 1 are one-element float32
// constants, no operand broadcasts x, and the intermediates have no other reader and are not
// graph outputs. The hardSigmoid node keeps the name of the pattern's result.
PatternFusion fuse_hard_sigmoid(const Graph& graph);

}  // namespace wnn::passes
