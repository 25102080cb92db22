// DynamicQuantizeLinear's codes (kernels/quantize_codes.h): the vectorized pass gives the bytes
// of the scalar definition on half-way quotients, both zeros, NaN, infinities, magnitudes past
// 2^23, subnormals and values far outside [0, 255], at every tail length, for several scales
// and zero points; and the definition itself rounds half to even and saturates.
#include "wnn/kernels/quantize_codes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace wnn::kernels {
namespace {

std::vector<float> inputs(float scale) {
  std::vector<float> xs = {0.0f,
                           -0.0f,
                           std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::denorm_min(),
                           -std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::max(),
                           0x1p23f * scale,
                           -0x1p23f * scale,
                           0x1p24f * scale + scale};
  // Half-way quotients on both sides of zero, and their neighbours.
  for (int k = -300; k <= 300; ++k) {
    const float h = (float(k) + 0.5f) * scale;
    xs.push_back(h);
    xs.push_back(std::nextafter(h, 0.0f));
    xs.push_back(std::nextafter(h, 1e30f));
  }
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<float> u(-400.0f * scale, 400.0f * scale);
  for (int i = 0; i < 5000; ++i) xs.push_back(u(rng));
  return xs;
}

TEST(QuantizeCodes, VectorizedMatchesTheScalarDefinition) {
  for (float scale : {1.0f, 0.0123456f, 3.7f, 1e-30f}) {
    for (float zero : {0.0f, 128.0f, 255.0f, 17.0f}) {
      const std::vector<float> xs = inputs(scale);
      // Every tail length: starting the pass at each of the first 17 elements.
      for (size_t start = 0; start < 17; ++start) {
        const int64_t n = int64_t(xs.size() - start);
        std::vector<uint8_t> want(static_cast<size_t>(n));
        std::vector<uint8_t> got(static_cast<size_t>(n) + 1, 0xAB);
        quantize_codes_scalar(xs.data() + start, n, scale, zero, want.data());
        quantize_codes(xs.data() + start, n, scale, zero, got.data());
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(got[size_t(i)], want[size_t(i)])
              << "x " << xs[start + size_t(i)] << " scale " << scale << " zero " << zero;
        }
        EXPECT_EQ(got[size_t(n)], 0xAB) << "wrote past the end";
      }
    }
  }
}

TEST(QuantizeCodes, DefinitionRoundsHalfToEvenAndSaturates) {
  EXPECT_EQ(quantize_code(2.5f, 1.0f, 0.0f), 2);
  EXPECT_EQ(quantize_code(3.5f, 1.0f, 0.0f), 4);
  EXPECT_EQ(quantize_code(-2.5f, 1.0f, 10.0f), 8);
  EXPECT_EQ(quantize_code(-3.5f, 1.0f, 10.0f), 6);
  EXPECT_EQ(quantize_code(254.5f, 1.0f, 0.0f), 254);
  EXPECT_EQ(quantize_code(255.5f, 1.0f, 0.0f), 255);
  EXPECT_EQ(quantize_code(1e9f, 1.0f, 0.0f), 255);
  EXPECT_EQ(quantize_code(-1e9f, 1.0f, 200.0f), 0);
  EXPECT_EQ(quantize_code(std::numeric_limits<float>::quiet_NaN(), 1.0f, 7.0f), 0);
  EXPECT_EQ(quantize_code(-0.0f, 1.0f, 9.0f), 9);
  EXPECT_EQ(quantize_code(0.3f, 0.1f, 1.0f), 4);  // 0.3f / 0.1f rounds to 3.0000002f
}

}  // namespace
}  // namespace wnn::kernels
