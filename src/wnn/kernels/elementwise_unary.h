// The unary half of the elementwise family (elementwise_unary.cc): math functions, logicalNot,
// isNaN/isInfinite and cast. elementwise() in elementwise.cc forwards these ops here.
#pragma once

#include "wnn/kernels/kernel.h"

namespace wnn::kernels {

void elementwise_unary(const KernelArgs& a);

}  // namespace wnn::kernels
