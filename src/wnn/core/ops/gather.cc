// gather, gatherElements, gatherND, scatterElements and scatterND.
#include "wnn/core/error.h"
#include "wnn/core/ops/schema.h"

namespace wnn::ops {

using namespace schema;

namespace {

OpSchema entry(OpKind kind, std::string_view name, std::string_view doc,
               std::vector<ParamSpec> args, std::vector<ParamSpec> options, InferFn infer) {
  OpSchema s;
  s.kind = kind;
  s.name = name;
  s.family = "gather";
  s.doc = doc;
  s.args = std::move(args);
  s.options = std::move(options);
  s.infer = std::move(infer);
  return s;
}

// gatherElements / scatterElements: equal dims except along axis (the schema makes the ranks
// equal).
void check_elements_shapes(const OperandDesc& input, const OperandDesc& indices, int64_t axis) {
  for (size_t d = 0; d < input.shape.size(); ++d) {
    if (int64_t(d) == axis) continue;
    check(indices.shape[d] == input.shape[d],
          "indices {} and input {} differ in dimension {} (only the axis may differ)",
          shape_to_string(indices.shape), shape_to_string(input.shape), d);
  }
}

// gatherND / scatterND: the shape of the gathered slices.
Shape nd_result_shape(const OperandDesc& input, const OperandDesc& indices) {
  const int64_t k = indices.shape.back();
  check(k >= 1 && k <= int64_t(input.shape.size()),
        "the last dimension of indices ({}) must be in [1, input rank {}]", k, input.shape.size());
  Shape out(indices.shape.begin(), indices.shape.end() - 1);
  out.insert(out.end(), input.shape.begin() + k, input.shape.end());
  return out;
}

}  // namespace

void register_gather(std::vector<OpSchema>& t) {
  const DataTypeSet all = dtypes::kAll;
  const DataTypeSet idx = dtypes::kIndices;
  t.push_back(entry(OpKind::kGather, "gather",
                    "take slices along axis at indices (negative counts from end)",
                    {operand("input", all).with_ranks(1), operand("indices", idx)},
                    {opt("axis", ParamKind::kInt, int64_t(0))}, [](const InferContext& ctx) {
                      const auto& in = ctx.operand("input");
                      const auto& indices = ctx.operand("indices");
                      const int64_t axis = ctx.attrs().get_int("axis");
                      require_axis(axis, in.shape.size(), "axis");
                      Shape out(in.shape.begin(), in.shape.begin() + axis);
                      out.insert(out.end(), indices.shape.begin(), indices.shape.end());
                      out.insert(out.end(), in.shape.begin() + axis + 1, in.shape.end());
                      return std::vector<OperandDesc>{{in.dtype, out}};
                    }));
  // A rank-1 input and scalar indices give a scalar (the spec's table says 1 to N).
  t.back().output_ranks = {RankRange{}};
  t.push_back(
      entry(OpKind::kGatherElements, "gatherElements", "take elements along axis at indices",
            {operand("input", all).with_ranks(1), operand("indices", idx).with_rank_of("input")},
            {opt("axis", ParamKind::kInt, int64_t(0))}, [](const InferContext& ctx) {
              const auto& in = ctx.operand("input");
              const auto& indices = ctx.operand("indices");
              const int64_t axis = ctx.attrs().get_int("axis");
              require_axis(axis, in.shape.size(), "axis");
              check_elements_shapes(in, indices, axis);
              return std::vector<OperandDesc>{{in.dtype, indices.shape}};
            }));
  t.push_back(entry(
      OpKind::kGatherND, "gatherND", "take slices addressed by the last dim of indices",
      {operand("input", all).with_ranks(1), operand("indices", idx).with_ranks(1)}, {},
      [](const InferContext& ctx) {
        const auto& in = ctx.operand("input");
        return std::vector<OperandDesc>{{in.dtype, nd_result_shape(in, ctx.operand("indices"))}};
      }));
  t.back().output_ranks = {RankRange{}};  // input [6] and indices [1] give a scalar
  t.push_back(
      entry(OpKind::kScatterElements, "scatterElements", "input with updates written along axis",
            {operand("input", all).with_ranks(1), operand("indices", idx).with_rank_of("input"),
             operand("updates", all).with_rank_of("input")},
            {opt("axis", ParamKind::kInt, int64_t(0))}, [](const InferContext& ctx) {
              require_same_dtype(ctx, {"input", "updates"});
              const auto& in = ctx.operand("input");
              const auto& indices = ctx.operand("indices");
              const auto& updates = ctx.operand("updates");
              const int64_t axis = ctx.attrs().get_int("axis");
              require_axis(axis, in.shape.size(), "axis");
              check_elements_shapes(in, indices, axis);
              check(updates.shape == indices.shape, "updates {} must have the shape of indices {}",
                    shape_to_string(updates.shape), shape_to_string(indices.shape));
              return std::vector<OperandDesc>{in};
            }));
  t.push_back(entry(OpKind::kScatterND, "scatterND", "input with update slices written at indices",
                    {operand("input", all).with_ranks(1), operand("indices", idx).with_ranks(1),
                     operand("updates", all)},
                    {}, [](const InferContext& ctx) {
                      require_same_dtype(ctx, {"input", "updates"});
                      const auto& in = ctx.operand("input");
                      const auto& updates = ctx.operand("updates");
                      const Shape expected = nd_result_shape(in, ctx.operand("indices"));
                      check(updates.shape == expected, "updates {} must have shape {}",
                            shape_to_string(updates.shape), shape_to_string(expected));
                      return std::vector<OperandDesc>{in};
                    }));
}

}  // namespace wnn::ops
