#include "wnn/kernels/block_quantized_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "wnn/core/error.h"

namespace wnn::kernels {

// Vectors cross calls only between functions of the same target.
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's AVX-512 headers start some intrinsics from a deliberately undefined vector (__Y).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

int weight_at(const BlockQuantizedMatrix& w, int64_t n, int64_t e) {
  const uint8_t* row = w.data + n * w.row_bytes();
  if (w.bits == 8) return row[e];
  const uint8_t b = row[e / 2];
  return e % 2 == 0 ? (b & 0x0F) : (b >> 4);
}

int zero_at(const BlockQuantizedMatrix& w, int64_t n, int64_t b) {
  return w.zero_points ? w.zero_points[n * w.blocks + b] : w.default_zero;
}

// a [m, k] copied into rows of `width` >= k floats, zero beyond k.
std::vector<float> padded_rows(const float* a, int64_t m, int64_t k, int64_t width) {
  std::vector<float> p(size_t(m * width), 0.0f);
  for (int64_t r = 0; r < m; ++r) std::copy(a + r * k, a + r * k + k, p.begin() + r * width);
  return p;
}

// Rows of the padded a [m, padded k] quantized per block by the scalar definition: codes in
// the same layout, and [m, blocks] scales.
struct ScalarInt8Rows {
  std::vector<int8_t> codes;
  std::vector<float> scales;
};
ScalarInt8Rows quantize_rows(const std::vector<float>& ap, int64_t m,
                             const BlockQuantizedMatrix& w) {
  const int64_t kp = w.padded_k();
  ScalarInt8Rows q{std::vector<int8_t>(size_t(m * kp)), std::vector<float>(size_t(m * w.blocks))};
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t b = 0; b < w.blocks; ++b) {
      const int64_t o = r * kp + b * w.block;
      q.scales[size_t(r * w.blocks + b)] =
          quantize_activation_block(&ap[size_t(o)], w.block, &q.codes[size_t(o)]);
    }
  }
  return q;
}

// The definition of both arithmetics, one output at a time.
void scalar_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w, const float* bias,
                   float* y, ActivationArithmetic arithmetic, int threads) {
  const int64_t kp = w.padded_k();
  const std::vector<float> ap = padded_rows(a, m, w.k, kp);
  const ScalarInt8Rows q = arithmetic == ActivationArithmetic::kInt8PerBlock
                               ? quantize_rows(ap, m, w)
                               : ScalarInt8Rows{};
  const std::vector<int8_t>& qa = q.codes;
  const std::vector<float>& sa = q.scales;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t n = 0; n < w.n; ++n) {
    for (int64_t r = 0; r < m; ++r) {
      float acc = 0.0f;
      for (int64_t b = 0; b < w.blocks; ++b) {
        const int z = zero_at(w, n, b);
        const float s = w.scales[n * w.blocks + b];
        const int64_t o = b * w.block;
        if (arithmetic == ActivationArithmetic::kInt8PerBlock) {
          int32_t dot = 0;
          for (int64_t e = 0; e < w.block; ++e) {
            dot += int32_t(qa[size_t(r * kp + o + e)]) * (weight_at(w, n, o + e) - z);
          }
          acc += sa[size_t(r * w.blocks + b)] * s * float(dot);
        } else {
          float dot = 0.0f;
          for (int64_t e = 0; e < w.block; ++e) {
            dot += ap[size_t(r * kp + o + e)] * float(weight_at(w, n, o + e) - z);
          }
          acc += s * dot;
        }
      }
      y[r * w.n + n] = acc + (bias ? bias[n] : 0.0f);
    }
  }
}

#define WNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))

// ---- float32 arithmetic, AVX-512 ----

// Sixteen weights of an 8-bit row from element e, as float q - zero.
WNN_AVX512 inline __m512 weights16(const uint8_t* row, int64_t e, __m512i zero) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + e));
  return _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(bytes), zero));
}

// Thirty-two weights of a 4-bit row from element e (16 bytes), as float q - zero, in order.
WNN_AVX512 inline void weights32(const uint8_t* row, int64_t e, __m512i zero, __m512& first,
                                 __m512& second) {
  const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + e / 2));
  const __m128i mask = _mm_set1_epi8(0x0F);
  const __m128i lo = _mm_and_si128(packed, mask);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
  // Interleaved back into element order: lo0 hi0 lo1 hi1 ...
  first =
      _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi)), zero));
  second =
      _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(_mm_unpackhi_epi8(lo, hi)), zero));
}

// Sixteen weights of a 4-bit row from element e (8 bytes), for blocks of 16.
WNN_AVX512 inline __m512 weights16_of_4bit(const uint8_t* row, int64_t e, __m512i zero) {
  const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + e / 2));
  const __m128i mask = _mm_set1_epi8(0x0F);
  const __m128i lo = _mm_and_si128(packed, mask);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
  return _mm512_cvtepi32_ps(
      _mm512_sub_epi32(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi)), zero));
}

// How far ahead of the rows being read the kernels prefetch the weight: the next group's rows.
// A decode step reads every weight once, from memory, and the streams of NR rows and their
// scales are too many for the hardware prefetcher to keep ahead of alone.
WNN_AVX512 inline void prefetch(const void* p) {
  _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
}

WNN_AVX512 inline __m256 half(__m512 v) {
  return _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
}

