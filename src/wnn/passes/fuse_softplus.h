// Recognises softplus written out as log(1 + exp(x)) (either operand order of the add) and
// replaces the three nodes with one softplus node, which oneDNN runs as one eltwise kernel
// (eltwise_soft_relu) or as a post-op of the conv or matmul before it.
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

// Deterministic. Matched on structure only: the constant is a one-element float32 1, no operand
// broadcasts, and exp(x) and its sum have no other reader and are not graph outputs. The
// written-out form overflows to infinity for x above 88 where softplus gives x; softplus is the
// value it approximates there.
PatternFusion fuse_softplus(const Graph& graph);

}  // namespace wnn::passes
