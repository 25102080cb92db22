// batchNormalization, instanceNormalization and layerNormalization.
#include "wnn/core/error.h"
#include "wnn/core/ops/conv.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

void check_1d(const InferContext& ctx, std::string_view name, int64_t size) {
  if (const auto d = ctx.optional_operand(name)) {
    check(d->shape == Shape{size}, "{} must have shape [{}], has {}", name, size,
          shape_to_string(d->shape));
  }
}

}  // namespace

void register_normalization(std::vector<OpSchema>& t) {
  const DataTypeSet fl = dtypes::kFloat;
  {
    OpSchema s;
    s.kind = OpKind::kBatchNormalization;
    s.name = "batchNormalization";
    s.family = "normalization";
    s.doc = "(x - mean) / sqrt(variance + epsilon) * scale + bias along axis";
    s.args = {operand("input", fl).with_ranks(1), operand("mean", fl).with_rank(1),
              operand("variance", fl).with_rank(1)};
    s.options = {opt_operand("scale", fl).with_rank(1), opt_operand("bias", fl).with_rank(1),
                 opt("axis", ParamKind::kInt, int64_t(1), "the channel axis"),
                 opt("epsilon", ParamKind::kFloat, 1e-5)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "mean", "variance", "scale", "bias"});
      const auto& in = ctx.operand("input");
      const int64_t axis = ctx.attrs().get_int("axis");
      require_axis(axis, in.shape.size(), "axis");
      const int64_t c = in.shape[size_t(axis)];
      for (auto name : {"mean", "variance", "scale", "bias"}) check_1d(ctx, name, c);
      return std::vector<OperandDesc>{in};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kInstanceNormalization;
    s.name = "instanceNormalization";
    s.family = "normalization";
    s.doc = "normalise each channel of each batch item over its spatial dims";
    s.args = {operand("input", fl).with_rank(4)};
    s.options = {opt_operand("scale", fl).with_rank(1), opt_operand("bias", fl).with_rank(1),
                 opt("epsilon", ParamKind::kFloat, 1e-5),
                 opt_enum("layout", {"nchw", "nhwc"}, "nchw")};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "scale", "bias"});
      const auto& in = ctx.operand("input");
      const auto g = conv_input_geometry(in.shape, ctx.attrs().get_enum("layout"));
      for (auto name : {"scale", "bias"}) check_1d(ctx, name, g.channels);
      return std::vector<OperandDesc>{in};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kLayerNormalization;
    s.name = "layerNormalization";
    s.family = "normalization";
    s.doc = "normalise over any subset of axes; scale and bias have the shape of those axes";
    s.args = {operand("input", fl)};
    s.options = {opt_operand("scale", fl), opt_operand("bias", fl),
                 opt_computed("axes", ParamKind::kIntList, "[1, ..., rank - 1]"),
                 opt("epsilon", ParamKind::kFloat, 1e-5)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "scale", "bias"});
      const auto& in = ctx.operand("input");
      IntList axes;
      if (ctx.attrs().has("axes")) {
        axes = resolve_axes(ctx.attrs(), "axes", in.shape.size());
      } else {
        for (size_t i = 1; i < in.shape.size(); ++i) axes.push_back(int64_t(i));
      }
      Shape expected;
      for (int64_t a : axes) expected.push_back(in.shape[size_t(a)]);
      for (auto name : {"scale", "bias"}) {
        if (const auto d = ctx.optional_operand(name)) {
          check(d->shape == expected, "{} must have shape {} (input dims at axes), has {}", name,
                shape_to_string(expected), shape_to_string(d->shape));
        }
      }
      return std::vector<OperandDesc>{in};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