// Sums each of the four vectors' lanes: {sum a, sum b, sum c, sum d}.
WNN_AVX512 inline __m128 reduce4(__m512 a, __m512 b, __m512 c, __m512 d) {
  const __m256 h =
      _mm256_hadd_ps(_mm256_hadd_ps(half(a), half(b)), _mm256_hadd_ps(half(c), half(d)));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

// y[r0 + r, n0 + j] for r < MR, j < NR from the accumulators.
template <int MR, int NR>
WNN_AVX512 inline void store_rows(const __m512 (&acc)[MR][NR], int64_t r0, int64_t n0,
                                  const BlockQuantizedMatrix& w, const float* bias, float* y) {
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    float* out = y + (r0 + r) * w.n + n0;
    if constexpr (NR == 4) {
      __m128 v = reduce4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]);
      if (bias) v = _mm_add_ps(v, _mm_loadu_ps(bias + n0));
      _mm_storeu_ps(out, v);
    } else {
      for (int j = 0; j < NR; ++j) {
        out[j] = _mm512_reduce_add_ps(acc[r][j]) + (bias ? bias[n0 + j] : 0.0f);
      }
    }
  }
}

// Where weight rows [n0, n0 + NR) start: their bytes, scales and zero points (null without).
template <int NR>
struct WeightRows {
  const uint8_t* row[NR];
  const float* scales[NR];
  const uint8_t* zeros[NR];
  WeightRows(const BlockQuantizedMatrix& w, int64_t n0) {
    for (int j = 0; j < NR; ++j) {
      row[j] = w.data + (n0 + j) * w.row_bytes();
      scales[j] = w.scales + (n0 + j) * w.blocks;
      zeros[j] = w.zero_points ? w.zero_points + (n0 + j) * w.blocks : nullptr;
    }
  }
};

// Rows [r0, r0 + MR) of the padded a times weight rows [n0, n0 + NR).
template <int MR, int NR, int BITS>
WNN_AVX512 void float_rows(const float* ap, int64_t kp, int64_t r0, const BlockQuantizedMatrix& w,
                           int64_t n0, const float* bias, float* y) {
  const int64_t row_bytes = w.row_bytes(), block = w.block;
  const WeightRows<NR> rows(w, n0);
  // Named references, not a structured binding: clang 14 does not capture those in lambdas.
  const auto& row = rows.row;
  const auto& scales = rows.scales;
  const auto& zeros = rows.zeros;
  const float* a[MR];
  __m512 acc[MR][NR];
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r) {
    a[r] = ap + (r0 + r) * kp;
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) acc[r][j] = _mm512_setzero_ps();
  }
  const int64_t block_bytes = block * BITS / 8;
#pragma GCC unroll 4
  for (int j = 0; j < NR; ++j) {
    for (int64_t o = 0; o < w.blocks; o += 16) prefetch(scales[j] + NR * w.blocks + o);
  }
  for (int64_t b = 0; b < w.blocks; ++b) {
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) {
      const uint8_t* ahead = row[j] + NR * row_bytes + b * block_bytes;
      for (int64_t o = 0; o < block_bytes; o += 64) prefetch(ahead + o);
    }
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) {
      const __m512i zero = _mm512_set1_epi32(zeros[j] ? zeros[j][b] : w.default_zero);
      __m512 dot[MR], dot2[MR];
#pragma GCC unroll 4
      for (int r = 0; r < MR; ++r) dot[r] = dot2[r] = _mm512_setzero_ps();
      const int64_t end = (b + 1) * block;
      int64_t e = b * block;
      if (BITS == 8 || block == 16) {
        for (; e < end; e += 16) {
          const __m512 wv =
              BITS == 8 ? weights16(row[j], e, zero) : weights16_of_4bit(row[j], e, zero);
#pragma GCC unroll 4
          for (int r = 0; r < MR; ++r)
            dot[r] = _mm512_fmadd_ps(wv, _mm512_loadu_ps(a[r] + e), dot[r]);
        }
      } else {
        for (; e < end; e += 32) {
          __m512 w0, w1;
          weights32(row[j], e, zero, w0, w1);
#pragma GCC unroll 4
          for (int r = 0; r < MR; ++r) {
            dot[r] = _mm512_fmadd_ps(w0, _mm512_loadu_ps(a[r] + e), dot[r]);
            dot2[r] = _mm512_fmadd_ps(w1, _mm512_loadu_ps(a[r] + e + 16), dot2[r]);
          }
        }
      }
      const __m512 s = _mm512_set1_ps(scales[j][b]);
#pragma GCC unroll 4
      for (int r = 0; r < MR; ++r)
        acc[r][j] = _mm512_fmadd_ps(_mm512_add_ps(dot[r], dot2[r]), s, acc[r][j]);
    }
  }
  store_rows<MR, NR>(acc, r0, n0, w, bias, y);
}

// ---- int8 arithmetic (accuracy_level 4), AVX-512 VNNI ----
//
// K is walked in chunks of one 64-byte line of a weight row: 128 elements of a 4-bit row,
// 64 of an 8-bit one. A 4-bit line splits into its low nibbles (elements 0, 2, .., 126) and its
// high ones (1, 3, .., 127), two vpdpbusd into one sum, so the quantized activations are stored
// in that order (even elements, then odd). Lane l of the int32 sum then covers elements
// [8l, 8l + 8) of the chunk (4-bit) or [4l, 4l + 4) (8-bit), all in one block (blocks are at
// least 16 long); lane_blocks gives which block of the chunk, and the scales and zero points of
// the chunk's blocks are spread over the lanes by one permute.

