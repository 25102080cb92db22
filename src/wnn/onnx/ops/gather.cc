// Gather, GatherElements, GatherND, ScatterElements and ScatterND. ONNX allows negative
// indices; known ones are normalized at import, run-time ones with where(i < 0, i + dim, i).
#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// Indices (input i) made non-negative for an axis of size `dim`.
OperandId positive_indices(ConvertContext& c, size_t i, int64_t dim) {
  if (const Tensor* t = c.known(i)) {
    std::vector<int64_t> v(size_t(t->size()));
    bool changed = false;
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = element_as_int64(t->view(), int64_t(k));
      if (v[k] < 0) v[k] += dim, changed = true;
    }
    if (!changed) return c.in(i);
    return c.constant(make_int64_tensor(t->shape, v));
  }
  OperandId idx = c.in(i);
  const DataType dt = c.dtype(i);
  OperandId neg = c.op(K::kLesser, {idx, c.constant(dt, {0.0})});
  return c.op(K::kWhere, {neg, c.op(K::kAdd, {idx, c.constant(dt, {double(dim)})}), idx});
}

void gather(ConvertContext& c) {
  const Shape s = c.shape(0);
  const int64_t axis = normalize_axis(c.attr_int("axis", 0), s.size(), "axis");
  OperandId idx = positive_indices(c, 1, s[size_t(axis)]);
  c.set(0, c.op(K::kGather, {c.in(0), idx}, {{"axis", axis}}, c.out_name(0)));
}

void gather_elements(ConvertContext& c) {
  const Shape s = c.shape(0);
  const int64_t axis = normalize_axis(c.attr_int("axis", 0), s.size(), "axis");
  OperandId idx = positive_indices(c, 1, s[size_t(axis)]);
  c.set(0, c.op(K::kGatherElements, {c.in(0), idx}, {{"axis", axis}}, c.out_name(0)));
}

void gather_nd(ConvertContext& c) {
  if (c.attr_int("batch_dims", 0) != 0) c.unsupported("batch_dims != 0");
  c.set(0, c.op(K::kGatherND, {c.in(0), c.in(1)}, {}, c.out_name(0)));
}

void scatter_elements(ConvertContext& c) {
  const std::string red = c.attr_string("reduction", "none");
  if (red != "none") c.unsupported("reduction='{}'", red);
  const Shape s = c.shape(0);
  const int64_t axis = normalize_axis(c.attr_int("axis", 0), s.size(), "axis");
  OperandId idx = positive_indices(c, 1, s[size_t(axis)]);
  c.set(0, c.op(K::kScatterElements, {c.in(0), idx, c.in(2)}, {{"axis", axis}}, c.out_name(0)));
}

void scatter_nd(ConvertContext& c) {
  const std::string red = c.attr_string("reduction", "none");
  if (red != "none") c.unsupported("reduction='{}'", red);
  c.set(0, c.op(K::kScatterND, {c.in(0), c.in(1), c.in(2)}, {}, c.out_name(0)));
}

}  // namespace

void register_gather(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect;
  t.push_back({"", "Gather", 1, kMaxOpset, gather, D, true});
  t.push_back({"", "GatherElements", 11, kMaxOpset, gather_elements, D, true});
  t.push_back({"", "GatherND", 11, kMaxOpset, gather_nd, D, true});
  t.push_back({"", "ScatterElements", 11, kMaxOpset, scatter_elements, D, true});
  t.push_back({"", "Scatter", 9, 10, scatter_elements, D, true});
  t.push_back({"", "ScatterND", 11, kMaxOpset, scatter_nd, D, true});
}

}  // namespace wnn::onnx::ops
