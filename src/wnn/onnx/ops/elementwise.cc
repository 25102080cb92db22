// Arithmetic, comparison and logic: ONNX's numpy broadcasting matches WebNN's binary ops, so most
// map one to one; variadic forms chain, and Mod and Pow get the decompositions WebNN needs.
#include <cmath>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

// The right operand, aligned as opset < 7's legacy broadcast (broadcast=1, axis=k) places it:
// B's dims line up with A's from `axis` on.
OperandId legacy_aligned_b(ConvertContext& c) {
  OperandId b = c.in(1);
  if (c.opset() >= 7 || c.attr_int("broadcast", 0) == 0) return b;
  const auto axis = c.attr_int("axis");
  if (!axis) return b;  // suffix alignment is numpy's
  const Shape as = c.shape(0), bs = c.shape(1);
  const int64_t a = normalize_axis(*axis, as.size(), "axis");
  Shape aligned(size_t(a), 1);
  aligned.insert(aligned.end(), bs.begin(), bs.end());
  check(aligned.size() <= as.size(), "broadcast axis {} puts B past A's rank", a);
  aligned.resize(as.size(), 1);
  return c.reshape(b, aligned);
}

void binary(ConvertContext& c, OpKind k) {
  c.set(0, c.op(k, {c.in(0), legacy_aligned_b(c)}, {}, c.out_name(0)));
}

ConvertFn binary_fn(OpKind k) {
  return [k](ConvertContext& c) { binary(c, k); };
}

// Min/Max/Sum/Mean take one or more inputs.
void variadic(ConvertContext& c, OpKind k, bool mean) {
  size_t n = 0;
  std::optional<OperandId> acc;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_input(i)) continue;
    ++n;
    acc = acc ? c.op(k, {*acc, c.in(i)}) : c.in(i);
  }
  if (!acc) c.unsupported("{} needs at least one input", c.node().op_type);
  if (mean) {
    const DataType dt = c.b().graph().desc(*acc).dtype;
    acc = c.op(OpKind::kDiv, {*acc, c.constant(dt, {double(n)})}, {}, c.out_name(0));
  } else if (n == 1) {
    acc = c.op(OpKind::kIdentity, {*acc}, {}, c.out_name(0));
  }
  c.set(0, *acc);
}

void pow(ConvertContext& c) {
  OperandId e = legacy_aligned_b(c);
  const DataType dt = c.dtype(0);
  if (c.dtype(1) != dt) e = c.op(OpKind::kCast, {e, dt});
  c.set(0, c.op(OpKind::kPow, {c.in(0), e}, {}, c.out_name(0)));
}

// a mod b: fmod=1 takes the sign of a (a - trunc(a/b)*b), fmod=0 the sign of b
// (a - floor(a/b)*b). Integers are computed in float32, exact for |values| < 2^24.
void mod(ConvertContext& c) {
  const int64_t fmod = c.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) c.unsupported("fmod={} (only 0 and 1 exist)", fmod);
  const DataType dt = c.dtype(0);
  if (fmod == 0 && is_float(dt)) c.unsupported("fmod=0 on floating-point inputs is undefined");
  OperandId a = c.in(0), b = c.in(1);
  if (!is_float(dt)) {
    a = c.op(OpKind::kCast, {a, DataType::kFloat32});
    b = c.op(OpKind::kCast, {b, DataType::kFloat32});
  }
  OperandId q = c.op(OpKind::kDiv, {a, b});
  OperandId rounded;
  if (fmod == 0) {
    rounded = c.op(OpKind::kFloor, {q});
  } else {
    // trunc(q) = sign(q) * floor(|q|)
    rounded = c.op(OpKind::kMul,
                   {c.op(OpKind::kSign, {q}), c.op(OpKind::kFloor, {c.op(OpKind::kAbs, {q})})});
  }
  OperandId r = c.op(OpKind::kSub, {a, c.op(OpKind::kMul, {rounded, b})});
  if (!is_float(dt)) {
    r = c.op(OpKind::kCast, {r, dt}, {}, c.out_name(0));
  } else {
    r = c.op(OpKind::kIdentity, {r}, {}, c.out_name(0));
  }
  c.set(0, r);
}

