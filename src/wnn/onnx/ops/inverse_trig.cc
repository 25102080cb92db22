// Atan, Asin and Acos, which WebNN lacks. atan is range-reduced to |t| <= tan(pi/8) with
// atan(a) = pi/2 + atan(-1/a) above tan(3pi/8) and pi/4 + atan((a-1)/(a+1)) between, then a
// degree-9 odd minimax polynomial (the classic single-precision coefficients) is accurate to
// float32 rounding. asin and acos go through atan of a well-conditioned quotient, so ±1 and
// |x| -> 1 stay exact-ish: asin(x) = atan(x / sqrt((1-x)(1+x))), acos(x) = 2
// atan(sqrt((1-x)/(1+x))).
#include <cmath>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

struct Scalars {
  ConvertContext& c;
  DataType dt;
  OperandId operator()(double v) const { return c.constant(dt, {v}); }
};

OperandId atan_of(ConvertContext& c, OperandId x) {
  const Scalars s{c, c.b().graph().desc(x).dtype};
  auto op = [&](K k, std::vector<RawValue> args) { return c.op(k, std::move(args)); };
  OperandId a = op(K::kAbs, {x});
  OperandId big = op(K::kGreater, {a, s(2.414213562373095)});   // tan(3pi/8)
  OperandId mid = op(K::kGreater, {a, s(0.4142135623730950)});  // tan(pi/8)
  OperandId inv = op(K::kNeg, {op(K::kReciprocal, {a})});
  OperandId shifted = op(K::kDiv, {op(K::kSub, {a, s(1)}), op(K::kAdd, {a, s(1)})});
  OperandId t = op(K::kWhere, {big, inv, op(K::kWhere, {mid, shifted, a})});
  OperandId offset = op(K::kWhere, {big, s(M_PI / 2), op(K::kWhere, {mid, s(M_PI / 4), s(0)})});
  OperandId z = op(K::kMul, {t, t});
  OperandId p = s(8.05374449538e-2);
  for (double coef : {-1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1}) {
    p = op(K::kAdd, {op(K::kMul, {p, z}), s(coef)});
  }
  OperandId poly = op(K::kAdd, {op(K::kMul, {op(K::kMul, {p, z}), t}), t});
  OperandId r = op(K::kAdd, {offset, poly});
  return op(K::kMul, {op(K::kSign, {x}), r});
}

void atan(ConvertContext& c) {
  c.set(0, c.op(K::kIdentity, {atan_of(c, c.in(0))}, {}, c.out_name(0)));
}

void asin(ConvertContext& c) {
  OperandId x = c.in(0);
  const Scalars s{c, c.dtype(0)};
  // (1-x)(1+x) rather than 1-x^2: no cancellation near |x| = 1. At ±1 the quotient is ±inf
  // and atan gives ±pi/2; beyond, sqrt of a negative is NaN as asin's domain requires.
  OperandId d = c.op(K::kMul, {c.op(K::kSub, {s(1), x}), c.op(K::kAdd, {s(1), x})});
  OperandId q = c.op(K::kDiv, {x, c.op(K::kSqrt, {d})});
  c.set(0, c.op(K::kIdentity, {atan_of(c, q)}, {}, c.out_name(0)));
}

void acos(ConvertContext& c) {
  OperandId x = c.in(0);
  const Scalars s{c, c.dtype(0)};
  OperandId q =
      c.op(K::kSqrt, {c.op(K::kDiv, {c.op(K::kSub, {s(1), x}), c.op(K::kAdd, {s(1), x})})});
  c.set(0, c.op(K::kMul, {atan_of(c, q), s(2)}, {}, c.out_name(0)));
}

}  // namespace

void register_inverse_trig(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "Atan", 7, kMaxOpset, atan, X, true});
  t.push_back({"", "Asin", 7, kMaxOpset, asin, X, true});
  t.push_back({"", "Acos", 7, kMaxOpset, acos, X, true});
}

}  // namespace wnn::onnx::ops
