#include "wnn/kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "wnn/kernels/simd_float32.h"
#include "wnn/kernels/vector_math.h"

namespace wnn::kernels {

namespace {

using simd::dot;
using simd::F32x16;
using simd::kLanes;

// acc += p * v over n columns.
WNN_SIMD_INLINE void axpy(float p, const float* v, float* acc, int64_t n) {
  const F32x16 pv = simd::splat(p);
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    simd::store(acc + c, simd::load(acc + c) + pv * simd::load(v + c));
  if (c < n) {
    simd::store_partial(
        acc + c, simd::load_partial(acc + c, n - c) + pv * simd::load_partial(v + c, n - c), n - c);
  }
}

// One query row: scores into `scores` (keys values), then the output row.
WNN_SIMD_CLONES void attention_row(const AttentionSizes& s, const float* q, const View4& k,
                                   const View4& v, int64_t b, int64_t kv, const float* bias,
                                   int64_t bias_stride, AttentionScale scale, float* scores,
                                   float* acc, float* out) {
  const int64_t d = s.head_size, dv = s.value_size, t_count = s.keys;
  float top = -std::numeric_limits<float>::infinity();
  for (int64_t t = 0; t < t_count; ++t) {
    const float qk = dot(q, k.row(b, kv, t), d);
    float x = scale.divide ? qk / scale.factor : qk * scale.factor;
    if (bias) x += bias[t * bias_stride];
    scores[t] = x;
    top = std::max(top, x);
  }
  for (int64_t t = 0; t < t_count; ++t) scores[t] -= top;
  exp_float32(scores, t_count);
  float sum = 0.0f;
  for (int64_t t = 0; t < t_count; ++t) sum += scores[t];
  std::fill(acc, acc + dv, 0.0f);
  for (int64_t t = 0; t < t_count; ++t) {
    axpy(scores[t] / sum, v.row(b, kv, t), acc, dv);
  }
  for (int64_t c = 0; c < dv; ++c) out[c] = acc[c];
}

}  // namespace

void scaled_dot_product_attention(const AttentionSizes& s, View4 q, View4 k, View4 v,
                                  const View4* bias, AttentionScale scale, float* out,
                                  std::array<int64_t, 4> out_strides, int threads) {
  const int64_t rows = s.batch * s.heads * s.queries;
  const int64_t group = s.heads / s.kv_heads;
#pragma omp parallel num_threads(threads) if (threads > 1 && rows > 1)
  {
    std::vector<float> scores(size_t(std::max<int64_t>(s.keys, 1)));
    std::vector<float> acc(size_t(s.value_size));
#pragma omp for schedule(static)
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t r = i % s.queries, h = (i / s.queries) % s.heads, b = i / (s.queries * s.heads);
      float* o = out + b * out_strides[0] + h * out_strides[1] + r * out_strides[2];
      if (s.keys == 0) {
        std::fill(o, o + s.value_size, 0.0f);
        continue;
      }
      const float* bias_row = bias ? bias->row(b, h, r) : nullptr;
      attention_row(s, q.row(b, h, r), k, v, b, h / group, bias_row, bias ? bias->strides[3] : 0,
                    scale, scores.data(), acc.data(), o);
    }
  }
}

void rotate_half_row(const float* x, const float* cos, const float* sin, int64_t size, float* y) {
  const int64_t half = size / 2;
  for (int64_t i = 0; i < half; ++i) {
    const float x1 = x[i], x2 = x[i + half];
    y[i] = x1 * cos[i] - x2 * sin[i];
    y[i + half] = x2 * cos[i] + x1 * sin[i];
  }
}

}  // namespace wnn::kernels
