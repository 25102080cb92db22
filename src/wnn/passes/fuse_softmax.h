// Recognises softmax written out with reductions and elementwise ops and replaces it with one
// softmax node, which both delegates run as one kernel:
//   e = exp(x - reduceMax(x, [a]))   or   e = exp(x)
//   y = e / reduceSum(e, [a])        or   e * reciprocal(reduceSum(e, [a]))
#pragma once

#include "wnn/core/graph.h"
#include "wnn/passes/pattern_match.h"

namespace wnn::passes {

// Deterministic. Matched on structure only (ops, shapes, axes, never names): one axis, both
// reductions over it with their dimensions kept, float32, and intermediates with no other
// reader that are not graph outputs. The form without reduceMax overflows where softmax does
// not (exp(89) is infinite in float32); softmax is the value it approximates there.
PatternFusion fuse_softmax(const Graph& graph);

}  // namespace wnn::passes
