// Recognises layer and instance normalization written out with reductions and elementwise ops
// (how PyTorch exports nn.LayerNorm before opset 17) and replaces the pattern with one
// layerNormalization or instanceNormalization node, which oneDNN runs as one primitive:
//   d = x - reduceMean(x, axes)          var = reduceMean(d^2, axes)   (pow(d, 2) or d * d)
//   n = d / sqrt(var + eps)              (or d * reciprocal(sqrt(var + eps)))
//   y = n * gamma + beta                 (gamma and beta optional, either operand order)
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

// Deterministic. Matched on structure only (ops, shapes, axes, constant values, never names):
// both reductions keep their dimensions and reduce the same axes, which are the trailing ones
// (the only ones oneDNN's primitive normalizes); eps is a one-element float32 constant >= 0;
// the exponent is exactly 2; gamma and beta broadcast only along the kept axes (they become
// the node's scale and bias, reshaped); intermediates have no other reader and are not graph
// outputs. A 4-D input reduced over axes 2 and 3 with a per-channel ([C, 1, 1]) gamma becomes
// instanceNormalization; everything else layerNormalization.
PatternFusion fuse_normalization(const Graph& graph);

}  // namespace wnn::passes
