#include <gtest/gtest.h>

#include <cstdint>

#include "kernel_test_util.h"

namespace wnn::kernels {
namespace {

using testing::expect_near;
using testing::make;
using testing::OneNode;
using testing::values_of;

using V = std::vector<double>;

Tensor q3(OpKind op, const Tensor& x, const Tensor& scale, const Tensor& zero) {
  OneNode n(quantize);
  const auto ix = n.in(x);
  const auto is = n.in(scale);
  const auto iz = n.in(zero);
  return n.run1(op, {ix, is, iz});
}

TEST(QuantizeKernel, QuantizeRoundsHalfToEvenAndSaturates) {
  const Tensor x = make(DataType::kFloat32, {6}, {0.5, 1.5, 2.5, -2.5, 1000, -1000});
  const Tensor s = make(DataType::kFloat32, {}, {1});
  const Tensor z8 = make(DataType::kInt8, {}, {0});
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s, z8)), (V{0, 2, 2, -2, 127, -128}));
  const Tensor zu = make(DataType::kUint8, {}, {10});
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s, zu)), (V{10, 12, 12, 8, 255, 0}));
  const Tensor z4 = make(DataType::kInt4, {}, {-1});
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s, z4)), (V{-1, 1, 1, -3, 7, -8}));
  const Tensor zu4 = make(DataType::kUint4, {}, {3});
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s, zu4)), (V{3, 5, 5, 1, 15, 0}));
}

TEST(QuantizeKernel, QuotientIsRoundedInTheInputTypeBeforeRoundingToInteger) {
  // float32(1/51) = 0.019607844: 0.5f / that is exactly 25.5 in float32 (half to even: 26) but
  // 25.4999991 in exact arithmetic (25). -2.5f / it is -127.49999 either way (-127).
  const float scale = 1.0f / 51.0f;
  const Tensor x = make(DataType::kFloat32, {3}, {0.5, -2.5, 2.0});
  const Tensor s = make(DataType::kFloat32, {}, {double(scale)});
  const Tensor z = make(DataType::kUint8, {}, {153});
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s, z)), (V{179, 26, 255}));
}

TEST(QuantizeKernel, BlockwiseScaleAndZeroPoint) {
  // input [2, 4], scale [2, 2]: each scale covers a 1x2 block.
  const Tensor x = make(DataType::kFloat32, {2, 4}, {1, 2, 3, 4, -1, -2, -3, -4});
  const Tensor s = make(DataType::kFloat32, {2, 2}, {0.5, 2, 1, 0.25});
  const Tensor z = make(DataType::kInt8, {2, 2}, {0, 1, -3, 5});
  // x/s: 2, 4, 1.5->2, 2 ; -1, -2, -12, -16 ; plus zero points.
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s, z)), (V{2, 4, 3, 3, -4, -5, -7, -11}));
  // Per-channel over the last dim with a rank-1 scale (leading dims broadcast); 4/8 and
  // -4/8 are ties that round to the even 0.
  const Tensor s1 = make(DataType::kFloat32, {4}, {1, 2, 4, 8});
  const Tensor z1 = make(DataType::kInt8, {4}, {0, 0, 0, 1});
  EXPECT_EQ(values_of(q3(OpKind::kQuantizeLinear, x, s1, z1)), (V{1, 1, 1, 1, -1, -1, -1, 1}));
}

TEST(QuantizeKernel, DequantizeBlockwiseToFloat32AndFloat16) {
  const Tensor x = make(DataType::kUint8, {2, 2}, {0, 10, 200, 255});
  const Tensor s = make(DataType::kFloat32, {2, 1}, {0.5, -0.25});
  const Tensor z = make(DataType::kUint8, {2, 1}, {10, 128});
  expect_near(values_of(q3(OpKind::kDequantizeLinear, x, s, z)), {-5, 0, -18, -31.75});
  const Tensor x4 = make(DataType::kInt4, {3}, {-8, 7, 0});
  const Tensor s16 = make(DataType::kFloat16, {}, {1.5});
  const Tensor z4 = make(DataType::kInt4, {}, {-2});
  const Tensor r = q3(OpKind::kDequantizeLinear, x4, s16, z4);
  EXPECT_EQ(r.dtype, DataType::kFloat16);
  EXPECT_EQ(values_of(r), (V{-9, 13.5, 3}));
}

}  // namespace
}  // namespace wnn::kernels
