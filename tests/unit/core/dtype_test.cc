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

// The nearest float16 to `d` by search over every finite float16 (ties to the even bit
// pattern), beyond 65520 infinity: the definition double_to_half must meet.
uint16_t nearest_half(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  if (a >= 65520.0) return uint16_t(sign | 0x7c00);
  uint16_t lo = 0, hi = 0x7bff;  // largest magnitude pattern with value <= a
  while (lo < hi) {
    const uint16_t mid = uint16_t((lo + hi + 1) / 2);
    if (double(half_to_float(mid)) <= a) {
      lo = mid;
    } else {
      hi = uint16_t(mid - 1);
    }
  }
  const double below = half_to_float(lo);
  if (below == a || lo == 0x7bff) return uint16_t(sign | lo);
  const double above = half_to_float(uint16_t(lo + 1));
  const double db = a - below, da = above - a;
  const uint16_t m = (db < da || (db == da && (lo & 1) == 0)) ? lo : uint16_t(lo + 1);
  return uint16_t(sign | m);
}

TEST(Half, DoublesRoundOnceNotThroughFloat) {
  // Just above the tie between 1 and 1 + 2^-10: the nearest float16 is 1 + 2^-10. Through float
  // the 2^-40 is lost, the value lands on the tie and goes to even (1): the double rounding.
  const double above_tie = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(float_to_half(float(above_tie)), 0x3c00);
  EXPECT_EQ(double_to_half(above_tie), 0x3c01);
  EXPECT_EQ(double_to_half(-above_tie), 0xbc01);
  EXPECT_EQ(double_to_half(1.0 + 0x1p-11 - 0x1p-40), 0x3c00);  // just below the tie
  EXPECT_EQ(double_to_half(1.0 + 0x1p-11), 0x3c00);            // the tie itself: to even
  EXPECT_EQ(double_to_half(1.0 + 3 * 0x1p-11), 0x3c02);
  // Subnormals: just above half the smallest one rounds up, the tie itself to zero.
  EXPECT_EQ(double_to_half(0x1p-25 + 0x1p-60), 0x0001);
  EXPECT_EQ(double_to_half(0x1p-25), 0x0000);
  EXPECT_EQ(double_to_half(-0x1p-80), 0x8000);
  EXPECT_EQ(double_to_half(0.0), 0x0000);
  // Overflow, beyond float's range too, and the specials.
  EXPECT_EQ(double_to_half(65519.99), 0x7bff);
  EXPECT_EQ(double_to_half(65520.0), 0x7c00);
  EXPECT_EQ(double_to_half(1e300), 0x7c00);
  EXPECT_EQ(double_to_half(-1e300), 0xfc00);
  EXPECT_EQ(double_to_half(-std::numeric_limits<double>::infinity()), 0xfc00);
  EXPECT_TRUE(std::isnan(half_to_float(double_to_half(std::nan("")))));
  // Every float16 and every midpoint between neighbours, nudged both ways by a few double ulps
  // (where double rounding bites), then values spread over the whole float16 range.
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const double a = half_to_float(uint16_t(h)), b = half_to_float(uint16_t(h + 1));
    const double mid = (a + b) / 2;
    for (double v : {a, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1.0),
                     mid + (b - a) * 0x1p-30, mid - (b - a) * 0x1p-30}) {
      ASSERT_EQ(double_to_half(v), nearest_half(v)) << std::hexfloat << v;
      ASSERT_EQ(double_to_half(-v), nearest_half(-v)) << std::hexfloat << -v;
    }
  }
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double v = std::ldexp(double(state >> 11) * 0x1p-53, int(state % 48) - 30);
    ASSERT_EQ(double_to_half(v), nearest_half(v)) << std::hexfloat << v;
  }
}

}  // namespace
}  // namespace wnn