constexpr int64_t chunk_elements(int bits) { return bits == 4 ? 128 : 64; }

struct Int8Activations {
  int64_t chunks = 0;
  std::vector<int8_t> q;          // [m, chunks, chunk elements], in the chunk order above
  std::vector<float> lane_scale;  // [m, chunks, 16]: the scale of each lane's block
  std::vector<float> lane_sum;    // [m, chunks, 16]: the sum of each lane's q
  // Per chunk, the same for every row of the weight (no division in the inner loop):
  std::vector<int64_t> first_block;     // its first block
  std::vector<uint16_t> block_mask;     // its blocks (bit i: first_block + i < blocks)
  alignas(64) int32_t lane_blocks[16];  // per lane, its block after first_block
};

// The block (within its chunk) of lane l's elements.
int lane_block(int l, int bits, int64_t block) {
  return int(int64_t(l) * (chunk_elements(bits) / 16) / block);
}

int64_t chunk_first_block(int64_t c, int bits, int64_t block) {
  return c * chunk_elements(bits) / block;
}
int chunk_block_count(int64_t c, const BlockQuantizedMatrix& w) {
  const int64_t per_chunk = std::max<int64_t>(1, chunk_elements(w.bits) / w.block);
  return int(std::min(per_chunk, w.blocks - chunk_first_block(c, w.bits, w.block)));
}

// quantize_activation_block for a count that is a multiple of 16, vectorized: the same
// maximum, the same scale, the same correctly rounded quotients rounded half to even.
WNN_AVX512 float quantize_block16(const float* x, int64_t count, int8_t* q) {
  __m512 amax = _mm512_setzero_ps();
  for (int64_t i = 0; i < count; i += 16)
    amax = _mm512_max_ps(amax, _mm512_abs_ps(_mm512_loadu_ps(x + i)));
  const float scale =
      std::max(_mm512_reduce_max_ps(amax) / 127.0f, std::numeric_limits<float>::min());
  const __m512 s = _mm512_set1_ps(scale);
  for (int64_t i = 0; i < count; i += 16) {
    const __m512 r = _mm512_roundscale_ps(_mm512_div_ps(_mm512_loadu_ps(x + i), s),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i),
                     _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(r)));
  }
  return scale;
}

// Every row of a quantized per block (rows split among `threads`).
Int8Activations quantize_activations(const float* a, int64_t m, const BlockQuantizedMatrix& w,
                                     int threads) {
  Int8Activations qa;
  const int64_t kp = w.padded_k(), chunk = chunk_elements(w.bits), per_lane = chunk / 16;
  qa.chunks = (kp + chunk - 1) / chunk;
  const int64_t width = qa.chunks * chunk;
  const std::vector<float> ap = padded_rows(a, m, w.k, width);
  qa.q.assign(size_t(m * width), 0);
  qa.lane_scale.assign(size_t(m * qa.chunks * 16), 0.0f);
  qa.lane_sum.assign(size_t(m * qa.chunks * 16), 0.0f);
  for (int l = 0; l < 16; ++l) qa.lane_blocks[l] = lane_block(l, w.bits, w.block);
  for (int64_t c = 0; c < qa.chunks; ++c) {
    qa.first_block.push_back(chunk_first_block(c, w.bits, w.block));
    qa.block_mask.push_back(uint16_t((1u << chunk_block_count(c, w)) - 1));
  }
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && m > 1)
  for (int64_t r = 0; r < m; ++r) {
    std::vector<int8_t> natural(static_cast<size_t>(width), 0);
    std::vector<float> scale(size_t(w.blocks));
    for (int64_t b = 0; b < w.blocks; ++b) {
      scale[size_t(b)] = quantize_block16(&ap[size_t(r * width + b * w.block)], w.block,
                                          &natural[size_t(b * w.block)]);
    }
    int8_t* q = &qa.q[size_t(r * width)];
    for (int64_t c = 0; c < qa.chunks; ++c) {
      const int8_t* x = &natural[size_t(c * chunk)];
      for (int64_t j = 0; j < chunk; ++j) {
        q[c * chunk + j] = w.bits == 4 ? x[j < 64 ? 2 * j : 2 * (j - 64) + 1] : x[j];
      }
      const int64_t b0 = chunk_first_block(c, w.bits, w.block);
      for (int l = 0; l < 16; ++l) {
        const int64_t b = b0 + lane_block(l, w.bits, w.block);
        const size_t o = size_t((r * qa.chunks + c) * 16 + l);
        qa.lane_scale[o] = b < w.blocks ? scale[size_t(b)] : 0.0f;
        int sum = 0;
        for (int64_t j = 0; j < per_lane; ++j) sum += x[l * per_lane + j];
        qa.lane_sum[o] = float(sum);
      }
    }
  }
  return qa;
}

