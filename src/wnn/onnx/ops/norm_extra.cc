// Normalizations WebNN has no single operator for, decomposed into reductions:
// MeanVarianceNormalization, LRN, LpNormalization and GlobalLpPool.
#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

std::vector<std::pair<std::string, RawValue>> keep_axes(IntList axes) {
  return {{"axes", std::move(axes)}, {"keepDimensions", true}};
}

void mean_variance_norm(ConvertContext& c) {
  const size_t r = c.shape(0).size();
  IntList axes;
  for (int64_t a : c.attr_ints("axes").value_or(IntList{0, 2, 3})) {
    axes.push_back(normalize_axis(a, r, "axis"));
  }
  OperandId x = c.in(0);
  OperandId d = c.op(K::kSub, {x, c.op(K::kReduceMean, {x}, keep_axes(axes))});
  OperandId var = c.op(K::kReduceMean, {c.op(K::kMul, {d, d})}, keep_axes(axes));
  // ONNX's function body adds 1e-9 before the square root.
  OperandId sd = c.op(K::kSqrt, {c.op(K::kAdd, {var, c.constant(c.dtype(0), {1e-9})})});
  c.set(0, c.op(K::kDiv, {d, sd}, {}, c.out_name(0)));
}

// y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta; the window sum is an
// average pool over the zero-padded channel axis times the window size.
void lrn(ConvertContext& c) {
  const Shape s = c.shape(0);
  if (s.size() < 3) c.unsupported("LRN of rank {}", s.size());
  auto size = c.attr_int("size");
  if (!size) c.unsupported("LRN without size");
  const double alpha = c.attr_float("alpha", 1e-4), beta = c.attr_float("beta", 0.75),
               bias = c.attr_float("bias", 1.0);
  int64_t rest = 1;
  for (size_t i = 2; i < s.size(); ++i) rest *= s[i];
  OperandId x = c.in(0);
  OperandId sq = c.reshape(c.op(K::kMul, {x, x}), {s[0], 1, s[1], rest});
  const int64_t before = (*size - 1) / 2, after = *size - 1 - before;
  sq = c.op(K::kPad, {sq, RawValue(IntList{0, 0, before, 0}), RawValue(IntList{0, 0, after, 0})});
  OperandId avg = c.op(K::kAveragePool2d, {sq}, {{"windowDimensions", IntList{*size, 1}}});
  const DataType dt = c.dtype(0);
  OperandId scaled =
      c.op(K::kAdd, {c.op(K::kMul, {avg, c.constant(dt, {alpha})}), c.constant(dt, {bias})});
  OperandId den = c.op(K::kPow, {c.reshape(scaled, s), c.constant(dt, {beta})});
  c.set(0, c.op(K::kDiv, {x, den}, {}, c.out_name(0)));
}

void lp_normalization(ConvertContext& c) {
  const int64_t p = c.attr_int("p", 2);
  if (p != 1 && p != 2) c.unsupported("p={} (1 or 2)", p);
  const int64_t axis = normalize_axis(c.attr_int("axis", -1), c.shape(0).size(), "axis");
  OperandId x = c.in(0);
  OperandId n = c.op(p == 2 ? K::kReduceL2 : K::kReduceL1, {x}, keep_axes({axis}));
  c.set(0, c.op(K::kDiv, {x, n}, {}, c.out_name(0)));
}

void global_lp_pool(ConvertContext& c) {
  const int64_t p = c.attr_int("p", 2);
  if (p != 1 && p != 2) c.unsupported("p={} (1 or 2)", p);
  const size_t r = c.shape(0).size();
  c.set(0, c.op(p == 2 ? K::kReduceL2 : K::kReduceL1, {c.in(0)}, keep_axes(iota(2, int64_t(r))),
                c.out_name(0)));
}

// RMSNormalization (opset 23): x / sqrt(mean(x^2 over axes axis..r-1) + epsilon) * scale.
void rms_normalization(ConvertContext& c) {
  const size_t r = c.shape(0).size();
  const int64_t axis = normalize_axis(c.attr_int("axis", -1), r, "axis");
  const DataType dt = c.dtype(0);
  OperandId x = c.in(0);
  OperandId ms = c.op(K::kReduceMean, {c.op(K::kMul, {x, x})}, keep_axes(iota(axis, int64_t(r))));
  OperandId rms =
      c.op(K::kSqrt, {c.op(K::kAdd, {ms, c.constant(dt, {c.attr_float("epsilon", 1e-5)})})});
  c.set(0, c.op(K::kMul, {c.op(K::kDiv, {x, rms}), c.in(1)}, {}, c.out_name(0)));
}

}  // namespace

void register_norm_extra(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "MeanVarianceNormalization", 9, kMaxOpset, mean_variance_norm, X});
  t.push_back({"", "LRN", 1, kMaxOpset, lrn, X});
  t.push_back({"", "LpNormalization", 1, kMaxOpset, lp_normalization, X});
  t.push_back({"", "GlobalLpPool", 2, kMaxOpset, global_lp_pool, X});
  t.push_back({"", "RMSNormalization", 23, kMaxOpset, rms_normalization, X});
}

}  // namespace wnn::onnx::ops
