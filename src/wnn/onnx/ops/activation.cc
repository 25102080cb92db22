// Unary math and activations, Clip, Softmax/LogSoftmax (with the opset < 13 coercion to 2-D),
// Cast, Identity and Dropout. Functions WebNN lacks (Selu, tanh-Gelu, hyperbolics) decompose.
#include <cmath>

#include "wnn/onnx/ops/common.h"
#include "wnn/onnx/registry.h"
#include "wnn/onnx/tensor_data.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

ConvertFn unary_fn(OpKind k) {
  return [k](ConvertContext& c) { c.set(0, c.op(k, {c.in(0)}, {}, c.out_name(0))); };
}

OperandId scalar_like(ConvertContext& c, OperandId x, double v) {
  return c.constant(c.b().graph().desc(x).dtype, {v});
}

void leaky_relu(ConvertContext& c) {
  c.set(0, c.op(K::kLeakyRelu, {c.in(0)}, {{"alpha", c.attr_float("alpha", 0.01)}}, c.out_name(0)));
}
void elu(ConvertContext& c) {
  c.set(0, c.op(K::kElu, {c.in(0)}, {{"alpha", c.attr_float("alpha", 1.0)}}, c.out_name(0)));
}
void selu(ConvertContext& c) {
  const double alpha = c.attr_float("alpha", 1.67326319217681884765625);
  const double gamma = c.attr_float("gamma", 1.05070102214813232421875);
  OperandId e = c.op(K::kElu, {c.in(0)}, {{"alpha", alpha}});
  c.set(0, c.op(K::kMul, {e, scalar_like(c, e, gamma)}, {}, c.out_name(0)));
}
void hard_sigmoid(ConvertContext& c) {
  c.set(0, c.op(K::kHardSigmoid, {c.in(0)},
                {{"alpha", c.attr_float("alpha", 0.2)}, {"beta", c.attr_float("beta", 0.5)}},
                c.out_name(0)));
}
void gelu(ConvertContext& c) {
  const std::string approx = c.attr_string("approximate", "none");
  if (approx == "none") return c.set(0, c.op(K::kGelu, {c.in(0)}, {}, c.out_name(0)));
  if (approx != "tanh") c.unsupported("approximate='{}' (none or tanh)", approx);
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  OperandId x = c.in(0);
  OperandId x3 = c.op(K::kMul, {c.op(K::kMul, {x, x}), x});
  OperandId inner = c.op(K::kAdd, {x, c.op(K::kMul, {x3, scalar_like(c, x, 0.044715)})});
  OperandId t = c.op(K::kTanh, {c.op(K::kMul, {inner, scalar_like(c, x, std::sqrt(2 / M_PI))})});
  OperandId half_x = c.op(K::kMul, {x, scalar_like(c, x, 0.5)});
  c.set(0, c.op(K::kMul, {half_x, c.op(K::kAdd, {t, scalar_like(c, x, 1.0)})}, {}, c.out_name(0)));
}
void thresholded_relu(ConvertContext& c) {
  OperandId x = c.in(0);
  OperandId mask = c.op(K::kGreater, {x, scalar_like(c, x, c.attr_float("alpha", 1.0))});
  c.set(0, c.op(K::kWhere, {mask, x, scalar_like(c, x, 0.0)}, {}, c.out_name(0)));
}
void celu(ConvertContext& c) {
  // max(0,x) + min(0, alpha*(exp(x/alpha)-1)) == elu(x/alpha)*alpha for alpha > 0
  const double alpha = c.attr_float("alpha", 1.0);
  OperandId x = c.in(0);
  OperandId e = c.op(K::kElu, {c.op(K::kDiv, {x, scalar_like(c, x, alpha)})}, {{"alpha", 1.0}});
  OperandId pos = c.op(K::kRelu, {x});
  OperandId neg =
      c.op(K::kMin, {c.op(K::kMul, {e, scalar_like(c, x, alpha)}), scalar_like(c, x, 0.0)});
  c.set(0, c.op(K::kAdd, {pos, neg}, {}, c.out_name(0)));
}
void mish(ConvertContext& c) {
  OperandId x = c.in(0);
  c.set(0, c.op(K::kMul, {x, c.op(K::kTanh, {c.op(K::kSoftplus, {x})})}, {}, c.out_name(0)));
}

