// One-hot style operators, built by comparing against an iota along an axis: Hardmax, OneHot,
// and EyeLike (folded to a constant).
#include "wnn/onnx/registry.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// [0, 1, ..., n-1] of `dtype`, shaped to lie along `axis` of a rank-`rank` tensor.
OperandId iota_along(ConvertContext& c, int64_t n, size_t axis, size_t rank, DataType dtype) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(double(i));
  Shape s(rank, 1);
  s[axis] = n;
  return c.constant(make_tensor(dtype, s, v));
}

void hardmax(ConvertContext& c) {
  Shape s = c.shape(0);
  OperandId x = c.in(0);
  int64_t axis;
  const Shape original = s;
  if (c.opset() < 13) {
    const int64_t a = normalize_axis(c.attr_int("axis", 1), s.size(), "axis");
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < s.size(); ++i) (int64_t(i) < a ? outer : inner) *= s[i];
    s = {outer, inner};
    x = c.reshape(x, s);
    axis = 1;
  } else {
    axis = normalize_axis(c.attr_int("axis", -1), s.size(), "axis");
  }
  // argMax returns the first maximum, which is the one Hardmax marks.
  OperandId am =
      c.op(K::kArgMax, {x, axis}, {{"keepDimensions", true}, {"outputDataType", DataType::kInt64}});
  OperandId hit = c.op(
      K::kEqual, {am, iota_along(c, s[size_t(axis)], size_t(axis), s.size(), DataType::kInt64)});
  OperandId y = c.op(K::kCast, {hit, c.dtype(0)});
  c.set(0, c.reshape(y, original, c.out_name(0)));
}

void one_hot(ConvertContext& c) {
  const Shape is = c.shape(0);
  const int64_t depth = int64_t(c.known_floats(1, "depth").at(0));
  check(depth > 0, "OneHot depth {} must be positive", depth);
  const size_t rank = is.size() + 1;
  const int64_t axis = normalize_axis(c.attr_int("axis", -1), rank, "axis");
  OperandId idx = c.op(K::kCast, {c.in(0), DataType::kInt64});
  // Negative indices count from the end of the depth.
  OperandId neg = c.op(K::kLesser, {idx, c.constant(DataType::kInt64, {0.0})});
  idx = c.op(K::kWhere,
             {neg, c.op(K::kAdd, {idx, c.constant(DataType::kInt64, {double(depth)})}), idx});
  Shape us = is;
  us.insert(us.begin() + axis, 1);
  OperandId hit = c.op(
      K::kEqual, {c.reshape(idx, us), iota_along(c, depth, size_t(axis), rank, DataType::kInt64)});
  const Shape vs = c.shape(2);
  check(element_count(vs) == 2, "OneHot values must hold [off, on]");
  auto parts = c.b().add(K::kSplit, {c.reshape(c.in(2), {2}), RawValue(IntList{1, 1})});
  OperandId off = c.reshape(parts[0], {}), on = c.reshape(parts[1], {});
  c.set(0, c.op(K::kWhere, {hit, on, off}, {}, c.out_name(0)));
}

void eye_like(ConvertContext& c) {
  const Shape s = c.shape(0);
  check(s.size() == 2, "EyeLike needs a 2-D input, got rank {}", s.size());
  DataType dt = c.dtype(0);
  if (auto d = c.attr_int("dtype")) {
    auto w = wnn_dtype_for(int32_t(*d));
    if (!w) c.unsupported("dtype {}", onnx_type_name(int32_t(*d)));
    dt = *w;
  }
  const int64_t k = c.attr_int("k", 0);
  std::vector<double> v(size_t(s[0] * s[1]), 0.0);
  for (int64_t i = 0; i < s[0]; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < s[1]) v[size_t(i * s[1] + j)] = 1.0;
  }
  c.set_known(0, make_tensor(dt, s, v));
}

}  // namespace

void register_onehot(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "Hardmax", 1, kMaxOpset, hardmax, X, true});
  t.push_back({"", "OneHot", 9, kMaxOpset, one_hot, X, true});
  t.push_back({"", "EyeLike", 9, kMaxOpset, eye_like, ConvertKind::kFolded});
}

}  // namespace wnn::onnx::ops
