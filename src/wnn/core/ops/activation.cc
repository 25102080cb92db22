// Activation functions: element-wise non-linearities with options, prelu and softmax.
#include <limits>

#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

std::vector<OperandDesc> same_as_input(const InferContext& ctx) { return {ctx.operand("input")}; }

OpSchema activation(OpKind kind, std::string_view name, std::string_view doc, DataTypeSet dtypes,
                    std::vector<ParamSpec> options = {}) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "activation";
  s.doc = doc;
  s.args = {operand("input", dtypes)};
  s.options = std::move(options);
  s.infer = same_as_input;
  return s;
}

}  // namespace

void register_activation(std::vector<OpSchema>& t) {
  const DataTypeSet fl = dtypes::kFloat;
  const double inf = std::numeric_limits<double>::infinity();
  {
    OpSchema s =
        activation(OpKind::kClamp, "clamp", "min(max(x, minValue), maxValue)", dtypes::kNoInt4,
                   {opt("minValue", ParamKind::kNumber, -inf, "lower bound"),
                    opt("maxValue", ParamKind::kNumber, inf, "upper bound")});
    s.infer = [](const InferContext& ctx) {
      const double lo = ctx.attrs().get_float("minValue");
      const double hi = ctx.attrs().get_float("maxValue");
      check(!(lo > hi), "minValue {} is greater than maxValue {}", lo, hi);
      return same_as_input(ctx);
    };
    t.push_back(std::move(s));
  }
  t.push_back(activation(OpKind::kElu, "elu", "x if x >= 0 else alpha * (exp(x) - 1)", fl,
                         {opt("alpha", ParamKind::kFloat, 1.0)}));
  t.push_back(activation(OpKind::kGelu, "gelu", "x * 0.5 * (1 + erf(x / sqrt(2)))", fl));
  t.push_back(
      activation(OpKind::kHardSigmoid, "hardSigmoid", "max(0, min(1, alpha * x + beta))", fl,
                 {opt("alpha", ParamKind::kFloat, 0.2), opt("beta", ParamKind::kFloat, 0.5)}));
  t.push_back(activation(OpKind::kHardSwish, "hardSwish", "x * max(0, min(6, x + 3)) / 6", fl));
  t.push_back(activation(OpKind::kLeakyRelu, "leakyRelu", "x if x >= 0 else alpha * x", fl,
                         {opt("alpha", ParamKind::kFloat, 0.01)}));
  t.push_back(
      activation(OpKind::kLinear, "linear", "alpha * x + beta", fl,
                 {opt("alpha", ParamKind::kFloat, 1.0), opt("beta", ParamKind::kFloat, 0.0)}));
  t.push_back(activation(OpKind::kRelu, "relu", "max(0, x)", dtypes::kSignedNumeric));
  t.push_back(activation(OpKind::kSigmoid, "sigmoid", "1 / (1 + exp(-x))", fl));
  t.push_back(activation(OpKind::kSoftplus, "softplus", "log(1 + exp(x))", fl));
  t.push_back(activation(OpKind::kSoftsign, "softsign", "x / (1 + |x|)", fl));
  t.push_back(activation(OpKind::kTanh, "tanh", "hyperbolic tangent", fl));
  {
    OpSchema s;
    s.kind = OpKind::kPrelu;
    s.name = "prelu";
    s.family = "activation";
    s.doc = "x if x >= 0 else slope * x; slope broadcasts";
    s.args = {operand("input", dtypes::kSignedNumeric), operand("slope", dtypes::kSignedNumeric)};
    s.infer = [](const InferContext& ctx) {
      require_same_dtype(ctx, {"input", "slope"});
      const auto& in = ctx.operand("input");
      const auto& slope = ctx.operand("slope");
      const auto shape = broadcast_shapes(in.shape, slope.shape);
      check(shape.has_value(), "slope {} does not broadcast with input {}",
            shape_to_string(slope.shape), shape_to_string(in.shape));
      return std::vector<OperandDesc>{{in.dtype, *shape}};
    };
    t.push_back(std::move(s));
  }
  {
    OpSchema s;
    s.kind = OpKind::kSoftmax;
    s.name = "softmax";
    s.family = "activation";
    s.doc = "exp(x) / sum(exp(x)) along axis";
    s.args = {operand("input", fl).with_ranks(1),
              arg("axis", ParamKind::kInt, "the axis normalised over")};
    s.infer = [](const InferContext& ctx) {
      const auto& in = ctx.operand("input");
      require_axis(ctx.attrs().get_int("axis"), in.shape.size(), "axis");
      return std::vector<OperandDesc>{in};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
