// Reductions over axes, argMin/argMax and cumulativeSum.
#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

Shape reduced_shape(const Shape& in, const IntList& axes, bool keep) {
  std::vector<bool> reduced(in.size(), false);
  for (int64_t a : axes) reduced[size_t(a)] = true;
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(in[i]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return out;
}

OpSchema reduce(OpKind kind, std::string_view name, std::string_view doc, DataTypeSet dtypes) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "reduce";
  s.doc = doc;
  s.args = {operand("input", dtypes)};
  s.options = {opt_computed("axes", ParamKind::kIntList, "all axes"),
               opt("keepDimensions", ParamKind::kBool, false)};
  s.infer = [](const InferContext& ctx) {
    const auto& in = ctx.operand("input");
    const IntList axes = resolve_axes(ctx.attrs(), "axes", in.shape.size());
    return std::vector<OperandDesc>{
        {in.dtype, reduced_shape(in.shape, axes, ctx.attrs().get_bool("keepDimensions"))}};
  };
  return s;
}

OpSchema arg_reduce(OpKind kind, std::string_view name, std::string_view doc) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "reduce";
  s.doc = doc;
  s.args = {operand("input", dtypes::kNoInt4).with_ranks(1), arg("axis", ParamKind::kInt)};
  s.output_ranks = {RankRange{}};  // keepDimensions false takes a rank-1 input to a scalar
  s.options = {opt("keepDimensions", ParamKind::kBool, false),
               opt("outputDataType", ParamKind::kDataType, DataType::kInt32, "int32 or int64")};
  s.infer = [](const InferContext& ctx) {
    const auto& in = ctx.operand("input");
    const int64_t axis = ctx.attrs().get_int("axis");
    require_axis(axis, in.shape.size(), "axis");
    const DataType out = ctx.attrs().get_dtype("outputDataType");
    check(out == DataType::kInt32 || out == DataType::kInt64,
          "outputDataType must be int32 or int64, got {}", dtype_name(out));
    return std::vector<OperandDesc>{
        {out, reduced_shape(in.shape, {axis}, ctx.attrs().get_bool("keepDimensions"))}};
  };
  return s;
}

}  // namespace

void register_reduce(std::vector<OpSchema>& t) {
  const DataTypeSet num = dtypes::kFloatAndInt32_64;
  const DataTypeSet fl = dtypes::kFloat;
  t.push_back(reduce(OpKind::kReduceL1, "reduceL1", "sum of |x|", num));
  t.push_back(reduce(OpKind::kReduceL2, "reduceL2", "sqrt of the sum of x^2", fl));
  t.push_back(reduce(OpKind::kReduceLogSum, "reduceLogSum", "log of the sum", fl));
  t.push_back(reduce(OpKind::kReduceLogSumExp, "reduceLogSumExp", "log of the sum of exp(x)", fl));
  t.push_back(reduce(OpKind::kReduceMax, "reduceMax", "maximum", dtypes::kNoInt4));
  t.push_back(reduce(OpKind::kReduceMean, "reduceMean", "mean", fl));
  t.push_back(reduce(OpKind::kReduceMin, "reduceMin", "minimum", dtypes::kNoInt4));
  t.push_back(reduce(OpKind::kReduceProduct, "reduceProduct", "product", num));
  t.push_back(reduce(OpKind::kReduceSum, "reduceSum", "sum", num));
  t.push_back(reduce(OpKind::kReduceSumSquare, "reduceSumSquare", "sum of x^2", num));
  t.push_back(arg_reduce(OpKind::kArgMax, "argMax", "index of the maximum (first on ties)"));
  t.push_back(arg_reduce(OpKind::kArgMin, "argMin", "index of the minimum (first on ties)"));
  {
    OpSchema s;
    s.kind = OpKind::kCumulativeSum;
    s.name = "cumulativeSum";
    s.family = "reduce";
    s.doc = "running sum along axis";
    s.args = {operand("input", num).with_ranks(1), arg("axis", ParamKind::kInt)};
    s.options = {opt("exclusive", ParamKind::kBool, false, "exclude the current element"),
                 opt("reversed", ParamKind::kBool, false, "sum from the end")};
    s.infer = [](const InferContext& ctx) {
      const auto& in = ctx.operand("input");
      require_axis(ctx.attrs().get_int("axis"), in.shape.size(), "axis");
      return std::vector<OperandDesc>{in};
    };
    t.push_back(std::move(s));
  }
}

}  // namespace wnn::ops
