// Recognises the sum of squares and the L2 norm written out with a reduceSum, as exporters
// write an l2-normalization decomposed (`x / sqrt(reduceSum(x * x, axes))`, with or without
// `+ eps` or `max(., eps)`), and replaces them with WebNN's own reductions, each one kernel:
//   reduceSum(pow(x, 2) or x * x, axes)  ->  reduceSumSquare(x, axes)
//   sqrt(reduceSumSquare(x, axes))       ->  reduceL2(x, axes)
// An eps added before the sqrt keeps the sqrt (reduceL2 has no eps); the division stays a
// division (WebNN has no l2-normalization op).
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

// Deterministic. Matched on structure only: the exponent is a one-element float32 2, the
// square has x's shape and no other reader and is not a graph output; the reduction's axes and
// keepDimensions are kept.
PatternFusion fuse_sum_square(const Graph& graph);
// Deterministic. The reduceSumSquare has no other reader and is not a graph output.
PatternFusion fuse_l2_norm(const Graph& graph);

}  // namespace wnn::passes