// Hyperbolic functions through exp and log.
void hyperbolic(ConvertContext& c, std::string_view f) {
  OperandId x = c.in(0);
  auto s = [&](double v) { return scalar_like(c, x, v); };
  OperandId r;
  if (f == "Sinh" || f == "Cosh") {
    OperandId ep = c.op(K::kExp, {x}), en = c.op(K::kExp, {c.op(K::kNeg, {x})});
    r = c.op(K::kMul, {c.op(f == "Sinh" ? K::kSub : K::kAdd, {ep, en}), s(0.5)});
  } else if (f == "Asinh" || f == "Acosh") {
    OperandId x2 = c.op(K::kMul, {x, x});
    OperandId root = c.op(K::kSqrt, {c.op(f == "Asinh" ? K::kAdd : K::kSub, {x2, s(1.0)})});
    r = c.op(K::kLog, {c.op(K::kAdd, {x, root})});
  } else {  // Atanh
    OperandId q = c.op(K::kDiv, {c.op(K::kAdd, {s(1.0), x}), c.op(K::kSub, {s(1.0), x})});
    r = c.op(K::kMul, {c.op(K::kLog, {q}), s(0.5)});
  }
  c.set(0, c.op(K::kIdentity, {r}, {}, c.out_name(0)));
}

void shrink(ConvertContext& c) {
  const double lambd = c.attr_float("lambd", 0.5), bias = c.attr_float("bias", 0.0);
  OperandId x = c.in(0);
  OperandId lo = c.op(K::kLesser, {x, scalar_like(c, x, -lambd)});
  OperandId hi = c.op(K::kGreater, {x, scalar_like(c, x, lambd)});
  OperandId inner =
      c.op(K::kWhere, {hi, c.op(K::kSub, {x, scalar_like(c, x, bias)}), scalar_like(c, x, 0.0)});
  c.set(0, c.op(K::kWhere, {lo, c.op(K::kAdd, {x, scalar_like(c, x, bias)}), inner}, {},
                c.out_name(0)));
}

void clip(ConvertContext& c) {
  OperandId x = c.in(0);
  const DataType dt = c.dtype(0);
  std::optional<double> lo, hi;
  std::optional<OperandId> lo_op, hi_op;
  if (c.opset() < 11) {
    lo = c.attr_float("min");
    hi = c.attr_float("max");
  } else {
    for (size_t i : {1, 2}) {
      if (!c.has_input(i)) continue;
      auto& v = i == 1 ? lo : hi;
      if (const Tensor* t = c.known(i)) {
        v = element_as_double(t->view(), 0);
      } else {
        (i == 1 ? lo_op : hi_op) = c.in(i);
      }
    }
  }
  if (lo_op || hi_op) {
    OperandId r = x;
    if (lo_op) r = c.op(K::kMax, {r, *lo_op});
    if (hi_op) r = c.op(K::kMin, {r, *hi_op});
    if (lo && !lo_op) r = c.op(K::kMax, {r, c.constant(dt, {*lo})});
    if (hi && !hi_op) r = c.op(K::kMin, {r, c.constant(dt, {*hi})});
    return c.set(0, c.op(K::kIdentity, {r}, {}, c.out_name(0)));
  }
  std::vector<std::pair<std::string, RawValue>> named;
  if (lo) named.emplace_back("minValue", *lo);
  if (hi) named.emplace_back("maxValue", *hi);
  c.set(0, c.op(K::kClamp, {x}, std::move(named), c.out_name(0)));
}