// x << y and x >> y on unsigned integers as x * 2^y and x / 2^y (integer division truncates),
// with 2^y gathered from a table. Shifts of the full width or more read the table's last
// entry, 0: x * 0 and x / 0 are both 0 in WebNN's integer arithmetic, as a shift out is.
void bit_shift(ConvertContext& c) {
  const std::string dir = c.attr_string("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") c.unsupported("direction '{}' (LEFT or RIGHT)", dir);
  const DataType dt = c.dtype(0);
  if (is_signed(dt) || dt == DataType::kUint4) c.unsupported("BitShift on {}", dtype_name(dt));
  const int64_t bits = int64_t(dtype_size(dt)) * 8;
  std::vector<double> pow2(size_t(bits + 1));
  for (int64_t i = 0; i < bits; ++i) pow2[size_t(i)] = std::ldexp(1.0, int(i));
  OperandId table = c.constant(dt, pow2, {bits + 1});
  OperandId y = c.op(OpKind::kMin, {c.in(1), c.constant(c.dtype(1), {double(bits)})});
  OperandId scale =
      c.op(OpKind::kGather, {table, c.op(OpKind::kCast, {y, DataType::kInt64})}, {{"axis", 0}});
  c.set(0, c.op(dir == "LEFT" ? OpKind::kMul : OpKind::kDiv, {c.in(0), scale}, {}, c.out_name(0)));
}

void not_op(ConvertContext& c) {
  c.set(0, c.op(OpKind::kLogicalNot, {c.in(0)}, {}, c.out_name(0)));
}

}  // namespace

void register_elementwise(std::vector<Converter>& t) {
  const auto D = ConvertKind::kDirect;
  struct B {
    std::string_view op;
    OpKind k;
    int64_t since;
  };
  for (const B& b :
       {B{"Add", OpKind::kAdd, 6}, B{"Sub", OpKind::kSub, 6}, B{"Mul", OpKind::kMul, 6},
        B{"Div", OpKind::kDiv, 6}, B{"Equal", OpKind::kEqual, 7}, B{"Greater", OpKind::kGreater, 7},
        B{"Less", OpKind::kLesser, 7}, B{"GreaterOrEqual", OpKind::kGreaterOrEqual, 12},
        B{"LessOrEqual", OpKind::kLesserOrEqual, 12}, B{"And", OpKind::kLogicalAnd, 7},
        B{"Or", OpKind::kLogicalOr, 7}, B{"Xor", OpKind::kLogicalXor, 7}}) {
    t.push_back({"", b.op, b.since, kMaxOpset, binary_fn(b.k), D, true});
  }
  t.push_back({"", "Pow", 1, kMaxOpset, pow, D, true});
  t.push_back({"", "BitShift", 11, kMaxOpset, bit_shift, ConvertKind::kDecomposed, true});
  t.push_back({"", "Not", 1, kMaxOpset, not_op, D, true});
  t.push_back({"", "Mod", 10, kMaxOpset, mod, ConvertKind::kDecomposed, true});
  for (auto [op, k, mean] :
       {std::tuple{"Min", OpKind::kMin, false}, std::tuple{"Max", OpKind::kMax, false},
        std::tuple{"Sum", OpKind::kAdd, false}, std::tuple{"Mean", OpKind::kAdd, true}}) {
    t.push_back({"", op, 6, kMaxOpset,
                 [k = k, mean = mean](ConvertContext& c) { variadic(c, k, mean); },
                 mean ? ConvertKind::kDecomposed : D, true});
  }
}

}  // namespace wnn::onnx::ops
