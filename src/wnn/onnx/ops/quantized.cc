// Integer and quantized linear algebra without integer kernels: ConvInteger, MatMulInteger,
// QLinearConv, QLinearMatMul and DynamicQuantizeLinear, in ONNX Runtime's arithmetic. The
// integer products are exact int32 (integer_product.h); QLinear* add their int32 bias there,
// round the sum to float32 once and requantize with ORT's float32 multiplier
// x_scale * w_scale / y_scale, rounding half to even, adding the zero point and saturating.
#include "wnn/onnx/ops/dynamic_quantize.h"
#include "wnn/onnx/ops/integer_product.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

// A per-channel parameter ([C] with C > 1) reshaped to line up with `axis` of a rank-`rank`
// value; per-tensor ones (scalars, [1]) become scalars.
OperandId along(ConvertContext& c, OperandId p, size_t rank, size_t axis) {
  const Shape s = c.b().graph().desc(p).shape;
  if (element_count(s) == 1) return s.empty() ? p : c.reshape(p, {});
  Shape shape(rank, 1);
  shape[axis] = element_count(s);
  return c.reshape(p, shape);
}

// round(acc * multiplier) + zero_point saturated to the zero point's type.
OperandId requantize(ConvertContext& c, OperandId acc, OperandId multiplier, size_t zp_input,
                     std::string name) {
  const DataType qt = c.dtype(zp_input);
  const bool u8 = qt == DataType::kUint8;
  if (!u8 && qt != DataType::kInt8) c.unsupported("quantized type {}", dtype_name(qt));
  OperandId zp = c.reshape(c.op(K::kCast, {c.in(zp_input), DataType::kFloat32}), {});
  OperandId q = c.op(K::kAdd, {c.op(K::kRoundEven, {c.op(K::kMul, {acc, multiplier})}), zp});
  q = c.op(K::kClamp, {q}, {{"minValue", u8 ? 0.0 : -128.0}, {"maxValue", u8 ? 255.0 : 127.0}});
  return c.op(K::kCast, {q, qt}, {}, std::move(name));
}

// x_scale * w_scale / y_scale, with a per-channel w_scale lined up on `axis`.
OperandId multiplier(ConvertContext& c, size_t xs, size_t ws, size_t ys, size_t rank, size_t axis) {
  OperandId xw = c.op(K::kMul, {c.reshape(c.in(xs), {}), along(c, c.in(ws), rank, axis)});
  return c.op(K::kDiv, {xw, c.reshape(c.in(ys), {})});
}

void conv_integer(ConvertContext& c) {
  c.set(0, exact_conv_integer(c, {0, 2}, {1, 3}, c.out_name(0)));
}

void matmul_integer(ConvertContext& c) {
  c.set(0, exact_matmul_integer(c, {0, 2}, {1, 3}, c.out_name(0)));
}

// The int32 accumulator plus QLinearConv's int32 bias, rounded once to float32.
void qlinear_conv(ConvertContext& c) {
  OperandId acc = exact_conv_integer(c, {0, 2}, {3, 5});
  const size_t rank = c.b().graph().desc(acc).shape.size();
  if (c.has_input(8)) {
    OperandId bias = c.op(K::kCast, {c.in(8), DataType::kInt32});
    acc = c.op(K::kAdd, {acc, along(c, bias, rank, 1)});
  }
  acc = c.op(K::kCast, {acc, DataType::kFloat32});
  c.set(0, requantize(c, acc, multiplier(c, 1, 4, 6, rank, 1), 7, c.out_name(0)));
}

void qlinear_matmul(ConvertContext& c) {
  OperandId acc =
      c.op(K::kCast, {exact_matmul_integer(c, {0, 2}, {3, 5}), DataType::kFloat32});
  const size_t rank = c.b().graph().desc(acc).shape.size();
  // b's scale may be per column (the last axis).
  c.set(0, requantize(c, acc, multiplier(c, 1, 4, 6, rank, rank - 1), 7, c.out_name(0)));
}

void dynamic_quantize_linear(ConvertContext& c) {
  const DynamicQuantization q = dynamic_quantize_uint8(c, c.in(0), c.out_name(0), c.out_name(1));
  c.set(0, q.quantized);
  c.set(1, q.scale);
  if (c.wants_output(2)) {
    c.set(2, c.op(K::kCast, {q.zero_point, DataType::kUint8}, {}, c.out_name(2)));
  }
}

}  // namespace

DynamicQuantization dynamic_quantize_uint8(ConvertContext& c, OperandId x, std::string q_name,
                                           std::string scale_name) {
  const OperandDesc d = c.b().graph().desc(x);
  if (d.dtype != DataType::kFloat32) {
    c.unsupported("dynamic quantization of {} (float32 converts)", dtype_name(d.dtype));
  }
  auto s = [&](double v) { return c.constant(d.dtype, {v}); };
  const std::vector<std::pair<std::string, RawValue>> all = {
      {"axes", iota(0, int64_t(d.shape.size()))}, {"keepDimensions", false}};
  // min and max are each compared with 0 after the reduction, as ORT does.
  OperandId lo = c.op(K::kMin, {c.op(K::kReduceMin, {x}, all), s(0)});
  OperandId hi = c.op(K::kMax, {c.op(K::kReduceMax, {x}, all), s(0)});
  // ORT's scale is 1 when max == min (an all-zero input), else (max - min) / 255 in float32.
  OperandId range = c.op(K::kDiv, {c.op(K::kSub, {hi, lo}), s(255)});
  OperandId scale =
      c.op(K::kWhere, {c.op(K::kEqual, {hi, lo}), s(1), range}, {}, std::move(scale_name));
  auto saturate = [&](OperandId v) {
    return c.op(K::kClamp, {v}, {{"minValue", 0.0}, {"maxValue", 255.0}});
  };
  // zero point: round half to even of 0 - min / scale saturated to [0, 255].
  OperandId zp = c.op(K::kRoundEven, {saturate(c.op(K::kSub, {s(0), c.op(K::kDiv, {lo, scale})}))});
  // x / scale is a division (MLAS's quantize kernels divide, they do not multiply by 1/scale).
  OperandId y = saturate(c.op(K::kAdd, {c.op(K::kRoundEven, {c.op(K::kDiv, {x, scale})}), zp}));
  return {c.op(K::kCast, {y, DataType::kUint8}, {}, std::move(q_name)), scale, zp};
}

void register_quantized(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "ConvInteger", 10, kMaxOpset, conv_integer, X});
  t.push_back({"", "MatMulInteger", 10, kMaxOpset, matmul_integer, X});
  t.push_back({"", "QLinearConv", 10, kMaxOpset, qlinear_conv, X});
  t.push_back({"", "QLinearMatMul", 10, kMaxOpset, qlinear_matmul, X});
  t.push_back({"", "DynamicQuantizeLinear", 11, kMaxOpset, dynamic_quantize_linear, X});
}

}  // namespace wnn::onnx::ops
