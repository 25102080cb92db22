// com.microsoft contrib operators of optimized transformer exports that decompose exactly:
// the Gelu family and the skip/simplified layer normalizations.
#include <cmath>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

OperandId with_bias(ConvertContext& c, size_t bias_input) {
  OperandId x = c.in(0);
  if (c.has_input(bias_input)) x = c.op(K::kAdd, {x, c.in(bias_input)});
  return x;
}

void ms_gelu(ConvertContext& c) {  // Gelu and BiasGelu: the exact (erf) form
  c.set(0, c.op(K::kGelu, {with_bias(c, 1)}, {}, c.out_name(0)));
}

void fast_gelu(ConvertContext& c) {  // the tanh approximation, optional bias
  OperandId x = with_bias(c, 1);
  const DataType dt = c.dtype(0);
  auto k = [&](double v) { return c.constant(dt, {v}); };
  OperandId x3 = c.op(K::kMul, {c.op(K::kMul, {x, x}), x});
  OperandId inner = c.op(K::kAdd, {x, c.op(K::kMul, {x3, k(0.044715)})});
  OperandId t = c.op(K::kTanh, {c.op(K::kMul, {inner, k(std::sqrt(2 / M_PI))})});
  c.set(0,
        c.op(K::kMul, {c.op(K::kMul, {x, k(0.5)}), c.op(K::kAdd, {t, k(1.0)})}, {}, c.out_name(0)));
}

void quick_gelu(ConvertContext& c) {  // x * sigmoid(alpha * x)
  OperandId x = c.in(0);
  OperandId ax = c.op(K::kMul, {x, c.constant(c.dtype(0), {c.attr_float("alpha", 1.702)})});
  c.set(0, c.op(K::kMul, {x, c.op(K::kSigmoid, {ax})}, {}, c.out_name(0)));
}

// x * rsqrt(mean(x^2) + eps) * gamma over the last `axes`.
OperandId rms_norm(ConvertContext& c, OperandId x, const IntList& axes, size_t gamma) {
  const DataType dt = c.dtype(0);
  OperandId ms =
      c.op(K::kReduceMean, {c.op(K::kMul, {x, x})}, {{"axes", axes}, {"keepDimensions", true}});
  OperandId eps = c.constant(dt, {c.attr_float("epsilon", 1e-5)});
  OperandId n = c.op(K::kDiv, {x, c.op(K::kSqrt, {c.op(K::kAdd, {ms, eps})})});
  return c.op(K::kMul, {n, c.in(gamma)});
}

void simplified_layer_norm(ConvertContext& c) {
  const size_t r = c.shape(0).size();
  const int64_t axis = normalize_axis(c.attr_int("axis", -1), r, "axis");
  if (c.wants_output(1)) c.unsupported("the inv_std_var output");
  OperandId y = rms_norm(c, c.in(0), iota(axis, int64_t(r)), 1);
  c.set(0, c.op(K::kIdentity, {y}, {}, c.out_name(0)));
}

// input + skip (+ bias), then (simplified) layer normalization over the last axis. Output 3 is
// the sum itself.
void skip_layer_norm(ConvertContext& c, bool simplified) {
  const size_t r = c.shape(0).size();
  OperandId sum = c.op(K::kAdd, {c.in(0), c.in(1)});
  const size_t bias_input = simplified ? 3 : 4;
  if (c.has_input(bias_input)) sum = c.op(K::kAdd, {sum, c.in(bias_input)});
  if (c.wants_output(1) || c.wants_output(2)) c.unsupported("the mean/inv_std_var outputs");
  const IntList axes{int64_t(r) - 1};
  OperandId y;
  if (simplified) {
    y = c.op(K::kIdentity, {rms_norm(c, sum, axes, 2)}, {}, c.out_name(0));
  } else {
    std::vector<std::pair<std::string, RawValue>> named = {
        {"axes", axes}, {"epsilon", c.attr_float("epsilon", 1e-12)}, {"scale", c.in(2)}};
    if (c.has_input(3)) named.emplace_back("bias", c.in(3));
    y = c.op(K::kLayerNormalization, {sum}, std::move(named), c.out_name(0));
  }
  c.set(0, y);
  if (c.wants_output(3)) c.set(3, c.op(K::kIdentity, {sum}, {}, c.out_name(3)));
}

}  // namespace

void register_contrib(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed, D = ConvertKind::kDirect;
  t.push_back({kMsDomain, "Gelu", 1, kMaxOpset, ms_gelu, D});
  t.push_back({kMsDomain, "BiasGelu", 1, kMaxOpset, ms_gelu, X});
  t.push_back({kMsDomain, "FastGelu", 1, kMaxOpset, fast_gelu, X});
  t.push_back({kMsDomain, "QuickGelu", 1, kMaxOpset, quick_gelu, X});
  t.push_back({kMsDomain, "SimplifiedLayerNormalization", 1, kMaxOpset, simplified_layer_norm, X});
  t.push_back({"", "SimplifiedLayerNormalization", 1, kMaxOpset, simplified_layer_norm, X});
  t.push_back({kMsDomain, "SkipLayerNormalization", 1, kMaxOpset,
               [](ConvertContext& c) { skip_layer_norm(c, false); }, X});
  t.push_back({kMsDomain, "SkipSimplifiedLayerNormalization", 1, kMaxOpset,
               [](ConvertContext& c) { skip_layer_norm(c, true); }, X});
}

}  // namespace wnn::onnx::ops