// Chunk c of a weight row as unsigned bytes: for 4 bits its low nibbles (even elements) and
// high ones (odd), for 8 bits the line itself. The last chunk of a row may hold fewer bytes than
// a line (PARTIAL: masked, nothing past the row is read).
template <int BITS, bool PARTIAL>
WNN_AVX512 inline void weight_line(const uint8_t* row, int64_t c, int64_t left, __m512i (&wv)[2]) {
  const __m512i bytes = PARTIAL ? _mm512_maskz_loadu_epi8((__mmask64(1) << left) - 1, row + c * 64)
                                : _mm512_loadu_si512(row + c * 64);
  if constexpr (BITS == 4) {
    const __m512i mask = _mm512_set1_epi8(0x0F);
    wv[0] = _mm512_and_si512(bytes, mask);
    wv[1] = _mm512_and_si512(_mm512_srli_epi16(bytes, 4), mask);
  } else {
    wv[0] = wv[1] = bytes;
  }
}

// The chunk's dot product with one row of quantized activations: an int32 sum per lane.
template <int BITS>
WNN_AVX512 inline __m512i line_dot(const __m512i (&wv)[2], const __m512i (&qv)[2]) {
  const __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), wv[0], qv[0]);
  return BITS == 4 ? _mm512_dpbusd_epi32(dot, wv[1], qv[1]) : dot;
}

template <int MR, int NR, int BITS, bool ZERO_POINTS>
WNN_AVX512 void int8_rows(const Int8Activations& qa, int64_t r0, const BlockQuantizedMatrix& w,
                          int64_t n0, const float* bias, float* y) {
  const int64_t row_bytes = w.row_bytes(), chunks = qa.chunks;
  constexpr int64_t kChunk = chunk_elements(BITS);
  const __m512i lanes = _mm512_load_si512(qa.lane_blocks);
  const WeightRows<NR> rows(w, n0);
  // Named references, not a structured binding: clang 14 does not capture those in lambdas.
  const auto& row = rows.row;
  const auto& scales = rows.scales;
  const auto& zeros = rows.zeros;
  const int64_t* first_block = qa.first_block.data();
  const uint16_t* block_mask = qa.block_mask.data();
  const int8_t* q[MR];
  const float *lane_sum[MR], *lane_scale[MR];
  __m512 acc[MR][NR];
#pragma GCC unroll 4
  for (int r = 0; r < MR; ++r) {
    q[r] = qa.q.data() + (r0 + r) * chunks * kChunk;
    lane_sum[r] = qa.lane_sum.data() + (r0 + r) * chunks * 16;
    lane_scale[r] = qa.lane_scale.data() + (r0 + r) * chunks * 16;
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) acc[r][j] = _mm512_setzero_ps();
  }
  // The next group's scales (and zero points), ahead of their rows.
#pragma GCC unroll 4
  for (int j = 0; j < NR; ++j) {
    for (int64_t o = 0; o < w.blocks; o += 16) prefetch(scales[j] + NR * w.blocks + o);
  }
  const __m512 default_zero = _mm512_set1_ps(float(w.default_zero));
  auto chunk = [&](int64_t c, auto partial) WNN_AVX512 {
    const int64_t b0 = first_block[c];
    const __mmask16 bmask = block_mask[c];
    __m512i qv[MR][2];
    __m512 sum[MR], ascale[MR], correction[MR];
#pragma GCC unroll 4
    for (int r = 0; r < MR; ++r) {
      qv[r][0] = _mm512_loadu_si512(q[r] + c * kChunk);
      qv[r][1] = BITS == 4 ? _mm512_loadu_si512(q[r] + c * kChunk + 64) : qv[r][0];
      sum[r] = _mm512_loadu_ps(lane_sum[r] + c * 16);
      ascale[r] = _mm512_loadu_ps(lane_scale[r] + c * 16);
      // One zero point for the whole weight: its term, zero * sum q_a * scale_a, is the same for
      // every weight row of the tile.
      if constexpr (!ZERO_POINTS)
        correction[r] = _mm512_mul_ps(_mm512_mul_ps(default_zero, sum[r]), ascale[r]);
    }
#pragma GCC unroll 4
    for (int j = 0; j < NR; ++j) {
      prefetch(row[j] + NR * row_bytes + c * 64);
      __m512i wv[2];
      weight_line<BITS, decltype(partial)::value>(row[j], c, row_bytes - c * 64, wv);
      const __m512 s = _mm512_permutexvar_ps(lanes, _mm512_maskz_loadu_ps(bmask, scales[j] + b0));
      __m512 z;  // the lanes' zero points, with per-block ones
      if constexpr (ZERO_POINTS) {
        const __m128i zb = _mm_maskz_loadu_epi8(bmask, zeros[j] + b0);
        z = _mm512_permutexvar_ps(lanes, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(zb)));
      }
#pragma GCC unroll 4
      for (int r = 0; r < MR; ++r) {
        const __m512 dot = _mm512_cvtepi32_ps(line_dot<BITS>(wv, qv[r]));
        if constexpr (ZERO_POINTS) {
          // The exact block product: sum q_a * q_w - zero * sum q_a.
          const __m512 exact = _mm512_fnmadd_ps(z, sum[r], dot);
          acc[r][j] = _mm512_fmadd_ps(exact, _mm512_mul_ps(s, ascale[r]), acc[r][j]);
        } else {
          // (sum q_a * q_w * scale_a - zero * sum q_a * scale_a) * scale_w.
          acc[r][j] = _mm512_fmadd_ps(s, _mm512_fmsub_ps(dot, ascale[r], correction[r]), acc[r][j]);
        }
      }
    }
  };
  // Whole chunks, then the row's last one when it is shorter (masked: nothing past the row is
  // read).
  const int64_t whole = row_bytes / 64;
  for (int64_t c = 0; c < whole; ++c) chunk(c, std::false_type{});
  if (whole < chunks) chunk(whole, std::true_type{});
  store_rows<MR, NR>(acc, r0, n0, w, bias, y);
}