void softmax(ConvertContext& c, bool log) {
  const Shape shape = c.shape(0);
  const size_t rank = shape.size();
  if (c.opset() >= 13) {
    const int64_t axis = normalize_axis(c.attr_int("axis", -1), rank, "axis");
    OperandId r = log ? log_softmax(c, c.in(0), axis, c.out_name(0))
                      : c.op(K::kSoftmax, {c.in(0), axis}, {}, c.out_name(0));
    return c.set(0, r);
  }
  // Before opset 13 the input is coerced to 2-D [prod(dims < axis), prod(dims >= axis)].
  const int64_t axis = normalize_axis(c.attr_int("axis", 1), rank, "axis");
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < rank; ++i) (int64_t(i) < axis ? outer : inner) *= shape[i];
  OperandId x2 = c.reshape(c.in(0), {outer, inner});
  OperandId r = log ? log_softmax(c, x2, 1) : c.op(K::kSoftmax, {x2, int64_t(1)});
  c.set(0, c.reshape(r, shape, c.out_name(0)));
}

void cast_to(ConvertContext& c, OperandId x, int32_t onnx_type) {
  if (onnx_type == int32_t(OnnxType::kBool)) {
    // Any non-zero value is true; WebNN has no bool, ONNX bools are uint8 0/1 here.
    OperandId zero = scalar_like(c, x, 0.0);
    OperandId ne = c.op(K::kNotEqual, {x, zero}, {}, c.out_name(0));
    return c.set(0, ne);
  }
  auto dt = wnn_dtype_for(onnx_type);
  if (!dt) {
    c.inexpressible(onnx_type == int32_t(OnnxType::kString) ? "strings" : "", "cast to {}",
                    onnx_type_name(onnx_type));
  }
  c.set(0, c.op(K::kCast, {x, *dt}, {}, c.out_name(0)));
}

void cast(ConvertContext& c) {
  auto to = c.attr_int("to");
  if (!to) c.unsupported("Cast without the 'to' attribute");
  cast_to(c, c.in(0), int32_t(*to));
}

void cast_like(ConvertContext& c) {
  OperandId x = c.in(0);
  const DataType target = c.dtype(1);
  c.set(0, c.op(K::kCast, {x, target}, {}, c.out_name(0)));
}

void identity(ConvertContext& c) {
  if (const Tensor* t = c.known(0)) return c.set_known(0, *t);
  c.set(0, c.op(K::kIdentity, {c.in(0)}, {}, c.out_name(0)));
}

void dropout(ConvertContext& c) {
  // Inference: the output is the input. training_mode=true is random unless the ratio is a
  // known 0, where nothing is dropped and the scale 1/(1-0) is 1: torchvision's swin_t exports
  // its attention dropout that way whatever the module's mode.
  if (c.opset() >= 12 && c.has_input(2)) {
    auto mode = c.known_ints(2, "training_mode");
    if (!mode.empty() && mode[0] != 0) {
      const std::vector<double> ratio =
          c.has_input(1) ? c.known_floats(1, "ratio") : std::vector<double>{0.5};
      if (ratio.empty() || ratio[0] != 0.0) {
        c.inexpressible("training", "training_mode=true with ratio {}",
                        ratio.empty() ? 0.5 : ratio[0]);
      }
    }
  }
  if (c.opset() < 7 && c.attr_int("is_test", 0) == 0) c.inexpressible("training", "is_test=0");
  identity(c);
  if (c.wants_output(1)) {
    Shape s = c.shape(0);
    OperandId one = c.constant(DataType::kUint8, {1.0});
    c.set(1, c.op(K::kExpand, {one, RawValue(s)}, {}, c.out_name(1)));
  }
}

void is_inf(ConvertContext& c) {
  const int64_t neg = c.attr_int("detect_negative", 1), pos = c.attr_int("detect_positive", 1);
  OperandId x = c.in(0);
  if (neg && pos) return c.set(0, c.op(K::kIsInfinite, {x}, {}, c.out_name(0)));
  if (!neg && !pos) {
    return c.set(0, c.op(K::kExpand, {c.constant(DataType::kUint8, {0.0}), RawValue(c.shape(0))},
                         {}, c.out_name(0)));
  }
  OperandId inf = c.op(K::kIsInfinite, {x});
  OperandId sign = c.op(pos ? K::kGreater : K::kLesser, {x, scalar_like(c, x, 0.0)});
  c.set(0, c.op(K::kLogicalAnd, {inf, sign}, {}, c.out_name(0)));
}

