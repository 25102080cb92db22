// The block-quantized matmul kernel (MatMulNBits read packed): the scalar reference against
// a float64 dequantize + matmul written here, and the AVX-512 and AVX2 kernels (where the CPU
// runs them) against both, at odd K, N off the vector width, a partial last block, zero points,
// 4 and 8 bits, blocks 16 to 128, both arithmetics (float32 and accuracy_level 4's int8
// activations), and for 4-bit blocks of 32 at level 4 (one lane per block) whole and partial groups
// of 16 blocks.
#include "wnn/kernels/block_quantized_matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace wnn::kernels {
namespace {

struct Case {
  int64_t m, n, k, block;
  int bits;
  bool zero_points;
};

// A random weight in the kernel's layout, with its unpacked values for the checks here.
struct Weight {
  BlockQuantizedMatrix matrix;
  std::vector<uint8_t> packed, zeros;
  std::vector<int> q;  // [n, padded k]
  std::vector<float> scales;
  int zero(int64_t n, int64_t b) const {
    return matrix.zero_points ? zeros[size_t(n * matrix.blocks + b)] : matrix.default_zero;
  }
};

Weight random_weight(const Case& c, std::mt19937& rng) {
  Weight w;
  BlockQuantizedMatrix& m = w.matrix;
  m.n = c.n;
  m.k = c.k;
  m.block = c.block;
  m.blocks = (c.k + c.block - 1) / c.block;
  m.bits = c.bits;
  m.default_zero = 1 << (c.bits - 1);
  const int64_t kp = m.padded_k();
  const int top = (1 << c.bits) - 1;
  std::uniform_int_distribution<int> level(0, top);
  w.q.resize(size_t(c.n * kp));
  for (int& v : w.q) v = level(rng);
  w.packed.assign(size_t(c.n * m.row_bytes()), 0);
  for (int64_t i = 0; i < c.n * kp; ++i) {
    if (c.bits == 8) {
      w.packed[size_t(i)] = uint8_t(w.q[size_t(i)]);
    } else {
      w.packed[size_t(i / 2)] |= uint8_t(w.q[size_t(i)] << (i % 2 == 0 ? 0 : 4));
    }
  }
  // Scales of both signs (a quantizer writes positive ones; the arithmetic must not care).
  std::uniform_real_distribution<float> scale(-0.05f, 0.08f);
  w.scales.resize(size_t(c.n * m.blocks));
  for (float& s : w.scales) s = scale(rng);
  if (c.zero_points) {
    w.zeros.resize(size_t(c.n * m.blocks));
    for (uint8_t& z : w.zeros) z = uint8_t(level(rng));
    m.zero_points = w.zeros.data();
  }
  m.data = w.packed.data();
  m.scales = w.scales.data();
  return w;
}

// Activations with negative values, and one all-zero block in row 0 (scale FLT_MIN at level 4).
std::vector<float> random_activations(const Case& c, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::vector<float> a(size_t(c.m * c.k));
  for (float& v : a) v = normal(rng);
  for (int64_t e = 0; e < std::min(c.block, c.k); ++e) a[size_t(e)] = 0.0f;
  return a;
}

// What the graph computes, in float64: A (quantized per block when int8) times the
// dequantized weight, plus the bias.
std::vector<double> expected(const Case& c, const Weight& w, const std::vector<float>& a,
                             const std::vector<float>& bias, ActivationArithmetic arithmetic) {
  const int64_t kp = w.matrix.padded_k();
  std::vector<double> y(size_t(c.m * c.n));
  for (int64_t r = 0; r < c.m; ++r) {
    std::vector<double> x(size_t(kp), 0.0);
    for (int64_t e = 0; e < c.k; ++e) x[size_t(e)] = a[size_t(r * c.k + e)];
    if (arithmetic == ActivationArithmetic::kInt8PerBlock) {
      for (int64_t b = 0; b < w.matrix.blocks; ++b) {
        double amax = 0;
        for (int64_t e = b * c.block; e < (b + 1) * c.block; ++e) {
          amax = std::max(amax, std::abs(x[size_t(e)]));
        }
        const float s = std::max(float(amax) / 127.0f, FLT_MIN);
        for (int64_t e = b * c.block; e < (b + 1) * c.block; ++e) {
          x[size_t(e)] = double(std::nearbyint(float(x[size_t(e)]) / s)) * s;
        }
      }
    }
    for (int64_t n = 0; n < c.n; ++n) {
      double acc = bias[size_t(n)];
      for (int64_t e = 0; e < c.k; ++e) {
        const int64_t b = e / c.block;
        acc += x[size_t(e)] * double(w.q[size_t(n * kp + e)] - w.zero(n, b)) *
               w.scales[size_t(n * w.matrix.blocks + b)];
      }
      y[size_t(r * c.n + n)] = acc;
    }
  }
  return y;
}

std::vector<float> run(const Case& c, const Weight& w, const std::vector<float>& a,
                       const std::vector<float>& bias, ActivationArithmetic arithmetic,
                       BlockMatmulIsa isa, int threads) {
  std::vector<float> y(size_t(c.m * c.n), NAN);
  block_quantized_matmul(a.data(), c.m, w.matrix, bias.data(), y.data(), arithmetic, threads, isa);
  return y;
}

// Float32 sums over K terms of magnitude |a| |q - z| |s|: the bound grows with K.
void expect_near(const std::vector<float>& got, const std::vector<double>& want, const Case& c,
                 const std::string& what) {
  const double tolerance = 2e-6 * double(c.k) * (1 << c.bits) * 0.08 * 1.5;
  double largest = 0;
  for (double v : want) largest = std::max(largest, std::abs(v));
  ASSERT_GT(largest, 0.1) << what << ": a result that cannot tell kernels apart";
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tolerance) << what << " element " << i;
  }
}

