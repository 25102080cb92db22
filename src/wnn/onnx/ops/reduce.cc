// Reduce* (axes as attribute before opset 18, ReduceSum before 13; as input after), keepdims,
// noop_with_empty_axes, and ArgMax/ArgMin.
#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

void reduce(ConvertContext& c, OpKind kind, int64_t axes_input_since) {
  const size_t r = c.shape(0).size();
  std::optional<IntList> axes;
  if (c.opset() >= axes_input_since) {
    if (c.has_input(1)) axes = c.known_ints(1, "axes");
  } else {
    axes = c.attr_ints("axes");
  }
  const bool keep = c.attr_int("keepdims", 1) != 0;
  if ((!axes || axes->empty()) && c.attr_int("noop_with_empty_axes", 0) != 0) {
    return c.set(0, c.op(K::kIdentity, {c.in(0)}, {}, c.out_name(0)));
  }
  IntList norm;
  if (axes && !axes->empty()) {
    for (int64_t a : *axes) norm.push_back(normalize_axis(a, r, "axis"));
  } else {
    norm = iota(0, int64_t(r));
  }
  c.set(0, c.op(kind, {c.in(0)}, {{"axes", norm}, {"keepDimensions", keep}}, c.out_name(0)));
}

void arg(ConvertContext& c, OpKind kind) {
  const int64_t axis = normalize_axis(c.attr_int("axis", 0), c.shape(0).size(), "axis");
  const std::vector<std::pair<std::string, RawValue>> named = {
      {"keepDimensions", c.attr_int("keepdims", 1) != 0}, {"outputDataType", DataType::kInt64}};
  if (c.attr_int("select_last_index", 0) == 0) {
    return c.set(0, c.op(kind, {c.in(0), axis}, named, c.out_name(0)));
  }
  // The last extreme is the first one of the reversed axis: index = dim - 1 - reversed index.
  OperandId rev = c.op(K::kReverse, {c.in(0)}, {{"axes", IntList{axis}}});
  OperandId i = c.op(kind, {rev, axis}, named);
  const double last = double(c.shape(0)[size_t(axis)] - 1);
  c.set(0, c.op(K::kSub, {c.constant(DataType::kInt64, {last}), i}, {}, c.out_name(0)));
}

}  // namespace

void register_reduce(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect;
  struct R {
    std::string_view op;
    OpKind k;
  };
  for (const R& r : {R{"ReduceL1", K::kReduceL1}, R{"ReduceL2", K::kReduceL2},
                     R{"ReduceLogSum", K::kReduceLogSum}, R{"ReduceLogSumExp", K::kReduceLogSumExp},
                     R{"ReduceMax", K::kReduceMax}, R{"ReduceMean", K::kReduceMean},
                     R{"ReduceMin", K::kReduceMin}, R{"ReduceProd", K::kReduceProduct},
                     R{"ReduceSum", K::kReduceSum}, R{"ReduceSumSquare", K::kReduceSumSquare}}) {
    const int64_t since = r.op == "ReduceSum" ? 13 : 18;
    t.push_back({"", r.op, 1, kMaxOpset,
                 [k = r.k, since](ConvertContext& c) { reduce(c, k, since); }, D, true});
  }
  t.push_back({"", "ArgMax", 1, kMaxOpset, [](ConvertContext& c) { arg(c, K::kArgMax); }, D, true});
  t.push_back({"", "ArgMin", 1, kMaxOpset, [](ConvertContext& c) { arg(c, K::kArgMin); }, D, true});
}

}  // namespace wnn::onnx::ops
