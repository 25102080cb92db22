#include "wnn/kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "wnn/kernels/simd_exp.h"
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

// ---- many query rows per key/value head (prefill, encoders) ----
//
// attention_row spends a horizontal sum per key and streams its accumulator through memory per
// key: right for a decode step's few rows, slow for many. With eight rows or more per
// (batch, key/value head), K is transposed once per pair into [head_size, keys] (keys padded
// to 16 with zeros), and blocks of up to four query rows compute their scores sixteen keys per
// vector, a loaded column of K^T shared by the block's rows; the weighted sum of V keeps the
// block's output columns in registers, a loaded row of V shared the same way. The softmax
// between is attention_row's arithmetic, but for the order of the sums and the division by the
// exponentials' sum, applied to the output rows.

constexpr int kRowBlock = 4;
constexpr int64_t kKeyLanes = 16;

// scores[r][0, tp) = q[r] . K^T[:, t] for MQ rows; kt is [d][tp], tp a multiple of 16.
template <int MQ>
WNN_SIMD_INLINE void block_scores(const float* const (&q)[kRowBlock], const float* kt, int64_t d,
                                  int64_t tp, float* const (&scores)[kRowBlock]) {
  int64_t t = 0;
  for (; t + 4 * kKeyLanes <= tp; t += 4 * kKeyLanes) {
    F32x16 acc[MQ][4] = {};
    for (int64_t c = 0; c < d; ++c) {
      const float* col = kt + c * tp + t;
      const F32x16 k0 = simd::load(col), k1 = simd::load(col + 16), k2 = simd::load(col + 32),
                   k3 = simd::load(col + 48);
#pragma GCC unroll 4
      for (int r = 0; r < MQ; ++r) {
        const F32x16 qc = simd::splat(q[r][c]);
        acc[r][0] += qc * k0;
        acc[r][1] += qc * k1;
        acc[r][2] += qc * k2;
        acc[r][3] += qc * k3;
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < MQ; ++r) {
      for (int j = 0; j < 4; ++j) simd::store(scores[r] + t + 16 * j, acc[r][j]);
    }
  }
  for (; t < tp; t += kKeyLanes) {
    F32x16 acc[MQ] = {};
    for (int64_t c = 0; c < d; ++c) {
      const F32x16 k0 = simd::load(kt + c * tp + t);
#pragma GCC unroll 4
      for (int r = 0; r < MQ; ++r) acc[r] += simd::splat(q[r][c]) * k0;
    }
#pragma GCC unroll 4
    for (int r = 0; r < MQ; ++r) simd::store(scores[r] + t, acc[r]);
  }
}

// The softmax of one row's scores, sixteen keys at a time, left unnormalized: scaled, biased,
// the maximum subtracted, exponentiated, in place; returns 1 / their sum, by which the block's
// output rows are scaled (one multiply per output column instead of a division per key). The
// scores are padded to whole vectors (`padded` >= keys), the padding left out of the maximum
// and the sum.
WNN_SIMD_INLINE float softmax_row(float* scores, int64_t keys, int64_t padded, const float* bias,
                                  AttentionScale scale) {
  const F32x16 factor = simd::splat(scale.factor);
  const F32x16 lowest = simd::splat(-std::numeric_limits<float>::infinity());
  F32x16 top = lowest;
  for (int64_t t = 0; t < padded; t += kKeyLanes) {
    F32x16 x = simd::load(scores + t);
    x = scale.divide ? x / factor : x * factor;
    if (bias) {  // rows of the bias are contiguous (the pattern's broadcast() requires it)
      const int64_t n = std::min(kKeyLanes, keys - t);
      x += n == kKeyLanes ? simd::load(bias + t) : simd::load_partial(bias + t, n);
    }
    if (t + kKeyLanes > keys) {  // the padding: no part of the maximum
      for (int64_t i = keys - t; i < kKeyLanes; ++i) x[i] = lowest[0];
    }
    simd::store(scores + t, x);
    top = x > top ? x : top;
  }
  float m = top[0];
  for (int i = 1; i < kKeyLanes; ++i) m = std::max(m, top[i]);
  const F32x16 tv = simd::splat(m);
  F32x16 sums{};
  for (int64_t t = 0; t < padded; t += kKeyLanes) {
    const F32x16 e = simd::exp16(simd::load(scores + t) - tv);  // the padding's exp(-inf) is 0
    simd::store(scores + t, e);
    sums += e;
  }
  float sum = 0.0f;
  for (int i = 0; i < kKeyLanes; ++i) sum += sums[i];
  return 1.0f / sum;
}

// out[r] = inv[r] * sum_t p[r][t] v[t] for MQ rows, NV vectors of columns from c0.
template <int MQ, int NV>
WNN_SIMD_INLINE void block_values(float* const (&p)[kRowBlock], const float (&inv)[kRowBlock],
                                  const View4& v, int64_t b, int64_t kv, int64_t keys, int64_t c0,
                                  float* const (&out)[kRowBlock]) {
  F32x16 acc[MQ][NV] = {};
  for (int64_t t = 0; t < keys; ++t) {
    const float* row = v.row(b, kv, t) + c0;
    F32x16 vv[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) vv[j] = simd::load(row + 16 * j);
#pragma GCC unroll 4
    for (int r = 0; r < MQ; ++r) {
      const F32x16 pt = simd::splat(p[r][t]);
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[r][j] += pt * vv[j];
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < MQ; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
      simd::store(out[r] + c0 + 16 * j, acc[r][j] * simd::splat(inv[r]));
    }
  }
}

template <int MQ>
WNN_SIMD_INLINE void block_rows(const AttentionSizes& s, const float* const (&q)[kRowBlock],
                                const float* kt, int64_t tp, const View4& v, int64_t b, int64_t kv,
                                const float* const (&bias)[kRowBlock], AttentionScale scale,
                                float* const (&p)[kRowBlock], float* const (&out)[kRowBlock]) {
  block_scores<MQ>(q, kt, s.head_size, tp, p);
  float inv[kRowBlock] = {};
  for (int r = 0; r < MQ; ++r) inv[r] = softmax_row(p[r], s.keys, tp, bias[r], scale);
  int64_t c = 0;
  for (; c + 64 <= s.value_size; c += 64) block_values<MQ, 4>(p, inv, v, b, kv, s.keys, c, out);
  switch ((s.value_size - c) / 16) {
    case 3:
      block_values<MQ, 3>(p, inv, v, b, kv, s.keys, c, out);
      break;
    case 2:
      block_values<MQ, 2>(p, inv, v, b, kv, s.keys, c, out);
      break;
    case 1:
      block_values<MQ, 1>(p, inv, v, b, kv, s.keys, c, out);
      break;
    default:
      break;
  }
}

// Up to four rows of one (batch, key/value head) pair: `rows` of them from q[0].
WNN_SIMD_CLONES void attention_block(const AttentionSizes& s, int rows,
                                     const float* const (&q)[kRowBlock], const float* kt,
                                     int64_t tp, const View4& v, int64_t b, int64_t kv,
                                     const float* const (&bias)[kRowBlock], AttentionScale scale,
                                     float* const (&p)[kRowBlock], float* const (&out)[kRowBlock]) {
  switch (rows) {
    case 4:
      block_rows<4>(s, q, kt, tp, v, b, kv, bias, scale, p, out);
      break;
    case 3:
      block_rows<3>(s, q, kt, tp, v, b, kv, bias, scale, p, out);
      break;
    case 2:
      block_rows<2>(s, q, kt, tp, v, b, kv, bias, scale, p, out);
      break;
    default:
      block_rows<1>(s, q, kt, tp, v, b, kv, bias, scale, p, out);
      break;
  }
}

// Rows per (batch, key/value head) from which the blocked form runs, the value widths it takes
// (whole vectors), and a bias whose rows it loads as vectors.
bool blocked_form(const AttentionSizes& s, const View4* bias) {
  return s.keys > 0 && s.value_size % kKeyLanes == 0 && s.heads / s.kv_heads * s.queries >= 8 &&
         (!bias || bias->strides[3] == 1);
}

void blocked_attention(const AttentionSizes& s, View4 q, View4 k, View4 v, const View4* bias,
                       AttentionScale scale, float* out, std::array<int64_t, 4> out_strides,
                       int threads) {
  const int64_t group = s.heads / s.kv_heads, pair_rows = group * s.queries;
  const int64_t tp = (s.keys + kKeyLanes - 1) / kKeyLanes * kKeyLanes, d = s.head_size;
  // Items of up to 16 rows of one pair, in pair order: a thread's items mostly share a pair,
  // whose K^T it then transposes once.
  constexpr int64_t kChunk = 16;
  const int64_t chunks = (pair_rows + kChunk - 1) / kChunk, items = s.batch * s.kv_heads * chunks;
#pragma omp parallel num_threads(threads) if (threads > 1 && items > 1)
  {
    std::vector<float> kt(size_t(d * tp), 0.0f), probs(size_t(kRowBlock * tp));
    int64_t have = -1;
#pragma omp for schedule(static)
    for (int64_t item = 0; item < items; ++item) {
      const int64_t pair = item / chunks, b = pair / s.kv_heads, kv = pair % s.kv_heads;
      if (pair != have) {
        for (int64_t t = 0; t < s.keys; ++t) {
          const float* row = k.row(b, kv, t);
          for (int64_t c = 0; c < d; ++c) kt[size_t(c * tp + t)] = row[c];
        }
        have = pair;
      }
      const int64_t end = std::min(pair_rows, (item % chunks + 1) * kChunk);
      for (int64_t i = item % chunks * kChunk; i < end; i += kRowBlock) {
        const int rows = int(std::min<int64_t>(kRowBlock, end - i));
        const float* qr[kRowBlock] = {};
        const float* br[kRowBlock] = {};
        float* pr[kRowBlock] = {};
        float* orow[kRowBlock] = {};
        for (int r = 0; r < rows; ++r) {
          const int64_t h = kv * group + (i + r) / s.queries, row = (i + r) % s.queries;
          qr[r] = q.row(b, h, row);
          br[r] = bias ? bias->row(b, h, row) : nullptr;
          pr[r] = probs.data() + r * tp;
          orow[r] = out + b * out_strides[0] + h * out_strides[1] + row * out_strides[2];
        }
        attention_block(s, rows, qr, kt.data(), tp, v, b, kv, br, scale, pr, orow);
      }
    }
  }
}

}  // namespace

void scaled_dot_product_attention(const AttentionSizes& s, View4 q, View4 k, View4 v,
                                  const View4* bias, AttentionScale scale, float* out,
                                  std::array<int64_t, 4> out_strides, int threads) {
  if (blocked_form(s, bias)) {
    blocked_attention(s, q, k, v, bias, scale, out, out_strides, threads);
    return;
  }
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

void rotate_row(const float* x, const float* cos, const float* sin, int64_t size,
                RotaryLayout layout, float* y) {
  const int64_t half = layout.dims / 2;
  for (int64_t i = 0; i < half; ++i) {
    const int64_t i1 = layout.adjacent ? 2 * i : i, i2 = layout.adjacent ? 2 * i + 1 : i + half;
    const int64_t t2 = layout.full_tables ? i + half : i;
    const float x1 = x[i1], x2 = x[i2];
    y[i1] = x1 * cos[i] - x2 * sin[i];
    y[i2] = x2 * cos[t2] + x1 * sin[t2];
  }
  for (int64_t c = layout.dims; c < size; ++c) y[c] = x[c];
}

}  // namespace wnn::kernels