// ---- int8 arithmetic, 4-bit blocks of 32: one lane per block ----
//
// The layout above spends a float conversion and two float operations per 64-byte line and
// output, for two vpdpbusd: at several rows of A (a prefill) the float work bounds the
// kernel. Here K is walked in groups of 16 blocks (512 elements: four lines of a 4-bit row),
// and lane l of every vector belongs to block l of the group. Dword d of block l (its bytes
// 4d .. 4d + 3, elements 8d .. 8d + 7) is moved to lane l of weight vector d, once per weight
// row and shared by every row of A; its low and high nibbles meet the activations arranged the
// same way, so eight vpdpbusd leave each block's exact int32 product in its lane, and one float
// step per group scales and accumulates sixteen blocks.

constexpr int64_t kLaneBlock = 32;                  // the block this layout serves (4 bits)
constexpr int64_t kGroupBlocks = 16;                // blocks per group, one per lane
constexpr int64_t kGroupBytes = kGroupBlocks * 16;  // of a 4-bit weight row: four lines

struct BlockLaneActivations {
  int64_t groups = 0;
  // [m, groups, 8 vectors of 64 bytes]: vector 2d + h, lane l, byte i holds element
  // 32 l + 8 d + 2 i + h of the group (h: the weight's low nibble, 0, or high one, 1).
  std::vector<int8_t> q;
  std::vector<float> scale;  // [m, groups, 16]: each block's scale, 0 past the last block
  // [m, groups, 16]: each block's sum of q times its scale, times the weight's one zero point
  // when it has no per-block ones: the zero point's term of the block product.
  std::vector<float> zero_term;
};

BlockLaneActivations quantize_block_lanes(const float* a, int64_t m, const BlockQuantizedMatrix& w,
                                          int threads) {
  BlockLaneActivations qa;
  qa.groups = (w.blocks + kGroupBlocks - 1) / kGroupBlocks;
  const int64_t width = qa.groups * kGroupBlocks * kLaneBlock;
  const std::vector<float> ap = padded_rows(a, m, w.k, width);
  qa.q.assign(size_t(m * width), 0);
  qa.scale.assign(size_t(m * qa.groups * kGroupBlocks), 0.0f);
  qa.zero_term.assign(qa.scale.size(), 0.0f);
  const float zero = w.zero_points ? 1.0f : float(w.default_zero);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && m > 1)
  for (int64_t r = 0; r < m; ++r) {
    int8_t natural[kLaneBlock];
    for (int64_t b = 0; b < w.blocks; ++b) {
      const float scale =
          quantize_block16(&ap[size_t(r * width + b * kLaneBlock)], kLaneBlock, natural);
      const int64_t g = b / kGroupBlocks, l = b % kGroupBlocks;
      int8_t* group = &qa.q[size_t(r * width + g * kGroupBlocks * kLaneBlock)];
      int sum = 0;
      for (int d = 0; d < 4; ++d) {
        for (int h = 0; h < 2; ++h) {
          for (int i = 0; i < 4; ++i) {
            const int8_t v = natural[8 * d + 2 * i + h];
            group[(2 * d + h) * 64 + l * 4 + i] = v;
            sum += v;
          }
        }
      }
      const size_t o = size_t(r * qa.groups * kGroupBlocks + b);
      qa.scale[o] = scale;
      qa.zero_term[o] = zero * float(sum) * scale;
    }
  }
  return qa;
}

// The group's four lines of a weight row as eight vectors of unsigned nibbles, lane l holding
// block l: vector 2d + h is dword d of each block, its low (h = 0) or high (h = 1) nibbles.
// `left` bytes of the row remain from the group's start (all four lines when LAST is false).
template <bool LAST>
WNN_AVX512 __attribute__((always_inline)) inline void weight_group(const uint8_t* at, int64_t left,
                                                                   __m512i (&wv)[8]) {
  __m512i line[4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    if constexpr (LAST) {
      const int64_t bytes = std::clamp<int64_t>(left - 64 * i, 0, 64);
      const __mmask64 mask = bytes == 0 ? 0 : (~__mmask64(0) >> (64 - bytes));
      line[i] = _mm512_maskz_loadu_epi8(mask, at + 64 * i);
    } else {
      line[i] = _mm512_loadu_si512(at + 64 * i);
    }
  }
  // Block l is dwords 4 (l % 4) .. + 3 of line l / 4. Of two lines' eight blocks, one permute
  // gathers dword d of each into lanes 0-7 and dword d + 1 into lanes 8-15 (`first`: d = 0,
  // `second`: d = 2); the halves of two such (blocks 0-7 and 8-15) make vectors d and d + 1.
  const __m512i first = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i second =
      _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
  const __m512i nibble = _mm512_set1_epi8(0x0F);
#pragma GCC unroll 2
  for (int pair = 0; pair < 2; ++pair) {
    const __m512i idx = pair == 0 ? first : second;
    const __m512i low = _mm512_permutex2var_epi32(line[0], idx, line[1]);
    const __m512i high = _mm512_permutex2var_epi32(line[2], idx, line[3]);
    const __m512i d0 = _mm512_shuffle_i64x2(low, high, 0x44);  // 128-bit lanes 0, 1 of each
    const __m512i d1 = _mm512_shuffle_i64x2(low, high, 0xEE);  // lanes 2, 3 of each
    const int d = 2 * pair;
    wv[2 * d] = _mm512_and_si512(d0, nibble);
    wv[2 * d + 1] = _mm512_and_si512(_mm512_srli_epi16(d0, 4), nibble);
    wv[2 * d + 2] = _mm512_and_si512(d1, nibble);
    wv[2 * d + 3] = _mm512_and_si512(_mm512_srli_epi16(d1, 4), nibble);
  }
}

