// quantizeLinear and dequantizeLinear, with scale and zeroPoint broadcast block-wise.
#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

// scale and zeroPoint have one shape, right-aligned to the input; each of their dims divides
// the input's, and covers blocks of input_dim / dim elements.
void check_blockwise(const InferContext& ctx) {
  const auto& in = ctx.operand("input");
  const auto& scale = ctx.operand("scale");
  const auto& zero = ctx.operand("zeroPoint");
  check(scale.shape == zero.shape, "scale {} and zeroPoint {} must have the same shape",
        shape_to_string(scale.shape), shape_to_string(zero.shape));
  check(scale.shape.size() <= in.shape.size(), "scale has rank {}, above the input's {}",
        scale.shape.size(), in.shape.size());
  const size_t offset = in.shape.size() - scale.shape.size();
  for (size_t i = 0; i < scale.shape.size(); ++i) {
    const int64_t d = in.shape[offset + i];
    const int64_t s = scale.shape[i];
    check(s >= 1 && d % s == 0, "scale dimension {} ({}) does not divide input dimension {}", i, s,
          d);
  }
}

}  // namespace

void register_quantize(std::vector<OpSchema>& t) {
  {
    OpSchema s;
    s.kind = OpKind::kQuantizeLinear;
    s.name = "quantizeLinear";
    s.family = "quantize";
    s.doc = "saturate(roundEven(x / scale) + zeroPoint) in zeroPoint's type";
    s.args = {operand("input", dtypes::kFloat), operand("scale", dtypes::kFloat),
              operand("zeroPoint", dtypes::kQuantized)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "scale"});
      check_blockwise(ctx);
      return std::vector<OperandDesc>{{ctx.operand("zeroPoint").dtype, ctx.operand("input").shape}};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kDequantizeLinear;
    s.name = "dequantizeLinear";
    s.family = "quantize";
    s.doc = "(x - zeroPoint) * scale in scale's type";
    s.args = {operand("input", dtypes::kQuantized), operand("scale", dtypes::kFloat),
              operand("zeroPoint", dtypes::kQuantized)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "zeroPoint"});
      check_blockwise(ctx);
      return std::vector<OperandDesc>{{ctx.operand("scale").dtype, ctx.operand("input").shape}};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
