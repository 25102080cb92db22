// Inverse transpose pairs around layout-agnostic ops cancelled: tf2onnx wraps NHWC graphs'
// NCHW-only ops as Transpose(NHWC -> NCHW) ... Transpose(NCHW -> NHWC), and the elementwise ops
// between two such wrappers (a bias add, a clamp, a residual add of a constant) are computed
// the same in either layout. The chain is recomputed on the untransposed value, with its
// constant operands permuted, and both transposes disappear.
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

using TransposeCancelling = PatternFusion;

// Deterministic, matched on structure only (ops, permutations, shapes, constants; never names):
// transpose(x, p) -> op_1 -> ... -> op_k -> transpose(., q) with p[q[i]] == i for every i and
// k >= 0, each op an elementwise unary op or a binary op whose other operand is a bound
// constant (permuted here; a lower-rank one is broadcast as WebNN aligns shapes, from the
// right) that broadcasts no further than the value, and every value of the chain read by the
// next node alone and not a graph output. The last op (an identity for k = 0) keeps the second
// transpose's name.
TransposeCancelling cancel_transposes(const Graph& graph);

}  // namespace wnn::passes
