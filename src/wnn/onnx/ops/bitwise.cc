// BitwiseNot, BitwiseAnd, BitwiseOr and BitwiseXor with integer arithmetic only (WebNN has no
// bitwise operators). Signed inputs are cast to the unsigned type of their width, which wraps
// modulo 2^bits and so keeps the two's complement bits, and cast back at the end.
#include <cmath>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {
namespace {

using K = OpKind;

DataType unsigned_of(ConvertContext& c, DataType dt) {
  switch (dt) {
    case DataType::kInt8:
    case DataType::kUint8:
      return DataType::kUint8;
    case DataType::kInt32:
    case DataType::kUint32:
      return DataType::kUint32;
    case DataType::kInt64:
    case DataType::kUint64:
      return DataType::kUint64;
    default:
      c.unsupported("bitwise operation on {}", dtype_name(dt));
  }
}

// ~x = (2^bits - 1) - x, with no borrow for unsigned values; signed ones via their bits.
void bitwise_not(ConvertContext& c) {
  const DataType dt = c.dtype(0), ut = unsigned_of(c, dt);
  OperandId x = dt == ut ? c.in(0) : c.op(K::kCast, {c.in(0), ut});
  // All ones: 0 - 1 wraps to 2^bits - 1 in unsigned arithmetic.
  OperandId ones = c.op(K::kSub, {c.constant(ut, {0.0}), c.constant(ut, {1.0})});
  OperandId y = c.op(K::kSub, {ones, x});
  c.set(0, c.op(dt == ut ? K::kIdentity : K::kCast,
                dt == ut ? std::vector<RawValue>{y} : std::vector<RawValue>{y, dt}, {},
                c.out_name(0)));
}

// Bit by bit: bit i of v is (v / 2^i) - 2 (v / 2^(i+1)) in truncating unsigned division.
void bitwise_binary(ConvertContext& c, std::string_view op) {
  const DataType dt = c.dtype(0), ut = unsigned_of(c, dt);
  auto as_unsigned = [&](size_t i) { return dt == ut ? c.in(i) : c.op(K::kCast, {c.in(i), ut}); };
  OperandId a = as_unsigned(0), b = as_unsigned(1);
  const int bits = int(dtype_size(ut)) * 8;
  auto pow2 = [&](int i) { return c.constant(ut, {std::ldexp(1.0, i)}); };
  auto bit = [&](OperandId v, int i) {
    OperandId q = c.op(K::kDiv, {v, pow2(i)});
    OperandId half = c.op(K::kDiv, {q, c.constant(ut, {2.0})});
    return c.op(K::kSub, {q, c.op(K::kMul, {half, c.constant(ut, {2.0})})});
  };
  std::optional<OperandId> acc;
  for (int i = 0; i < bits; ++i) {
    OperandId x = bit(a, i), y = bit(b, i), xy = c.op(K::kMul, {x, y});
    OperandId r;
    if (op == "And") {
      r = xy;
    } else if (op == "Or") {
      r = c.op(K::kSub, {c.op(K::kAdd, {x, y}), xy});
    } else {
      r = c.op(K::kSub, {c.op(K::kAdd, {x, y}), c.op(K::kAdd, {xy, xy})});
    }
    r = c.op(K::kMul, {r, pow2(i)});
    acc = acc ? c.op(K::kAdd, {*acc, r}) : r;
  }
  c.set(0, c.op(K::kCast, {*acc, dt}, {}, c.out_name(0)));
}

}  // namespace

void register_bitwise(std::vector<Converter>& t) {
  const auto X = ConvertKind::kDecomposed;
  t.push_back({"", "BitwiseNot", 18, kMaxOpset, bitwise_not, X, true});
  for (std::string_view op : {"And", "Or", "Xor"}) {
    static const std::string names[] = {"BitwiseAnd", "BitwiseOr", "BitwiseXor"};
    const std::string& name = names[op == "And" ? 0 : op == "Or" ? 1 : 2];
    t.push_back(
        {"", name, 18, kMaxOpset, [op](ConvertContext& c) { bitwise_binary(c, op); }, X, true});
  }
}

}  // namespace wnn::onnx::ops
