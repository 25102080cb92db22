// Gather, GatherElements, GatherND, ScatterElements and ScatterND. ONNX allows negative
// indices; known ones are normalized at import, run-time ones with where(i < 0, i + dim, i).
#include "wnn/onnx/ops/scatter_reduce.h"
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
  const int64_t axis = normalize_dim_axis(c.attr_int("axis", 0), s, "axis");
  OperandId idx = positive_indices(c, 1, s[size_t(axis)]);
  c.set(0, c.op(K::kGather, {c.in(0), idx}, {{"axis", axis}}, c.out_name(0)));
}

void gather_elements(ConvertContext& c) {
  const Shape s = c.shape(0);
  const int64_t axis = normalize_dim_axis(c.attr_int("axis", 0), s, "axis");
  OperandId idx = positive_indices(c, 1, s[size_t(axis)]);
  c.set(0, c.op(K::kGatherElements, {c.in(0), idx}, {{"axis", axis}}, c.out_name(0)));
}

// batch_dims = b: the leading b dims of data and indices pair up. Flattened into one batch
// dim, each index tuple gets its batch number prepended, and a plain gatherND does the rest.
void gather_nd(ConvertContext& c) {
  const int64_t b = c.attr_int("batch_dims", 0);
  if (b == 0) return c.set(0, c.op(K::kGatherND, {c.in(0), c.in(1)}, {}, c.out_name(0)));
  const Shape ds = c.shape(0), is = c.shape(1);
  check(b > 0 && size_t(b) < ds.size() && size_t(b) < is.size(),
        "GatherND batch_dims={} for data rank {} and indices rank {}", b, ds.size(), is.size());
  const int64_t k = is.back();
  int64_t batch = 1, tuples = 1;
  for (size_t i = 0; i < size_t(b); ++i) {
    check(ds[i] == is[i], "GatherND batch dim {}: data {} vs indices {}", i, ds[i], is[i]);
    batch *= ds[i];
  }
  for (size_t i = size_t(b); i + 1 < is.size(); ++i) tuples *= is[i];
  Shape flat_data{batch};
  flat_data.insert(flat_data.end(), ds.begin() + b, ds.end());
  OperandId data = c.reshape(c.in(0), flat_data);
  OperandId idx = c.reshape(c.in(1), {batch, tuples, k});
  std::vector<double> numbers(static_cast<size_t>(batch));
  for (int64_t i = 0; i < batch; ++i) numbers[size_t(i)] = double(i);
  OperandId which = c.op(K::kExpand, {c.constant(c.dtype(1), numbers, {batch, 1, 1}),
                                      RawValue(Shape{batch, tuples, 1})});
  idx = c.op(K::kConcat, {RawValue(std::vector<OperandId>{which, idx}), int64_t(2)});
  OperandId y = c.op(K::kGatherND, {data, idx});
  Shape out(is.begin(), is.end() - 1);
  out.insert(out.end(), ds.begin() + b + k, ds.end());
  c.set(0, c.reshape(y, out, c.out_name(0)));
}

void scatter_elements(ConvertContext& c) {
  const std::string red = c.attr_string("reduction", "none");
  const Shape s = c.shape(0);
  const int64_t axis = normalize_dim_axis(c.attr_int("axis", 0), s, "axis");
  OperandId idx = positive_indices(c, 1, s[size_t(axis)]);
  if (red != "none") return scatter_elements_reduced(c, idx, axis, red);
  c.set(0, c.op(K::kScatterElements, {c.in(0), idx, c.in(2)}, {{"axis", axis}}, c.out_name(0)));
}

void scatter_nd(ConvertContext& c) {
  const std::string red = c.attr_string("reduction", "none");
  if (red != "none") return scatter_nd_reduced(c, red);
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