template <int MR, int NR, bool ZERO_POINTS>
WNN_AVX512 void int8_block_lanes(const BlockLaneActivations& qa, int64_t r0,
                                 const BlockQuantizedMatrix& w, int64_t n0, const float* bias,
                                 float* y) {
  const int64_t row_bytes = w.row_bytes(), groups = qa.groups;
  const WeightRows<NR> rows(w, n0);
  // Named references, not a structured binding: clang 14 does not capture those in lambdas.
  const auto& row = rows.row;
  const auto& scales = rows.scales;
  const auto& zeros = rows.zeros;
  __m512 acc[MR][NR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) acc[r][j] = _mm512_setzero_ps();
  }
#pragma GCC unroll 8
  for (int j = 0; j < NR; ++j) {
    for (int64_t o = 0; o < w.blocks; o += 16) prefetch(scales[j] + NR * w.blocks + o);
  }
  auto group = [&](int64_t g, auto last) WNN_AVX512 {
    const int64_t b0 = g * kGroupBlocks;
    const __mmask16 bmask = __mmask16((1u << std::min(kGroupBlocks, w.blocks - b0)) - 1);
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) {
      const uint8_t* at = row[j] + g * kGroupBytes;
#pragma GCC unroll 8
      for (int i = 0; i < 4; ++i) prefetch(at + NR * row_bytes + 64 * i);
      __m512i wv[8];
      weight_group<decltype(last)::value>(at, row_bytes - g * kGroupBytes, wv);
      const __m512 s = _mm512_maskz_loadu_ps(bmask, scales[j] + b0);
      __m512 z;
      if constexpr (ZERO_POINTS) {
        z = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(bmask, zeros[j] + b0)));
      }
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const int64_t at_a = (r0 + r) * groups + g;
        const int8_t* q = qa.q.data() + at_a * kGroupBlocks * kLaneBlock;
        // In a small tile (a decode step's one row) the chain of eight vpdpbusd is the critical
        // path: two chains of four. A large tile has enough independent chains, and no
        // registers to spare.
        __m512i dot = _mm512_setzero_si512();
        if constexpr (MR * NR <= 8) {
          __m512i odd = _mm512_setzero_si512();
#pragma GCC unroll 8
          for (int v = 0; v < 8; v += 2) {
            dot = _mm512_dpbusd_epi32(dot, wv[v], _mm512_loadu_si512(q + 64 * v));
            odd = _mm512_dpbusd_epi32(odd, wv[v + 1], _mm512_loadu_si512(q + 64 * v + 64));
          }
          dot = _mm512_add_epi32(dot, odd);
        } else {
#pragma GCC unroll 8
          for (int v = 0; v < 8; ++v) {
            dot = _mm512_dpbusd_epi32(dot, wv[v], _mm512_loadu_si512(q + 64 * v));
          }
        }
        const __m512 ascale = _mm512_loadu_ps(qa.scale.data() + at_a * kGroupBlocks);
        const __m512 term = _mm512_loadu_ps(qa.zero_term.data() + at_a * kGroupBlocks);
        const __m512 d = _mm512_cvtepi32_ps(dot);
        if constexpr (ZERO_POINTS) {
          // (sum q_a q_w - zero sum q_a) scale_a scale_w, the zero per block.
          acc[r][j] =
              _mm512_fmadd_ps(s, _mm512_fnmadd_ps(z, term, _mm512_mul_ps(d, ascale)), acc[r][j]);
        } else {
          acc[r][j] = _mm512_fmadd_ps(s, _mm512_fmsub_ps(d, ascale, term), acc[r][j]);
        }
      }
    }
  };
  const int64_t whole = row_bytes / kGroupBytes;
  for (int64_t g = 0; g < whole; ++g) group(g, std::false_type{});
  if (whole < groups) group(whole, std::true_type{});
  store_rows<MR, NR>(acc, r0, n0, w, bias, y);
}

// Calls rows(mr, nr, r, n) over the output in tiles: weight rows in groups of NR (the last
// ones one by one), split among threads; activation rows MR, then 4, 2 at a time, then the
// last one.
template <int NR = 4, int MR = 4, typename Rows>
void over_rows(int64_t m, int64_t n_total, int threads, const Rows& rows) {
  static_assert(MR == 4 || MR == 8);
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Four = std::integral_constant<int, 4>;
  const int64_t groups = n_total / NR;
  auto tile = [&](auto nr, int64_t n) {
    int64_t r = 0;
    if constexpr (MR == 8) {
      for (; r + 8 <= m; r += 8) rows(std::integral_constant<int, 8>{}, nr, r, n);
    }
    for (; r + 4 <= m; r += 4) rows(Four{}, nr, r, n);
    for (; r + 2 <= m; r += 2) rows(Two{}, nr, r, n);
    if (r < m) rows(One{}, nr, r, n);
  };
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t g = 0; g < groups + (n_total - groups * NR); ++g) {
    if (g < groups) {
      tile(std::integral_constant<int, NR>{}, NR * g);
    } else {
      tile(One{}, NR * groups + (g - groups));
    }
  }
}

