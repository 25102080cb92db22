// Elementwise float arithmetic with scalar constants, for the decompositions that compute
// coordinates and weights at run time (GridSample, RoiAlign).
#pragma once

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

struct FloatOps {
  ConvertContext& c;
  DataType dt;
  using K = OpKind;

  OperandId k(double v) { return c.constant(dt, {v}); }
  OperandId add(OperandId a, OperandId b) { return c.op(K::kAdd, {a, b}); }
  OperandId sub(OperandId a, OperandId b) { return c.op(K::kSub, {a, b}); }
  OperandId mul(OperandId a, OperandId b) { return c.op(K::kMul, {a, b}); }
  OperandId floor(OperandId a) { return c.op(K::kFloor, {a}); }
  OperandId where(OperandId m, OperandId a, OperandId b) { return c.op(K::kWhere, {m, a, b}); }
  OperandId lt(OperandId a, double v) { return c.op(K::kLesser, {a, k(v)}); }
  OperandId gt(OperandId a, double v) { return c.op(K::kGreater, {a, k(v)}); }
  OperandId clamp(OperandId a, double lo, double hi) {
    return c.op(K::kClamp, {a}, {{"minValue", lo}, {"maxValue", hi}});
  }

  // Reflects v into [lo, hi] by folding at the ends (ONNX's _gs_reflect).
  OperandId reflect(OperandId v, double lo, double hi) {
    const double range = hi - lo;
    if (range <= 0) return clamp(v, lo, lo);
    auto fold = [&](OperandId dx, double even_base, double odd_base, double even_sign) {
      OperandId n = floor(mul(dx, k(1 / range)));
      OperandId r = sub(dx, mul(n, k(range)));
      OperandId odd = gt(sub(n, mul(floor(mul(n, k(0.5))), k(2))), 0.5);
      OperandId even_v = add(k(even_base), mul(r, k(even_sign)));
      OperandId odd_v = add(k(odd_base), mul(r, k(-even_sign)));
      return where(odd, odd_v, even_v);
    };
    OperandId below = fold(sub(k(lo), v), lo, hi, 1);
    OperandId above = fold(sub(v, k(hi)), hi, lo, -1);
    return where(lt(v, lo), below, where(gt(v, hi), above, v));
  }
};

}  // namespace wnn::onnx::ops
