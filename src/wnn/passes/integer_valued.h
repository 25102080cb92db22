// Whether every element of an operand is provably an integer: the float32 carriers of the
// quantized products (integer_product.h in the ONNX importer) are, and a delegate must then not
// pick an algorithm that rounds what the direct one computes exactly (Winograd's transforms).
#pragma once

#include "wnn/core/graph.h"

namespace wnn::passes {

// True for integer and bool operands; constants whose bound values are all integers; casts
// from an integer dtype; floor, ceil and roundEven; and add, sub, mul, neg, abs, min, max,
// relu and the data movements (reshape, transpose, concat, slice, expand) whose every input is
// integer-valued. Conservative: false when unsure (an unbound constant, any other op).
bool integer_valued(const Graph& g, OperandId id);

}  // namespace wnn::passes