void prelu(ConvertContext& c) {
  const Shape xs = c.shape(0), ss = c.shape(1);
  OperandId slope = c.in(1);
  // A per-channel [C] slope that does not broadcast numpy-wise is the legacy per-channel form.
  if (ss.size() == 1 && xs.size() > 2 && ss[0] == xs[1] && ss[0] != xs.back() && ss[0] != 1) {
    Shape s(xs.size() - 1, 1);
    s[0] = ss[0];
    slope = c.reshape(slope, s);
  }
  c.set(0, c.op(K::kPrelu, {c.in(0), slope}, {}, c.out_name(0)));
}

}  // namespace

void register_activation(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect, X = ConvertKind::kDecomposed;
  struct U {
    std::string_view op;
    OpKind k;
    int64_t since;
  };
  for (const U& u : {U{"Relu", K::kRelu, 6},         U{"Sigmoid", K::kSigmoid, 6},
                     U{"Tanh", K::kTanh, 6},         U{"Softplus", K::kSoftplus, 1},
                     U{"Softsign", K::kSoftsign, 1}, U{"Erf", K::kErf, 9},
                     U{"Exp", K::kExp, 6},           U{"Log", K::kLog, 6},
                     U{"Sqrt", K::kSqrt, 6},         U{"Reciprocal", K::kReciprocal, 6},
                     U{"Neg", K::kNeg, 6},           U{"Abs", K::kAbs, 6},
                     U{"Floor", K::kFloor, 6},       U{"Ceil", K::kCeil, 6},
                     U{"Round", K::kRoundEven, 11},  U{"Sign", K::kSign, 9},
                     U{"Sin", K::kSin, 7},           U{"Cos", K::kCos, 7},
                     U{"Tan", K::kTan, 7},           U{"HardSwish", K::kHardSwish, 14},
                     U{"IsNaN", K::kIsNaN, 9}}) {
    t.push_back({"", u.op, u.since, kMaxOpset, unary_fn(u.k), D, true});
  }
  t.push_back({"", "LeakyRelu", 6, kMaxOpset, leaky_relu, D, true});
  t.push_back({"", "Elu", 6, kMaxOpset, elu, D, true});
  t.push_back({"", "Selu", 6, kMaxOpset, selu, X, true});
  t.push_back({"", "HardSigmoid", 6, kMaxOpset, hard_sigmoid, D, true});
  t.push_back({"", "Gelu", 20, kMaxOpset, gelu, D, true});
  t.push_back({"", "ThresholdedRelu", 10, kMaxOpset, thresholded_relu, X, true});
  t.push_back({"", "Celu", 12, kMaxOpset, celu, X, true});
  t.push_back({"", "Mish", 18, kMaxOpset, mish, X, true});
  for (std::string_view f : {"Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}) {
    t.push_back({"", f, 9, kMaxOpset, [f](ConvertContext& c) { hyperbolic(c, f); }, X, true});
  }
  t.push_back({"", "Clip", 6, kMaxOpset, clip, D, true});
  t.push_back({"", "Shrink", 9, kMaxOpset, shrink, X, true});
  t.push_back({"", "Softmax", 1, 12, [](ConvertContext& c) { softmax(c, false); }, X, true});
  t.push_back(
      {"", "Softmax", 13, kMaxOpset, [](ConvertContext& c) { softmax(c, false); }, D, true});
  t.push_back(
      {"", "LogSoftmax", 1, kMaxOpset, [](ConvertContext& c) { softmax(c, true); }, X, true});
  t.push_back({"", "Cast", 6, kMaxOpset, cast, D, true});
  t.push_back({"", "CastLike", 15, kMaxOpset, cast_like, D, true});
  t.push_back({"", "Identity", 1, kMaxOpset, identity, D, true});
  t.push_back({"", "Dropout", 1, kMaxOpset, dropout, D, false});
  t.push_back({"", "IsInf", 10, kMaxOpset, is_inf, D, true});
  t.push_back({"", "PRelu", 6, kMaxOpset, prelu, D, true});
}

}  // namespace wnn::onnx::ops
