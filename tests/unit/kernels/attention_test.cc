// The fused attention kernel against a float64 evaluation of the same formula: grouped heads,
// strided (transposed, sliced) operands, a broadcast bias, scale by product or quotient, odd
// sizes, masked keys, and no keys at all; a decode step's few rows per key/value head and the
// blocked form of many (prefill, encoders).
#include "wnn/kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "random_floats.h"

namespace wnn::kernels {
namespace {

using testing::random_floats;

double at(const View4& v, int64_t b, int64_t h, int64_t r, int64_t c) { return v.row(b, h, r)[c]; }

struct Case {
  AttentionSizes s;
  AttentionScale scale;
  bool bias;
};

TEST(AttentionKernel, MatchesFloat64OracleOnGroupedStridedOperands) {
  std::mt19937 rng(20261203);
  for (const Case& c :
       {Case{{1, 4, 2, 3, 7, 13, 9}, {0.27735f, false}, true},    // grouped, odd sizes
        Case{{2, 3, 3, 1, 5, 8, 8}, {2.8284f, true}, false},      // one query, divided
        Case{{1, 16, 4, 1, 128, 64, 64}, {0.125f, false}, true},  // a decode step
        Case{{2, 2, 1, 5, 5, 4, 3}, {1.0f, false}, true},
        // Eight rows or more per key/value head take the blocked form: blocks of 4, 2 and 1
        // rows, keys in 64s and 16s, values in 64, 48, 32 and 16 columns.
        Case{{1, 4, 2, 9, 21, 13, 32}, {0.27735f, false}, true},           // 18 rows a head
        Case{{2, 6, 6, 17, 83, 32, 112}, {5.6568f, true}, true},           // 17 rows, 2 batches
        Case{{1, 16, 4, 16, 16, 64, 64}, {0.125f, false}, true},           // a 16-token prefill
        Case{{1, 12, 12, 128, 128, 32, 16}, {0.17678f, false}, false}}) {  // an encoder
    const AttentionSizes& s = c.s;
    SCOPED_TRACE(::testing::Message() << "heads " << s.heads << " kv " << s.kv_heads << " queries "
                                      << s.queries << " keys " << s.keys);
    // Q as [batch, queries, heads, head_size] memory with 2 extra columns per row (a slice of a
    // wider projection), read as [batch, heads, queries, head_size].
    const int64_t pitch = s.heads * s.head_size + 2;
    auto q_mem = random_floats(size_t(s.batch * s.queries * pitch), -2, 2, rng);
    View4 q{q_mem.data() + 1, {s.queries * pitch, s.head_size, pitch, 1}};
    auto k_mem = random_floats(size_t(s.batch * s.kv_heads * s.keys * s.head_size), -2, 2, rng);
    View4 k{k_mem.data(),
            {s.kv_heads * s.keys * s.head_size, s.keys * s.head_size, s.head_size, 1}};
    // V transposed: [batch, keys, kv_heads, value_size] memory.
    auto v_mem = random_floats(size_t(s.batch * s.kv_heads * s.keys * s.value_size), -3, 3, rng);
    View4 v{v_mem.data(),
            {s.keys * s.kv_heads * s.value_size, s.value_size, s.kv_heads * s.value_size, 1}};
    // A causal-style bias [1, 1, queries, keys] broadcast over batch and heads, with masked keys.
    std::vector<float> bias_mem(size_t(s.queries * s.keys));
    for (int64_t r = 0; r < s.queries; ++r) {
      for (int64_t t = 0; t < s.keys; ++t) {
        bias_mem[size_t(r * s.keys + t)] =
            t > r + s.keys - s.queries ? std::numeric_limits<float>::lowest() : 0.1f * float(t % 3);
      }
    }
    View4 bias{bias_mem.data(), {0, 0, s.keys, 1}};
    // Output [batch, queries, heads, value_size] (the heads merged back).
    std::vector<float> out(size_t(s.batch * s.queries * s.heads * s.value_size), -7.0f);
    const std::array<int64_t, 4> os{s.queries * s.heads * s.value_size, s.value_size,
                                    s.heads * s.value_size, 1};
    for (int threads : {1, 2}) {
      scaled_dot_product_attention(s, q, k, v, c.bias ? &bias : nullptr, c.scale, out.data(), os,
                                   threads);
      const int64_t g = s.heads / s.kv_heads;
      double largest = 0;
      for (int64_t b = 0; b < s.batch; ++b) {
        for (int64_t h = 0; h < s.heads; ++h) {
          for (int64_t r = 0; r < s.queries; ++r) {
            std::vector<double> p(size_t(s.keys));
            double top = -INFINITY, sum = 0;
            for (int64_t t = 0; t < s.keys; ++t) {
              double dot = 0;
              for (int64_t x = 0; x < s.head_size; ++x) {
                dot += at(q, b, h, r, x) * at(k, b, h / g, t, x);
              }
              dot = c.scale.divide ? dot / c.scale.factor : dot * c.scale.factor;
              if (c.bias) dot += at(bias, b, h, r, t);
              p[size_t(t)] = dot;
              top = std::max(top, dot);
            }
            for (double& x : p) sum += (x = std::exp(x - top));
            for (int64_t x = 0; x < s.value_size; ++x) {
              double want = 0;
              for (int64_t t = 0; t < s.keys; ++t)
                want += p[size_t(t)] / sum * at(v, b, h / g, t, x);
              const float got = out[size_t(b * os[0] + h * os[1] + r * os[2] + x)];
              largest = std::max(largest, std::abs(want));
              ASSERT_NEAR(got, want, 2e-5 * (1 + std::abs(want))) << b << " " << h << " " << r;
            }
          }
        }
      }
      EXPECT_GT(largest, 0.3);
    }
  }
}

TEST(AttentionKernel, NoKeysGivesZeroRows) {
  const AttentionSizes s{1, 2, 1, 2, 0, 4, 3};
  std::vector<float> q(16, 1.0f), out(12, 5.0f);
  View4 qv{q.data(), {16, 8, 4, 1}}, none{nullptr, {0, 0, 4, 1}};
  scaled_dot_product_attention(s, qv, none, none, nullptr, {1.0f, false}, out.data(), {12, 6, 3, 1},
                               1);
  for (float x : out) EXPECT_EQ(x, 0.0f);
}

TEST(AttentionKernel, RotatesHalves) {
  const float x[6] = {1, -2, 3, 0.5f, -4, 2};
  const float c[3] = {0.5f, -1, 0}, s[3] = {2, 0.25f, 1};
  float y[6];
  rotate_row(x, c, s, 6, {6}, y);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(y[i], x[i] * c[i] - x[i + 3] * s[i]);
    EXPECT_EQ(y[i + 3], x[i + 3] * c[i] + x[i] * s[i]);
  }
}

// Tables of the full head (rotate_half's form): each half of the row reads its own half of the
// tables, and the values are those of x * cos + concat(-x2, x1) * sin exactly.
TEST(AttentionKernel, RotatesHalvesWithFullTables) {
  const float x[6] = {1, -2, 3, 0.5f, -4, 2};
  const float c[6] = {0.5f, -1, 0, 3, 0.75f, -2}, s[6] = {2, 0.25f, 1, -1, 0.5f, 4};
  float y[6];
  rotate_row(x, c, s, 6, {6, false, true}, y);
  const float turned[6] = {-x[3], -x[4], -x[5], x[0], x[1], x[2]};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], x[i] * c[i] + turned[i] * s[i]) << i;
}

// Adjacent pairs of the first 4 of 7 columns (interleaved, partial): the rest copied.
TEST(AttentionKernel, RotatesAdjacentPairsOfTheFirstColumns) {
  const float x[7] = {1, -2, 3, 0.5f, -4, 2, 9};
  const float c[2] = {0.5f, -1}, s[2] = {2, 0.25f};
  float y[7];
  rotate_row(x, c, s, 7, {4, true}, y);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(y[2 * i], x[2 * i] * c[i] - x[2 * i + 1] * s[i]);
    EXPECT_EQ(y[2 * i + 1], x[2 * i + 1] * c[i] + x[2 * i] * s[i]);
  }
  for (int i = 4; i < 7; ++i) EXPECT_EQ(y[i], x[i]);
}

}  // namespace
}  // namespace wnn::kernels
