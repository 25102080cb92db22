// Decompositions more than one converter family uses.
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

// log(softmax(x)) along `axis`, as (x - max) - log(sum(exp(x - max))).
OperandId log_softmax(ConvertContext& c, OperandId x, int64_t axis, std::string name = {});

}  // namespace wnn::onnx::ops