void avx512_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w, const float* bias,
                   float* y, ActivationArithmetic arithmetic, int threads) {
  if (arithmetic == ActivationArithmetic::kInt8PerBlock && w.bits == 4 && w.block == kLaneBlock) {
    const BlockLaneActivations qa = quantize_block_lanes(a, m, w, threads);
    auto tiles = [&](auto zero_points) {
      return [&](auto mr, auto nr, int64_t r, int64_t n) {
        int8_block_lanes<decltype(mr)::value, decltype(nr)::value, decltype(zero_points)::value>(
            qa, r, w, n, bias, y);
      };
    };
    // From 8 rows of A, tiles of 8 x 2 outputs share each weight group's unpacking among more
    // rows, with every accumulator still in a register.
    auto run = [&](auto zero_points) {
      m >= 8 ? over_rows<2, 8>(m, w.n, threads, tiles(zero_points))
             : over_rows<4, 4>(m, w.n, threads, tiles(zero_points));
    };
    w.zero_points ? run(std::true_type{}) : run(std::false_type{});
    return;
  }
  if (arithmetic == ActivationArithmetic::kInt8PerBlock) {
    const Int8Activations qa = quantize_activations(a, m, w, threads);
    auto run = [&](auto bits, auto zero_points) {
      over_rows(m, w.n, threads, [&](auto mr, auto nr, int64_t r, int64_t n) {
        int8_rows<decltype(mr)::value, decltype(nr)::value, decltype(bits)::value,
                  decltype(zero_points)::value>(qa, r, w, n, bias, y);
      });
    };
    using Four = std::integral_constant<int, 4>;
    using Eight = std::integral_constant<int, 8>;
    using Yes = std::true_type;
    using No = std::false_type;
    if (w.bits == 4) {
      w.zero_points ? run(Four{}, Yes{}) : run(Four{}, No{});
    } else {
      w.zero_points ? run(Eight{}, Yes{}) : run(Eight{}, No{});
    }
    return;
  }
  const int64_t kp = w.padded_k();
  const std::vector<float> ap = padded_rows(a, m, w.k, kp);
  auto run = [&](auto bits) {
    over_rows(m, w.n, threads, [&](auto mr, auto nr, int64_t r, int64_t n) {
      float_rows<decltype(mr)::value, decltype(nr)::value, decltype(bits)::value>(ap.data(), kp, r,
                                                                                  w, n, bias, y);
    });
  };
  w.bits == 4 ? run(std::integral_constant<int, 4>{}) : run(std::integral_constant<int, 8>{});
}

// ---- AVX2 + FMA, both arithmetics ----
//
// For a CPU without AVX-512: eight lanes, sixteen elements of a block at a time, decoded once
// per weight row and tile of up to four rows of A. The int8 products are exact: the codes of
// both sides widened to 16 bits and multiplied in pairs by vpmaddwd (vpmaddubsw would saturate
// for 8-bit weights). The activations are quantized by the scalar definition.

#define WNN_AVX2 __attribute__((target("avx2,fma")))

// Sixteen weights of row `row` from element e, as unsigned bytes in element order.
template <int BITS>
WNN_AVX2 inline __m128i weight_bytes16(const uint8_t* row, int64_t e) {
  if constexpr (BITS == 8) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + e));
  } else {
    const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + e / 2));
    const __m128i mask = _mm_set1_epi8(0x0F);
    return _mm_unpacklo_epi8(_mm_and_si128(packed, mask),
                             _mm_and_si128(_mm_srli_epi16(packed, 4), mask));
  }
}

WNN_AVX2 inline float sum8(__m256 v) {
  const __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 q = _mm_add_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}

