// Exact integer products for the quantized ONNX ops (ConvInteger, MatMulInteger, QLinearConv,
// QLinearMatMul and the com.microsoft integer matmuls). ONNX Runtime accumulates
// (x - x_zero) * (w - w_zero) in int32; WebNN's conv2d and matmul are float-only, so the
// product runs in float32 on operands split until every partial sum is provably an exact
// float32 integer, and the pieces are summed in int32 (docs/onnx-import.md, "Exact integer
// products").
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "wnn/onnx/registry.h"

namespace wnn::onnx::ops {

// Every integer of magnitude up to 2^24 is a float32. A float32 sum of integer products is
// exact, in any order and with or without FMA, when the sum of the products' magnitudes stays
// within it: each partial sum is then an integer of at most that magnitude.
inline constexpr int64_t kExactFloat32Integer = int64_t(1) << 24;

// A quantized input: its value and (optional) zero point inputs of the ONNX node; a zero point
// with more than one element runs along `axis` of the value (the products set it). A value
// the conversion computed instead (DynamicQuantizeMatMul's quantized A) is given as
// `computed`: uint8 values with a zero point operand in [0, 255].
struct IntegerInput {
  struct Computed {
    OperandId value, zero_point;
  };
  IntegerInput(size_t value_, size_t zero_point_) : value(value_), zero_point(zero_point_) {}
  explicit IntegerInput(Computed c) : computed(c) {}

  size_t value = 0;
  size_t zero_point = 0;
  size_t axis = 0;
  std::optional<Computed> computed;
};

// How one integer product is split: the weight as `parts` signed digits (1: the value itself;
// 2: base 16; 3: base 8), each part's reduction cut into `chunks` equal runs of whole units
// (input channels of a conv, rows of a matmul's B). Each (part, chunk) is one float32 product.
struct ExactSplit {
  int parts = 1;
  int64_t chunks = 1;
};

// The shift of the digit base of a split into `parts` (base 2^shift).
int digit_shift(int parts);

// The digits of v for `parts` (1 to 3; the entries past `parts` are 0): v = sum_p digits[p] *
// 2^(shift * p). Every digit but the last is balanced in [-2^(shift-1), 2^(shift-1)); for
// |v| <= 255 the last is in [-16, 16] (2 parts) or [-4, 4] (3 parts).
std::array<int64_t, 3> split_digits(int64_t v, int parts);

// What one more piece of a split (an output element cast to int32 and summed) costs, in
// multiply-adds: the planner's exchange rate between chunks and parts.
inline constexpr int64_t kPieceCost = 16;

// The cheapest split proven exact for a weight w [rows, units * unit_size] (centered integer
// values, row-major) against an activation of magnitude at most x_bound: for every part,
// chunk and row, x_bound * sum |digit| <= 2^24. The cost per output is parts * (K +
// kPieceCost * chunks) with K = units * unit_size: chunks add no multiply-adds, parts
// multiply them, so chunks win unless the reduction cannot be cut (one unit is already too
// much, or K is prime). With `max_parts` 1 only the value itself is tried. nullopt when no
// split is exact.
std::optional<ExactSplit> plan_exact_split(std::span<const int64_t> w, int64_t rows, int64_t units,
                                           int64_t unit_size, int64_t x_bound, int max_parts = 3);

// ConvInteger's int32 product of x (input x.value, shape [N, C, spatial...]) and w ([M, C/group,
// kernel...]) for the node's strides, pads, dilations, auto_pad and group. Padding counts as
// the zero point, as ONNX Runtime pads with it. The last op gets `name`.
OperandId exact_conv_integer(ConvertContext& c, IntegerInput x, IntegerInput w,
                             std::string name = {});

// MatMulInteger's int32 product of a ([..., M, K]; a 1-D zero point is per row) and b
// ([..., K, N]; a 1-D zero point is per column). The last op gets `name`.
OperandId exact_matmul_integer(ConvertContext& c, IntegerInput a, IntegerInput b,
                               std::string name = {});

// An integer operand (any integer dtype) minus a zero point operand, as float32; the
// per-channel zero point ([C] with C > 1) lines up with `axis` of a rank-`rank` value.
OperandId centered_float(ConvertContext& c, OperandId x, std::optional<OperandId> zero_point,
                         size_t rank, size_t axis);

}  // namespace wnn::onnx::ops
