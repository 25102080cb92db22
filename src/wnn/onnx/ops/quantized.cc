// Integer and quantized linear algebra without integer kernels: ConvInteger, QLinearConv,
// QLinearMatMul and DynamicQuantizeLinear. The integer accumulation (x - x_zero) * (w - w_zero)
// runs in float32, exact while partial sums stay below 2^24 (true for 8-bit operands up to
// ~256 products per output). Requantization follows ONNX Runtime: the float32 multiplier
// x_scale * w_scale / y_scale, round half to even, add the zero point, saturate.
#include "wnn/onnx/ops/spatial.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

OperandId as_float(ConvertContext& c, OperandId x) {
  return c.op(K::kCast, {x, DataType::kFloat32});
}

// A per-channel parameter ([C] with C > 1) reshaped to line up with `axis` of a rank-`rank`
// value; per-tensor ones (scalars, [1]) pass through.
OperandId along(ConvertContext& c, OperandId p, size_t rank, size_t axis) {
  const Shape s = c.b().graph().desc(p).shape;
  if (s.size() != 1 || s[0] == 1) return s.size() == 1 ? c.reshape(p, {}) : p;
  Shape shape(rank, 1);
  shape[axis] = s[0];
  return c.reshape(p, shape);
}

// Input i minus its zero point (input zp, optional), as float32.
OperandId centered(ConvertContext& c, size_t i, size_t zp, size_t axis) {
  OperandId x = as_float(c, c.in(i));
  if (!c.has_input(zp)) return x;
  return c.op(K::kSub, {x, along(c, as_float(c, c.in(zp)), c.shape(i).size(), axis)});
}

// round(acc * multiplier) + zero_point saturated to the zero point's type.
OperandId requantize(ConvertContext& c, OperandId acc, OperandId multiplier, size_t zp_input,
                     std::string name) {
  const DataType qt = c.dtype(zp_input);
  OperandId zp = c.reshape(as_float(c, c.in(zp_input)), {});
  OperandId q = c.op(K::kAdd, {c.op(K::kRoundEven, {c.op(K::kMul, {acc, multiplier})}), zp});
  const bool u8 = qt == DataType::kUint8;
  if (!u8 && qt != DataType::kInt8) c.unsupported("quantized type {}", dtype_name(qt));
  q = c.op(K::kClamp, {q}, {{"minValue", u8 ? 0.0 : -128.0}, {"maxValue", u8 ? 255.0 : 127.0}});
  return c.op(K::kCast, {q, qt}, {}, std::move(name));
}

// x_scale * w_scale / y_scale, with a per-channel w_scale lined up on `axis`.
OperandId multiplier(ConvertContext& c, size_t xs, size_t ws, size_t ys, size_t rank, size_t axis) {
  OperandId xw = c.op(K::kMul, {c.reshape(c.in(xs), {}), along(c, c.in(ws), rank, axis)});
  return c.op(K::kDiv, {xw, c.reshape(c.in(ys), {})});
}

void conv_integer(ConvertContext& c) {
  OperandId x = centered(c, 0, 2, 1), w = centered(c, 1, 3, 0);
  OperandId y = conv_from_attributes(c, x, w, std::nullopt);
  c.set(0, c.op(K::kCast, {y, DataType::kInt32}, {}, c.out_name(0)));
}

void qlinear_conv(ConvertContext& c) {
  OperandId x = centered(c, 0, 2, 1), w = centered(c, 3, 5, 0);
  std::optional<OperandId> bias;
  if (c.has_input(8)) bias = as_float(c, c.in(8));
  OperandId acc = conv_from_attributes(c, x, w, bias);
  const size_t rank = c.b().graph().desc(acc).shape.size();
  c.set(0, requantize(c, acc, multiplier(c, 1, 4, 6, rank, 1), 7, c.out_name(0)));
}

void qlinear_matmul(ConvertContext& c) {
  const size_t rb = c.shape(3).size();
  OperandId a = centered(c, 0, 2, 0);
  // b's zero point and scale may be per column (the last axis).
  OperandId b = centered(c, 3, 5, rb - 1);
  if (c.shape(0).size() == 1 || rb == 1) c.unsupported("QLinearMatMul with a 1-D operand");
  OperandId acc = c.op(K::kMatmul, {a, b});
  const size_t rank = c.b().graph().desc(acc).shape.size();
  c.set(0, requantize(c, acc, multiplier(c, 1, 4, 6, rank, rank - 1), 7, c.out_name(0)));
}

// ONNX's definition: the range [min(x, 0), max(x, 0)] mapped onto uint8 [0, 255].
void dynamic_quantize_linear(ConvertContext& c) {
  OperandId x = c.in(0);
  const DataType dt = c.dtype(0);
  auto s = [&](double v) { return c.constant(dt, {v}); };
  const size_t r = c.shape(0).size();
  const std::vector<std::pair<std::string, RawValue>> all = {{"axes", iota(0, int64_t(r))},
                                                             {"keepDimensions", false}};
  OperandId lo = c.op(K::kMin, {c.op(K::kReduceMin, {x}, all), s(0)});
  OperandId hi = c.op(K::kMax, {c.op(K::kReduceMax, {x}, all), s(0)});
  OperandId scale = c.op(K::kDiv, {c.op(K::kSub, {hi, lo}), s(255)}, {}, c.out_name(1));
  auto saturate = [&](OperandId v) {
    return c.op(K::kClamp, {v}, {{"minValue", 0.0}, {"maxValue", 255.0}});
  };
  OperandId zp_f =
      c.op(K::kRoundEven, {saturate(c.op(K::kSub, {s(0), c.op(K::kDiv, {lo, scale})}))});
  OperandId y = saturate(c.op(K::kAdd, {c.op(K::kRoundEven, {c.op(K::kDiv, {x, scale})}), zp_f}));
  c.set(0, c.op(K::kCast, {y, DataType::kUint8}, {}, c.out_name(0)));
  c.set(1, scale);
  if (c.wants_output(2)) c.set(2, c.op(K::kCast, {zp_f, DataType::kUint8}, {}, c.out_name(2)));
}

}  // namespace

void register_quantized(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "ConvInteger", 10, kMaxOpset, conv_integer, X});
  t.push_back({"", "QLinearConv", 10, kMaxOpset, qlinear_conv, X});
  t.push_back({"", "QLinearMatMul", 10, kMaxOpset, qlinear_matmul, X});
  t.push_back({"", "DynamicQuantizeLinear", 11, kMaxOpset, dynamic_quantize_linear, X});
}

}  // namespace wnn::onnx::ops
