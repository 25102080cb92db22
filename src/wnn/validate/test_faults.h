// TEST-ONLY faults for wnn's own tests of validation: WNN_VALIDATE_TEST_FAULT=NAME[@OPERAND]
// makes the reloaded graph wrong the way a converter bug would, so the tests can prove that the
// comparison (with or without the noise floor, per output or --per-node) catches it. The fault
// hits the first eligible node in graph order, or the node producing OPERAND. Names:
//   scale-weights     the first float32 or float16 weights constant scaled by 1.25 (plus 0.01)
//   pad-off-by-one    a conv2d's padding shifted down one row: [bh+1, eh-1, bw, ew] (the
//                     SAME_UPPER / SAME_LOWER confusion; the output shape is unchanged)
//   drop-epsilon      a batch, instance or layer normalization's epsilon set to 0
//   transpose-filter  a conv2d's constant filter with its H and W axes swapped (square kernels)
// Unset, nothing changes; an unknown name or a graph with no eligible node is an error. Nothing
// but validate.cc calls this.
#pragma once

#include "wnn/core/graph.h"

namespace wnn::validate {

void apply_test_fault(Graph& graph);

}  // namespace wnn::validate