// Rows [r0, r0 + MR) of the output column n.
template <int MR, int BITS, bool INT8>
WNN_AVX2 void avx2_rows(const float* ap, const int8_t* qa, const float* sa, int64_t kp, int64_t r0,
                        const BlockQuantizedMatrix& w, int64_t n, const float* bias, float* y) {
  const uint8_t* row = w.data + n * w.row_bytes();
  __m256 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm256_setzero_ps();
  for (int64_t b = 0; b < w.blocks; ++b) {
    const int z = zero_at(w, n, b);
    const float s = w.scales[n * w.blocks + b];
    const int64_t begin = b * w.block, end = begin + w.block;
    if constexpr (INT8) {
      // q_w - z in 16 bits (-255 .. 255): the block product sum q_a (q_w - z) exact in int32.
      const __m256i zero = _mm256_set1_epi16(int16_t(z));
      __m256i dot[MR];
      for (int r = 0; r < MR; ++r) dot[r] = _mm256_setzero_si256();
      for (int64_t e = begin; e < end; e += 16) {
        const __m256i wv =
            _mm256_sub_epi16(_mm256_cvtepu8_epi16(weight_bytes16<BITS>(row, e)), zero);
        for (int r = 0; r < MR; ++r) {
          const __m128i q =
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(qa + (r0 + r) * kp + e));
          dot[r] = _mm256_add_epi32(dot[r], _mm256_madd_epi16(wv, _mm256_cvtepi8_epi16(q)));
        }
      }
      for (int r = 0; r < MR; ++r) {
        const __m256 scale = _mm256_set1_ps(sa[(r0 + r) * w.blocks + b] * s);
        acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]), scale, acc[r]);
      }
    } else {
      const __m256i zero = _mm256_set1_epi32(z);
      __m256 dot[MR];
      for (int r = 0; r < MR; ++r) dot[r] = _mm256_setzero_ps();
      for (int64_t e = begin; e < end; e += 16) {
        const __m128i bytes = weight_bytes16<BITS>(row, e);
        const __m256 w0 = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(bytes), zero));
        const __m256 w1 = _mm256_cvtepi32_ps(
            _mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8)), zero));
        for (int r = 0; r < MR; ++r) {
          const float* a = ap + (r0 + r) * kp + e;
          dot[r] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(a), dot[r]);
          dot[r] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(a + 8), dot[r]);
        }
      }
      for (int r = 0; r < MR; ++r) acc[r] = _mm256_fmadd_ps(dot[r], _mm256_set1_ps(s), acc[r]);
    }
  }
  for (int r = 0; r < MR; ++r) y[(r0 + r) * w.n + n] = sum8(acc[r]) + (bias ? bias[n] : 0.0f);
}

void avx2_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w, const float* bias,
                 float* y, ActivationArithmetic arithmetic, int threads) {
  const int64_t kp = w.padded_k();
  const std::vector<float> ap = padded_rows(a, m, w.k, kp);
  const bool int8 = arithmetic == ActivationArithmetic::kInt8PerBlock;
  const ScalarInt8Rows q = int8 ? quantize_rows(ap, m, w) : ScalarInt8Rows{};
  const std::vector<int8_t>& qa = q.codes;
  const std::vector<float>& sa = q.scales;
  auto run = [&](auto bits, auto is_int8) {
    constexpr int kBits = decltype(bits)::value;
    constexpr bool kInt8 = decltype(is_int8)::value;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int64_t n = 0; n < w.n; ++n) {
      int64_t r = 0;
      for (; r + 4 <= m; r += 4) {
        avx2_rows<4, kBits, kInt8>(ap.data(), qa.data(), sa.data(), kp, r, w, n, bias, y);
      }
      for (; r < m; ++r) {
        avx2_rows<1, kBits, kInt8>(ap.data(), qa.data(), sa.data(), kp, r, w, n, bias, y);
      }
    }
  };
  auto by_bits = [&](auto is_int8) {
    w.bits == 4 ? run(std::integral_constant<int, 4>{}, is_int8)
                : run(std::integral_constant<int, 8>{}, is_int8);
  };
  int8 ? by_bits(std::true_type{}) : by_bits(std::false_type{});
}

}  // namespace

bool block_matmul_isa_supported(BlockMatmulIsa isa) {
  static const bool avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512vnni");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (isa) {
    case BlockMatmulIsa::kAvx512:
      return avx512;
    case BlockMatmulIsa::kAvx2:
      return avx2;
    case BlockMatmulIsa::kScalar:
      break;
  }
  return true;
}

BlockMatmulIsa best_block_matmul_isa() {
  for (BlockMatmulIsa isa : {BlockMatmulIsa::kAvx512, BlockMatmulIsa::kAvx2}) {
    if (block_matmul_isa_supported(isa)) return isa;
  }
  return BlockMatmulIsa::kScalar;
}

std::string_view isa_name(BlockMatmulIsa isa) {
  switch (isa) {
    case BlockMatmulIsa::kAvx512:
      return "avx512_vnni";
    case BlockMatmulIsa::kAvx2:
      return "avx2";
    case BlockMatmulIsa::kScalar:
      break;
  }
  return "scalar";
}

float quantize_activation_block(const float* x, int64_t count, int8_t* q) {
  float amax = 0.0f;
  for (int64_t i = 0; i < count; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float scale = std::max(amax / 127.0f, std::numeric_limits<float>::min());
  for (int64_t i = 0; i < count; ++i) {
    q[i] = int8_t(std::clamp(std::nearbyint(x[i] / scale), -128.0f, 127.0f));
  }
  return scale;
}

float quantize_activation_block(const float* x, int64_t count, int8_t* q, BlockMatmulIsa isa) {
  check(isa == BlockMatmulIsa::kScalar || count % 16 == 0,
        "quantize_activation_block: {} elements for the vectorized form", count);
  return isa == BlockMatmulIsa::kAvx512 ? quantize_block16(x, count, q)
                                        : quantize_activation_block(x, count, q);
}

void block_quantized_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w,
                            const float* bias, float* y, ActivationArithmetic arithmetic,
                            int threads, BlockMatmulIsa isa) {
  // The vector paths walk blocks in steps of 16 elements.
  if (isa == BlockMatmulIsa::kAvx512 && w.block % 16 == 0) {
    avx512_matmul(a, m, w, bias, y, arithmetic, threads);
  } else if (isa == BlockMatmulIsa::kAvx2 && w.block % 16 == 0) {
    avx2_matmul(a, m, w, bias, y, arithmetic, threads);
  } else {
    scalar_matmul(a, m, w, bias, y, arithmetic, threads);
  }
}

}  // namespace wnn::kernels
