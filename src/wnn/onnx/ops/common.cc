#include "wnn/onnx/ops/common.h"

namespace wnn::onnx::ops {

// log(softmax(x)) computed as (x - max) - log(sum(exp(x - max))), which keeps precision.
OperandId log_softmax(ConvertContext& c, OperandId x, int64_t axis, std::string name) {
  using K = OpKind;
  const IntList axes{axis};
  OperandId m = c.op(K::kReduceMax, {x}, {{"axes", axes}, {"keepDimensions", true}});
  OperandId y = c.op(K::kSub, {x, m});
  OperandId s =
      c.op(K::kReduceSum, {c.op(K::kExp, {y})}, {{"axes", axes}, {"keepDimensions", true}});
  return c.op(K::kSub, {y, c.op(K::kLog, {s})}, {}, std::move(name));
}

}  // namespace wnn::onnx::ops