class BlockQuantizedMatmul : public ::testing::TestWithParam<Case> {};

TEST_P(BlockQuantizedMatmul, MatchesDequantizedProduct) {
  const Case c = GetParam();
  std::mt19937 rng(uint32_t(c.n * 7919 + c.k * 31 + c.block + c.bits));
  const Weight w = random_weight(c, rng);
  const std::vector<float> a = random_activations(c, rng);
  std::vector<float> bias(size_t(c.n));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& b : bias) b = u(rng);
  for (auto arithmetic : {ActivationArithmetic::kFloat32, ActivationArithmetic::kInt8PerBlock}) {
    const std::string what =
        arithmetic == ActivationArithmetic::kFloat32 ? "float32" : "int8 activations";
    const std::vector<double> want = expected(c, w, a, bias, arithmetic);
    const std::vector<float> scalar = run(c, w, a, bias, arithmetic, BlockMatmulIsa::kScalar, 1);
    expect_near(scalar, want, c, "scalar " + what);
    for (BlockMatmulIsa isa : {BlockMatmulIsa::kAvx2, BlockMatmulIsa::kAvx512}) {
      if (!block_matmul_isa_supported(isa)) continue;
      for (int threads : {1, 2}) {
        const std::string where =
            std::string(isa_name(isa)) + " " + what + " threads " + std::to_string(threads);
        const std::vector<float> fast = run(c, w, a, bias, arithmetic, isa, threads);
        expect_near(fast, want, c, where);
        // At level 4 both compute exact integer block products: only the float sums differ.
        for (size_t i = 0; i < fast.size(); ++i) {
          ASSERT_NEAR(fast[i], scalar[i], 1e-5 * (1 + std::abs(scalar[i]))) << where << " " << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BlockQuantizedMatmul,
    ::testing::Values(Case{1, 37, 173, 16, 4, true},    // odd K, partial last block, N % 16
                      Case{1, 16, 64, 16, 4, false},    // four blocks in one chunk
                      Case{3, 21, 96, 32, 4, false},    // M = 2 + 1 rows
                      Case{6, 50, 200, 32, 4, true},    // M = 4 + 2, partial last block
                      Case{1, 33, 64, 64, 4, true},     // one block per chunk
                      Case{5, 19, 300, 128, 4, false},  // two chunks per block, padded
                      Case{1, 40, 176, 64, 4, true},    // the tiny models' K = 176
                      Case{1, 23, 77, 16, 8, true},     // 8-bit, odd K
                      Case{4, 18, 160, 32, 8, false},   // 8-bit default zero point 128
                      Case{2, 17, 256, 128, 8, true},   // 8-bit, long blocks
                      Case{1, 68, 1024, 32, 4, false},  // groups of 4 rows, whole lines only
                      Case{5, 45, 352, 16, 4, true},    // 8 blocks per line, 4 + 1 rows left
                      Case{3, 12, 96, 32, 8, true},     // 8-bit: one line and a partial one
                      // 4-bit blocks of 32 at level 4 take one lane per block, in groups of 16
                      Case{16, 37, 2816, 32, 4, false},  // 5 groups and half of one
                      Case{9, 20, 517, 32, 4, true},     // a group and one block, odd K
                      Case{2, 5, 1600, 32, 4, true}),    // 3 groups and 2 blocks, N = 4 + 1
    [](const auto& info) {
      const Case& c = info.param;
      return "m" + std::to_string(c.m) + "_n" + std::to_string(c.n) + "_k" + std::to_string(c.k) +
             "_b" + std::to_string(c.block) + "_bits" + std::to_string(c.bits) +
             (c.zero_points ? "_zp" : "");
    });

TEST(BlockQuantizedMatmul, ActivationBlocksRoundHalfToEven) {
  // max |x| = 127 gives scale 1: the quotients are the values themselves.
  const float x[6] = {127.0f, 2.5f, 3.5f, -0.5f, -127.0f, -1.5f};
  int8_t q[6];
  EXPECT_EQ(quantize_activation_block(x, 6, q), 1.0f);
  const int8_t want[6] = {127, 2, 4, 0, -127, -2};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(q[i], want[i]) << i;
}

TEST(BlockQuantizedMatmul, AllZeroActivationBlockQuantizesToZero) {
  const float x[4] = {0.0f, -0.0f, 0.0f, 0.0f};
  int8_t q[4] = {1, 1, 1, 1};
  EXPECT_EQ(quantize_activation_block(x, 4, q), FLT_MIN);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(q[i], 0) << i;
}

TEST(BlockQuantizedMatmul, VectorizedActivationQuantizationIsIdentical) {
  if (best_block_matmul_isa() != BlockMatmulIsa::kAvx512) GTEST_SKIP() << "no AVX-512 VNNI";
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  for (int64_t count : {16, 32, 64, 128}) {
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<float> x(static_cast<size_t>(count));
      for (float& v : x) v = normal(rng);
      if (trial % 4 == 0) {
        // Ties: max |x| = 127 gives scale 1, and halves round to even.
        for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 9) - 4) + 0.5f;
        x[0] = 127.0f;
      }
      if (trial % 4 == 1) std::fill(x.begin(), x.end(), 0.0f);  // scale FLT_MIN
      std::vector<int8_t> scalar(x.size()), fast(x.size());
      const float s = quantize_activation_block(x.data(), count, scalar.data());
      const float f =
          quantize_activation_block(x.data(), count, fast.data(), BlockMatmulIsa::kAvx512);
      ASSERT_EQ(s, f) << count << " " << trial;
      ASSERT_EQ(scalar, fast) << count << " " << trial;
    }
  }
}

}  // namespace
}  // namespace wnn::kernels
