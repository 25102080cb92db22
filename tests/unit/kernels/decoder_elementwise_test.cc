// The decoder's elementwise steps against a float64 evaluation of the same formulas: the RMS
// norm with and without the residual add at odd widths (tails of the sixteen-lane loops),
// negative and zero inputs, a non-default epsilon; silu(gate) * up across the chunk boundary and
// written over its own input.
#include "wnn/kernels/decoder_elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "random_floats.h"

namespace wnn::kernels {
namespace {

using testing::random_floats;

TEST(RmsNormKernel, MatchesFloat64OracleWithAndWithoutTheResidual) {
  std::mt19937 rng(20261203);
  for (int64_t hidden : {1, 7, 16, 37, 1029}) {
    for (bool residual : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "hidden " << hidden << " residual " << residual);
      const int64_t rows = 3;
      auto a = random_floats(size_t(rows * hidden), -3.0f, 3.0f, rng);
      auto r = random_floats(size_t(rows * hidden), -1.0f, 1.0f, rng);
      const auto gamma = random_floats(size_t(hidden), -2.0f, 2.0f, rng);
      std::fill(a.begin(), a.begin() + hidden / 2, 0.0f);  // zeros in the first row
      const float epsilon = 1e-3f;
      std::vector<float> sum(a.size(), -7.0f), y(a.size(), -7.0f);
      rms_norm(a.data(), residual ? r.data() : nullptr, sum.data(), gamma.data(), epsilon, rows,
               hidden, y.data());
      for (int64_t row = 0; row < rows; ++row) {
        std::vector<double> x(static_cast<size_t>(hidden));
        double squares = 0;
        for (int64_t c = 0; c < hidden; ++c) {
          const size_t i = size_t(row * hidden + c);
          x[size_t(c)] = double(a[i]) + (residual ? double(r[i]) : 0.0);
          squares += x[size_t(c)] * x[size_t(c)];
          if (residual) {
            ASSERT_EQ(sum[i], a[i] + r[i]) << i;
          } else {
            ASSERT_EQ(sum[i], -7.0f) << "the sum is not written without a residual";
          }
        }
        const double rms = std::sqrt(squares / double(hidden) + epsilon);
        for (int64_t c = 0; c < hidden; ++c) {
          const double want = x[size_t(c)] / rms * gamma[size_t(c)];
          ASSERT_NEAR(y[size_t(row * hidden + c)], want, 2e-6 * (1 + std::abs(want))) << c;
        }
      }
    }
  }
}

TEST(RmsNormKernel, RowsSplitAmongThreadsGiveTheSameBits) {
  std::mt19937 rng(11);
  const int64_t rows = 17, hidden = 333;
  const auto a = random_floats(size_t(rows * hidden), -4.0f, 4.0f, rng);
  const auto r = random_floats(size_t(rows * hidden), -1.0f, 1.0f, rng);
  const auto gamma = random_floats(size_t(hidden), -2.0f, 2.0f, rng);
  std::vector<float> sum1(a.size()), y1(a.size()), sum2(a.size()), y2(a.size());
  rms_norm(a.data(), r.data(), sum1.data(), gamma.data(), 1e-5f, rows, hidden, y1.data(), 1);
  rms_norm(a.data(), r.data(), sum2.data(), gamma.data(), 1e-5f, rows, hidden, y2.data(), 2);
  EXPECT_EQ(sum1, sum2);
  EXPECT_EQ(y1, y2);
}

TEST(RmsNormKernel, AllZeroRowIsZeroNotNan) {
  const std::vector<float> a(20, 0.0f), gamma(20, 1.5f);
  std::vector<float> y(20, 1.0f);
  rms_norm(a.data(), nullptr, nullptr, gamma.data(), 1e-6f, 1, 20, y.data());
  for (float v : y) EXPECT_EQ(v, 0.0f);
}

TEST(SiluMulKernel, MatchesFloat64OracleAcrossChunksAndInPlace) {
  std::mt19937 rng(7);
  for (int64_t n : {1, 15, 1024, 2816 + 3, 16 * 2816 - 5}) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    auto gate = random_floats(size_t(n), -12.0f, 12.0f, rng);
    const auto up = random_floats(size_t(n), -2.0f, 2.0f, rng);
    gate[0] = 0.0f;
    std::vector<float> y(static_cast<size_t>(n));
    silu_mul(gate.data(), up.data(), n, y.data());
    for (int64_t i = 0; i < n; ++i) {
      const double g = gate[size_t(i)];
      const double want = g / (1 + std::exp(-g)) * up[size_t(i)];
      ASSERT_NEAR(y[size_t(i)], want, 1e-6 * (1 + std::abs(want))) << i;
    }
    std::vector<float> in_place = gate;
    silu_mul(in_place.data(), up.data(), n, in_place.data());
    EXPECT_EQ(in_place, y);
    // Chunks split between two threads (and in place) give the same bits.
    std::vector<float> threaded = gate;
    silu_mul(threaded.data(), up.data(), n, threaded.data(), 2);
    EXPECT_EQ(threaded, y);
  }
}

}  // namespace
}  // namespace wnn::kernels
