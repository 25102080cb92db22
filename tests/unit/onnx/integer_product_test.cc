// The exactness planning of the integer products (onnx/ops/integer_product.h): digits that sum
// back to the value within their stated ranges, and splits whose every partial-sum bound stays
// within 2^24 while the cheaper ones would not.
#include "wnn/onnx/ops/integer_product.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace wnn::onnx::ops {
namespace {

TEST(IntegerProduct, DigitsSumBackWithinTheirRanges) {
  for (int parts = 1; parts <= 3; ++parts) {
    const int shift = digit_shift(parts);
    const int64_t half = int64_t(1) << (shift - 1);
    const int64_t top = parts == 1 ? 255 : parts == 2 ? 16 : 4;
    for (int64_t v = -255; v <= 255; ++v) {
      const auto d = split_digits(v, parts);
      int64_t sum = 0;
      for (int p = 0; p < parts; ++p) {
        sum += d[size_t(p)] << (shift * p);
        if (p + 1 < parts) {
          EXPECT_GE(d[size_t(p)], -half) << v;
          EXPECT_LT(d[size_t(p)], half) << v;
        }
      }
      EXPECT_EQ(sum, v) << "parts " << parts;
      EXPECT_LE(std::abs(d[size_t(parts - 1)]), top) << v << " parts " << parts;
      for (int p = parts; p < 3; ++p) EXPECT_EQ(d[size_t(p)], 0);
    }
  }
}

TEST(IntegerProduct, SmallReductionNeedsNoSplit) {
  // 258 products of 255 x 255 stay within 2^24 (258 * 65025 = 16776450).
  const std::vector<int64_t> w(2 * 258, 255);
  const auto s = plan_exact_split(w, 2, 258, 1, 255);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->parts, 1);
  EXPECT_EQ(s->chunks, 1);
  // One more product does not.
  const std::vector<int64_t> w2(259, -255);
  const auto s2 = plan_exact_split(w2, 1, 259, 1, 255, 1);
  ASSERT_TRUE(s2);
  EXPECT_EQ(s2->chunks, 7);  // the smallest divisor of 259 = 7 * 37 with runs of at most 258
}

TEST(IntegerProduct, LargeReductionSplitsIntoDigitsBeforeChunks) {
  // K = 4608 weights of 200: 4608 * 200 * 255 exceeds 2^24 about 14 times. Base 16 digits
  // (high digit 13, low digit -8) fit: 4608 * 13 * 255 = 15275520.
  const std::vector<int64_t> w(4608, 200);
  const auto s = plan_exact_split(w, 1, 512, 9, 255);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->parts, 2);
  EXPECT_EQ(s->chunks, 1);
}

TEST(IntegerProduct, ChunksWhenEvenThreeDigitsSumTooFar) {
  // K = 2048 * 9 weights of 255 (top base-8 digit 4): 18432 * 4 * 255 > 2^24, half of it fits.
  const std::vector<int64_t> w(18432, 255);
  const auto s = plan_exact_split(w, 1, 2048, 9, 255);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->parts, 3);
  EXPECT_EQ(s->chunks, 2);
  // Every chunk's bound holds: 9216 * 4 * 255 = 9400320.
  EXPECT_LE(9216 * 4 * 255, kExactFloat32Integer);
}

TEST(IntegerProduct, BoundIsPerRowAndUsesTheActivationBound) {
  // Row 0 is small, row 1 large: the split is sized by row 1; a smaller activation bound
  // (a known zero point) lets the same weights pass unsplit.
  std::vector<int64_t> w(2 * 1000, 1);
  for (int64_t k = 0; k < 1000; ++k) w[size_t(1000 + k)] = 100;
  const auto s = plan_exact_split(w, 2, 1000, 1, 255);
  ASSERT_TRUE(s);
  EXPECT_GT(s->parts * s->chunks, 1);
  const auto t = plan_exact_split(w, 2, 1000, 1, 160);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->parts * t->chunks, 1);  // 1000 * 100 * 160 = 16000000
}

TEST(IntegerProduct, NoSplitWhenOneUnitIsTooLarge) {
  // One unit of 300 worst-case products with only the value itself allowed (run-time weights).
  const std::vector<int64_t> w(300, 255);
  EXPECT_FALSE(plan_exact_split(w, 1, 1, 300, 255, 1));
}

}  // namespace
}  // namespace wnn::onnx::ops
