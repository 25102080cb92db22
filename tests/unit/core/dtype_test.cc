#include "wnn/core/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "wnn/core/half.h"

namespace wnn {
namespace {

TEST(DataType, NamesRoundTripInEverySpelling) {
  for (DataType t : kAllDataTypes) {
    EXPECT_EQ(parse_dtype(dtype_name(t)), t);
    EXPECT_EQ(parse_dtype(dtype_short_name(t)), t);
  }
  EXPECT_EQ(parse_dtype("Float32"), DataType::kFloat32);
  EXPECT_EQ(parse_dtype("FLOAT16"), DataType::kFloat16);
  EXPECT_EQ(parse_dtype("bfloat16"), std::nullopt);
  EXPECT_EQ(parse_dtype(""), std::nullopt);
}

TEST(DataType, SizesHoldInt4Unpacked) {
  EXPECT_EQ(dtype_size(DataType::kFloat16), 2u);
  EXPECT_EQ(dtype_size(DataType::kUint64), 8u);
  EXPECT_EQ(dtype_size(DataType::kInt4), 1u);
  EXPECT_TRUE(is_signed(DataType::kInt4));
  EXPECT_FALSE(is_signed(DataType::kUint8));
}

TEST(Half, RoundsToNearestEvenAndKeepsSpecials) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // rounds up to inf
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between odd 1+2^-10 and even 1+2^-9: rounds up to even.
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);
  // Smallest subnormal and the tie below it.
  EXPECT_EQ(float_to_half(0x1p-24f), 0x0001);
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000);
  EXPECT_EQ(float_to_half(0x1.8p-24f), 0x0002);
  EXPECT_EQ(half_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(half_to_float(0x03ff), 0x3ffp-24f);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(uint16_t(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half(f), h) << h;  // every half value round-trips
  }
}

}  // namespace
}  // namespace wnn
