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

TEST(IntegerProduct, LargeReductionIsCutIntoChunks) {
  // K = 512 * 9 weights of 200: 4608 * 200 * 255 exceeds 2^24 about 14 times. Chunks add no
  // multiply-adds: 16 chunks of 32 channels (32 * 9 * 200 * 255 = 14688000) beat base-16
  // digits, which would double them.
  const std::vector<int64_t> w(4608, 200);
  const auto s = plan_exact_split(w, 1, 512, 9, 255);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->parts, 1);
  EXPECT_EQ(s->chunks, 16);
  EXPECT_GT(int64_t(64) * 9 * 200 * 255, kExactFloat32Integer);  // 8 chunks would not do
}

TEST(IntegerProduct, DigitsWhenTheReductionCannotBeCut) {
  struct Case {
    int64_t units, unit_size, value;
    int parts;
    const char* why;
  };
  const Case cases[] = {
      {2, 289, 250, 2,
       "one channel of a 17x17 kernel: 289 * 250 * 255 > 2^24 and a channel cannot be cut; "
       "the base-16 high digit (16) fits"},
      {1031, 1, 200, 2, "K = 1031 is prime: chunks would be single products (cost 17 * K)"},
      {1, 4225, 255, 3,
       "one channel of a 65x65 kernel: 4225 * 16 * 255 > 2^24 for the base-16 high digit, "
       "4225 * 4 * 255 fits for the base-8 top digit"},
  };
  for (const Case& c : cases) {
    const std::vector<int64_t> w(size_t(c.units * c.unit_size), c.value);
    const auto s = plan_exact_split(w, 1, c.units, c.unit_size, 255);
    ASSERT_TRUE(s) << c.why;
    EXPECT_EQ(s->parts, c.parts) << c.why;
    EXPECT_EQ(s->chunks, 1) << c.why;
  }
  EXPECT_GT(4225 * 16 * 255, kExactFloat32Integer);
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
