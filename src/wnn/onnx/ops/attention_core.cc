// Rotary embedding and scaled dot-product attention, decomposed into WebNN operators for the
// com.microsoft attention converters.
#include <limits>

#include "wnn/onnx/ops/attention.h"

namespace wnn::onnx::ops {

using K = OpKind;

Shape shape_of(ConvertContext& c, OperandId x) { return c.b().graph().desc(x).shape; }

OperandId slice_axis(ConvertContext& c, OperandId x, size_t axis, int64_t begin, int64_t size) {
  Shape sizes = shape_of(c, x);
  IntList starts(sizes.size(), 0);
  starts[axis] = begin;
  sizes[axis] = size;
  return c.op(K::kSlice, {x, RawValue(starts), RawValue(sizes)});
}

OperandId apply_rotary(ConvertContext& c, OperandId x, OperandId cos, OperandId sin,
                       int64_t rotary_dim, bool interleaved) {
  const Shape xs = shape_of(c, x);
  const size_t last = xs.size() - 1;
  const int64_t head = xs[last], half = rotary_dim / 2;
  check(rotary_dim % 2 == 0 && rotary_dim <= head && rotary_dim > 0,
        "{}: rotary dimension {} does not fit head size {}", c.node().op_type, rotary_dim, head);
  OperandId rot = rotary_dim == head ? x : slice_axis(c, x, last, 0, rotary_dim);
  auto rotate = [&](OperandId x1, OperandId x2, OperandId co, OperandId si) {
    OperandId o1 = c.op(K::kSub, {c.op(K::kMul, {x1, co}), c.op(K::kMul, {x2, si})});
    OperandId o2 = c.op(K::kAdd, {c.op(K::kMul, {x2, co}), c.op(K::kMul, {x1, si})});
    return std::pair{o1, o2};
  };
  OperandId y;
  if (interleaved) {
    Shape pairs = xs;
    pairs[last] = half;
    pairs.push_back(2);
    OperandId p = c.reshape(rot, pairs);
    Shape cs = shape_of(c, cos);
    cs.push_back(1);
    auto [o1, o2] = rotate(slice_axis(c, p, last + 1, 0, 1), slice_axis(c, p, last + 1, 1, 1),
                           c.reshape(cos, cs), c.reshape(sin, cs));
    Shape flat = xs;
    flat[last] = rotary_dim;
    y = c.reshape(c.op(K::kConcat, {RawValue(OperandList{o1, o2}), int64_t(last + 1)}), flat);
  } else {
    auto [o1, o2] =
        rotate(slice_axis(c, rot, last, 0, half), slice_axis(c, rot, last, half, half), cos, sin);
    y = c.op(K::kConcat, {RawValue(OperandList{o1, o2}), int64_t(last)});
  }
  if (rotary_dim == head) return y;
  OperandId pass = slice_axis(c, x, last, rotary_dim, head - rotary_dim);
  return c.op(K::kConcat, {RawValue(OperandList{y, pass}), int64_t(last)});
}

OperandId to_heads(ConvertContext& c, OperandId x, int64_t heads, std::string_view what) {
  const Shape s = shape_of(c, x);
  check(s.size() == 3 && s[2] % heads == 0, "{}: {} of shape {} does not split into {} heads",
        c.node().op_type, what, shape_to_string(s), heads);
  OperandId r = c.reshape(x, {s[0], s[1], heads, s[2] / heads});
  return c.op(K::kTranspose, {r}, {{"permutation", IntList{0, 2, 1, 3}}});
}

namespace {
// x [b, heads, rows, cols] as [b, kv, heads / kv * rows, cols]: query head kv * g + j's rows
// follow one another in key/value head kv's group (row j * rows + r), so a group's query heads
// share one matmul with their key/value head instead of reading copies of it.
OperandId group_heads(ConvertContext& c, OperandId x, int64_t kv) {
  const Shape s = shape_of(c, x);
  return c.reshape(x, {s[0], kv, s[1] / kv * s[2], s[3]});
}

// The grouped product back as [b, heads, rows, cols].
OperandId ungroup_heads(ConvertContext& c, OperandId x, int64_t heads) {
  const Shape s = shape_of(c, x);
  return c.reshape(x, {s[0], heads, s[1] * s[2] / heads, s[3]});
}
}  // namespace

OperandId scaled_dot_product_attention(ConvertContext& c, OperandId q, OperandId k, OperandId v,
                                       const SdpaOptions& o) {
  const Shape qs = shape_of(c, q), ks = shape_of(c, k), vs = shape_of(c, v);
  const int64_t b = qs[0], n = qs[1], s = qs[2], t = ks[2], hv = vs[3];
  check(ks[1] > 0 && n % ks[1] == 0, "{}: {} query heads are not a multiple of {} key heads",
        c.node().op_type, n, ks[1]);
  const DataType dt = c.b().graph().desc(q).dtype;
  const int64_t kv = ks[1];
  OperandId kt = c.op(K::kTranspose, {k}, {{"permutation", IntList{0, 1, 3, 2}}});
  OperandId qk = kv == n ? c.op(K::kMatmul, {q, kt})
                         : ungroup_heads(c, c.op(K::kMatmul, {group_heads(c, q, kv), kt}), n);
  OperandId scores = c.op(K::kMul, {qk, c.constant(dt, {o.scale})});
  if (o.softcap > 0) {
    OperandId cap = c.constant(dt, {o.softcap});
    scores = c.op(K::kMul, {c.op(K::kTanh, {c.op(K::kDiv, {scores, cap})}), cap});
  }
  if (o.bias) scores = c.op(K::kAdd, {scores, *o.bias});
  OperandId probs;
  if (o.sink) {
    // The sink logit joins the softmax's denominator and is dropped from its output.
    OperandId extra = c.op(K::kExpand, {*o.sink, RawValue(Shape{b, n, s, 1})});
    OperandId all = c.op(K::kConcat, {RawValue(OperandList{scores, extra}), int64_t(3)});
    probs = slice_axis(c, c.op(K::kSoftmax, {all, int64_t(3)}), 3, 0, t);
  } else {
    probs = c.op(K::kSoftmax, {scores, int64_t(3)});
  }
  OperandId out = kv == n ? c.op(K::kMatmul, {probs, v})
                          : ungroup_heads(c, c.op(K::kMatmul, {group_heads(c, probs, kv), v}), n);
  out = c.op(K::kTranspose, {out}, {{"permutation", IntList{0, 2, 1, 3}}});
  return c.reshape(out, {b, s, n * hv});
}

namespace {
OperandId int_range(ConvertContext& c, int64_t count, Shape shape) {
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[size_t(i)] = double(i);
  return c.constant(DataType::kInt32, v, std::move(shape));
}
}  // namespace

OperandId key_positions(ConvertContext& c, int64_t t) { return int_range(c, t, {1, 1, 1, t}); }
OperandId query_positions(ConvertContext& c, int64_t s) { return int_range(c, s, {1, 1, s, 1}); }

OperandId mask_to_bias(ConvertContext& c, OperandId keep, double fill, DataType dt) {
  return c.op(K::kWhere, {keep, c.constant(dt, {0.0}), c.constant(dt, {fill})});
}

}  // namespace wnn::onnx::ops
