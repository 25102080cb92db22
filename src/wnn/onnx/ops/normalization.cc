// BatchNormalization, InstanceNormalization, LayerNormalization (any axis) and
// GroupNormalization (a layer normalization over each group, then the per-channel affine).
#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

void batch_norm(ConvertContext& c) {
  if (c.attr_int("training_mode", 0) != 0) c.inexpressible("training", "training_mode=1");
  if (c.opset() < 7 && c.attr_int("is_test", 0) == 0) c.inexpressible("training", "is_test=0");
  if (c.opset() < 9 && c.attr_int("spatial", 1) == 0) c.unsupported("spatial=0");
  for (size_t i = 1; i < c.num_outputs(); ++i) {
    if (c.wants_output(i)) c.inexpressible("training", "the running mean/var outputs");
  }
  c.set(0, c.op(K::kBatchNormalization, {c.in(0), c.in(3), c.in(4)},
                {{"scale", c.in(1)},
                 {"bias", c.in(2)},
                 {"axis", int64_t(1)},
                 {"epsilon", c.attr_float("epsilon", 1e-5)}},
                c.out_name(0)));
}

void instance_norm(ConvertContext& c) {
  const Shape s = c.shape(0);
  std::vector<std::pair<std::string, RawValue>> named = {
      {"scale", c.in(1)}, {"bias", c.in(2)}, {"epsilon", c.attr_float("epsilon", 1e-5)}};
  if (s.size() == 4)
    return c.set(0, c.op(K::kInstanceNormalization, {c.in(0)}, named, c.out_name(0)));
  if (s.size() < 3) c.unsupported("InstanceNormalization of rank {}", s.size());
  // Other ranks: fold the spatial dims into one so the 4-D operator applies.
  int64_t spatial = 1;
  for (size_t i = 2; i < s.size(); ++i) spatial *= s[i];
  OperandId x = c.reshape(c.in(0), {s[0], s[1], spatial, 1});
  OperandId y = c.op(K::kInstanceNormalization, {x}, named);
  c.set(0, c.reshape(y, s, c.out_name(0)));
}

void layer_norm(ConvertContext& c) {
  const Shape s = c.shape(0);
  const int64_t axis = normalize_axis(c.attr_int("axis", -1), s.size(), "axis");
  const IntList axes = iota(axis, int64_t(s.size()));
  if (c.wants_output(1) || c.wants_output(2)) {
    // Mean and 1/sqrt(var + epsilon) over the normalized axes, kept as size-1 dims.
    const std::vector<std::pair<std::string, RawValue>> keep = {{"axes", axes},
                                                                {"keepDimensions", true}};
    OperandId x = c.in(0);
    OperandId mean = c.op(K::kReduceMean, {x}, keep, c.out_name(1));
    OperandId d = c.op(K::kSub, {x, mean});
    OperandId var = c.op(K::kReduceMean, {c.op(K::kMul, {d, d})}, keep);
    OperandId eps = c.constant(c.dtype(0), {c.attr_float("epsilon", 1e-5)});
    c.set(1, mean);
    c.set(2,
          c.op(K::kReciprocal, {c.op(K::kSqrt, {c.op(K::kAdd, {var, eps})})}, {}, c.out_name(2)));
  }
  std::vector<std::pair<std::string, RawValue>> named = {
      {"axes", axes}, {"epsilon", c.attr_float("epsilon", 1e-5)}};
  const Shape norm_shape(s.begin() + axis, s.end());
  // ONNX broadcasts scale/bias to the normalized shape; WebNN wants exactly that shape.
  auto fit = [&](size_t i) {
    OperandId v = c.in(i);
    if (c.shape(i) != norm_shape) v = c.op(K::kExpand, {v, RawValue(norm_shape)});
    return v;
  };
  named.emplace_back("scale", fit(1));
  if (c.has_input(2)) named.emplace_back("bias", fit(2));
  c.set(0, c.op(K::kLayerNormalization, {c.in(0)}, std::move(named), c.out_name(0)));
}

void group_norm(ConvertContext& c) {
  const Shape s = c.shape(0);
  auto groups = c.attr_int("num_groups");
  if (!groups) c.unsupported("GroupNormalization without num_groups");
  const int64_t g = *groups, ch = s.at(1);
  check(g > 0 && ch % g == 0, "num_groups {} does not divide {} channels", g, ch);
  int64_t rest = 1;
  for (size_t i = 1; i < s.size(); ++i) rest *= s[i];
  OperandId x = c.reshape(c.in(0), {s[0], g, rest / g});
  OperandId n = c.op(K::kLayerNormalization, {x},
                     {{"axes", IntList{2}}, {"epsilon", c.attr_float("epsilon", 1e-5)}});
  n = c.reshape(n, s);
  // Opset 18 gives scale/bias per group, 21 per channel.
  Shape affine(s.size(), 1);
  OperandId scale = c.in(1), bias = c.in(2);
  if (c.shape(1).at(0) == g && g != ch) {
    scale =
        c.reshape(c.op(K::kExpand, {c.reshape(scale, {g, 1}), RawValue(Shape{g, ch / g})}), {ch});
    bias = c.reshape(c.op(K::kExpand, {c.reshape(bias, {g, 1}), RawValue(Shape{g, ch / g})}), {ch});
  }
  affine[1] = ch;
  OperandId y = c.op(K::kMul, {n, c.reshape(scale, affine)});
  c.set(0, c.op(K::kAdd, {y, c.reshape(bias, affine)}, {}, c.out_name(0)));
}

}  // namespace

void register_normalization(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect, X = ConvertKind::kDecomposed;
  t.push_back({"", "BatchNormalization", 6, kMaxOpset, batch_norm, D});
  t.push_back({"", "InstanceNormalization", 6, kMaxOpset, instance_norm, D});
  t.push_back({"", "LayerNormalization", 17, kMaxOpset, layer_norm, D});
  t.push_back({"", "GroupNormalization", 18, kMaxOpset, group_norm, X});
}

}  // namespace wnn::onnx::ops
