#include "wnn/onnx/ops/scatter_reduce.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// Reduces `updates` (with a one-hot `mask` over the targets, both broadcastable to the same
// shape) over `axis`, and combines them with `data` (laid out like the reduced result).
// add and mul combine with data afterwards (identities 0 and 1 fill the masked-out entries);
// max and min take data itself as the fill, which needs no identity value for any dtype.
OperandId combine(ConvertContext& c, OperandId mask, OperandId updates, OperandId data,
                  OperandId data_unreduced, int64_t axis, const std::string& reduction) {
  const DataType dt = c.b().graph().desc(data).dtype;
  const std::vector<std::pair<std::string, RawValue>> opts = {{"axes", IntList{axis}},
                                                              {"keepDimensions", false}};
  if (reduction == "add" || reduction == "mul") {
    const bool add = reduction == "add";
    OperandId fill = c.constant(dt, {add ? 0.0 : 1.0});
    OperandId r = c.op(add ? K::kReduceSum : K::kReduceProduct,
                       {c.op(K::kWhere, {mask, updates, fill})}, opts);
    return c.op(add ? K::kAdd : K::kMul, {data, r});
  }
  if (reduction == "max" || reduction == "min") {
    return c.op(reduction == "max" ? K::kReduceMax : K::kReduceMin,
                {c.op(K::kWhere, {mask, updates, data_unreduced})}, opts);
  }
  c.unsupported("reduction='{}' (none, add, mul, max or min)", reduction);
}

Shape insert_dim(Shape s, size_t at, int64_t v) {
  s.insert(s.begin() + long(at), v);
  return s;
}

std::vector<double> counting(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(i);
  return v;
}

}  // namespace

void scatter_elements_reduced(ConvertContext& c, OperandId indices, int64_t axis,
                              const std::string& reduction) {
  const Shape ds = c.shape(0), us = c.shape(1);
  const size_t a = size_t(axis), r = ds.size();
  const int64_t n = ds[a];
  // The updates' extent in every other axis; the positions beyond it keep data.
  Shape region = us;
  region[a] = n;
  OperandId data = c.in(0);
  const bool partial = region != ds;
  if (partial) {
    data = c.op(K::kSlice, {data, RawValue(IntList(r, 0)), RawValue(IntList(region))});
  }
  // The one-hot target axis sits right after the updates' axis: [..., u_a, n, ...].
  Shape at = Shape(r + 1, 1);
  at[a + 1] = n;
  OperandId targets = c.constant(c.dtype(1), counting(n), at);
  OperandId mask = c.op(K::kEqual, {c.reshape(indices, insert_dim(us, a + 1, 1)), targets});
  OperandId updates = c.reshape(c.in(2), insert_dim(us, a + 1, 1));
  OperandId data_unreduced = c.reshape(data, insert_dim(region, a, 1));
  OperandId y = combine(c, mask, updates, data, data_unreduced, axis, reduction);
  if (partial) {
    // Put the computed region back into the full data.
    IntList end(r);
    for (size_t i = 0; i < r; ++i) end[i] = ds[i] - region[i];
    OperandId padded = c.op(K::kPad, {y, RawValue(IntList(r, 0)), RawValue(end)});
    OperandId inside =
        c.op(K::kPad, {c.op(K::kExpand, {c.constant(DataType::kUint8, {1.0}), RawValue(region)}),
                       RawValue(IntList(r, 0)), RawValue(end)});
    y = c.op(K::kWhere, {inside, padded, c.in(0)});
  }
  c.set(0, c.op(K::kIdentity, {y}, {}, c.out_name(0)));
}

void scatter_nd_reduced(ConvertContext& c, const std::string& reduction) {
  const Shape ds = c.shape(0), is = c.shape(1);
  const int64_t k = is.back();
  check(k >= 1 && k <= int64_t(ds.size()), "ScatterND index depth {} for data of rank {}", k,
        ds.size());
  int64_t m = 1, p = 1;
  for (size_t i = 0; i + 1 < is.size(); ++i) m *= is[i];
  std::vector<double> strides(static_cast<size_t>(k)), dims(static_cast<size_t>(k));
  for (int64_t j = k - 1; j >= 0; --j) {
    strides[size_t(j)] = double(p);
    dims[size_t(j)] = double(ds[size_t(j)]);
    p *= ds[size_t(j)];
  }
  const Shape rest(ds.begin() + k, ds.end());
  // Linear target of each index tuple, negative indices counted from the end.
  const DataType it = c.dtype(1);
  OperandId idx = c.reshape(c.in(1), {m, k});
  OperandId neg = c.op(K::kLesser, {idx, c.constant(it, {0.0})});
  idx = c.op(K::kWhere, {neg, c.op(K::kAdd, {idx, c.constant(it, dims, {1, k})}), idx});
  OperandId lin = c.op(K::kReduceSum, {c.op(K::kMul, {idx, c.constant(it, strides, {1, k})})},
                       {{"axes", IntList{1}}, {"keepDimensions", true}});  // [m, 1]
  Shape ones(rest.size(), 1);
  Shape mask_shape{m, p};
  mask_shape.insert(mask_shape.end(), ones.begin(), ones.end());
  OperandId mask =
      c.reshape(c.op(K::kEqual, {lin, c.constant(it, counting(p), {1, p})}), mask_shape);
  Shape us{m, 1}, dfs{p}, dus{1, p};
  us.insert(us.end(), rest.begin(), rest.end());
  dfs.insert(dfs.end(), rest.begin(), rest.end());
  dus.insert(dus.end(), rest.begin(), rest.end());
  OperandId updates = c.reshape(c.in(2), us);
  OperandId data = c.reshape(c.in(0), dfs);
  OperandId y = combine(c, mask, updates, data, c.reshape(c.in(0), dus), 0, reduction);
  c.set(0, c.reshape(y, ds, c.out_name(0)));
}

}  // namespace wnn::onnx::ops
