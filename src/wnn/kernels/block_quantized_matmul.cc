#include "wnn/kernels/block_quantized_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace wnn::kernels {

// Vectors cross calls only between functions of the same target.
#pragma GCC diagnostic ignored "-Wpsabi"

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

// The definition of both arithmetics, one output at a time.
void scalar_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w, const float* bias,
                   float* y, ActivationArithmetic arithmetic, int threads) {
  const int64_t kp = w.padded_k();
  const std::vector<float> ap = padded_rows(a, m, w.k, kp);
  std::vector<int8_t> qa;
  std::vector<float> sa;
  if (arithmetic == ActivationArithmetic::kInt8PerBlock) {
    qa.resize(size_t(m * kp));
    sa.resize(size_t(m * w.blocks));
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t b = 0; b < w.blocks; ++b) {
        const int64_t o = r * kp + b * w.block;
        sa[size_t(r * w.blocks + b)] =
            quantize_activation_block(&ap[size_t(o)], w.block, &qa[size_t(o)]);
      }
    }
  }
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

// Sixteen weights of row `row` from element e (a multiple of 16), as int32 q - zero.
WNN_AVX512 inline __m512i weights16(const uint8_t* row, int64_t e, int bits, __m512i zero) {
  __m128i bytes;
  if (bits == 8) {
    bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + e));
  } else {
    const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + e / 2));
    const __m128i mask = _mm_set1_epi8(0x0F);
    const __m128i lo = _mm_and_si128(packed, mask);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
    bytes = _mm_unpacklo_epi8(lo, hi);  // element order: lo0 hi0 lo1 hi1 ...
  }
  return _mm512_sub_epi32(_mm512_cvtepu8_epi32(bytes), zero);
}

// Rows [r0, r0 + MR) of the padded a times weight row n.
template <int MR>
WNN_AVX512 void float_rows(const float* ap, int64_t kp, int64_t r0, const BlockQuantizedMatrix& w,
                           int64_t n, const float* bias, float* y) {
  const uint8_t* row = w.data + n * w.row_bytes();
  __m512 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  for (int64_t b = 0; b < w.blocks; ++b) {
    const __m512i zero = _mm512_set1_epi32(zero_at(w, n, b));
    __m512 dot[MR];
    for (int r = 0; r < MR; ++r) dot[r] = _mm512_setzero_ps();
    for (int64_t e = b * w.block; e < (b + 1) * w.block; e += 16) {
      const __m512 wv = _mm512_cvtepi32_ps(weights16(row, e, w.bits, zero));
      for (int r = 0; r < MR; ++r) {
        dot[r] = _mm512_fmadd_ps(wv, _mm512_loadu_ps(ap + (r0 + r) * kp + e), dot[r]);
      }
    }
    const __m512 s = _mm512_set1_ps(w.scales[n * w.blocks + b]);
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_fmadd_ps(dot[r], s, acc[r]);
  }
  for (int r = 0; r < MR; ++r) {
    y[(r0 + r) * w.n + n] = _mm512_reduce_add_ps(acc[r]) + (bias ? bias[n] : 0.0f);
  }
}

// ---- int8 arithmetic (accuracy_level 4), AVX-512 VNNI ----
//
// K is walked in chunks of 64 elements, one vpdpbusd each: 4-bit rows give 32 bytes per chunk,
// spread as [low nibbles | high nibbles] (elements 0, 2, .., 62 then 1, 3, .., 63), so the
// quantized activations are stored in that order; 8-bit rows are 64 bytes in element order.
// Lane l of the int32 result sums four elements of one block; kLaneBlock gives which block of
// the chunk, and scales and zero points are spread over the lanes by a permute.

struct Int8Activations {
  int64_t chunks = 0;
  std::vector<int8_t> q;          // [m, chunks * 64], in the chunk order above
  std::vector<float> lane_scale;  // [m, chunks, 16]: the scale of each lane's block
  std::vector<float> lane_sum;    // [m, chunks, 16]: the sum of each lane's four q
};

// The block (within its chunk) of lane l's elements.
int lane_block(int l, int bits, int64_t block) {
  const int64_t first = bits == 4 ? 8 * (l % 8) : 4 * l;
  return block >= 64 ? 0 : int(first / block);
}

int64_t chunk_first_block(int64_t c, int64_t block) { return c * 64 / block; }
int chunk_block_count(int64_t c, const BlockQuantizedMatrix& w) {
  const int64_t per_chunk = w.block >= 64 ? 1 : 64 / w.block;
  return int(std::min(per_chunk, w.blocks - chunk_first_block(c, w.block)));
}

Int8Activations quantize_activations(const float* a, int64_t m, const BlockQuantizedMatrix& w) {
  Int8Activations qa;
  const int64_t kp = w.padded_k();
  qa.chunks = (kp + 63) / 64;
  const int64_t width = qa.chunks * 64;
  const std::vector<float> ap = padded_rows(a, m, w.k, width);
  std::vector<int8_t> natural(static_cast<size_t>(width));
  std::vector<float> scale(size_t(w.blocks));
  qa.q.assign(size_t(m * width), 0);
  qa.lane_scale.assign(size_t(m * qa.chunks * 16), 0.0f);
  qa.lane_sum.assign(size_t(m * qa.chunks * 16), 0.0f);
  for (int64_t r = 0; r < m; ++r) {
    std::fill(natural.begin(), natural.end(), int8_t(0));
    for (int64_t b = 0; b < w.blocks; ++b) {
      scale[size_t(b)] = quantize_activation_block(&ap[size_t(r * width + b * w.block)], w.block,
                                                   &natural[size_t(b * w.block)]);
    }
    int8_t* q = &qa.q[size_t(r * width)];
    for (int64_t c = 0; c < qa.chunks; ++c) {
      for (int j = 0; j < 64; ++j) {
        const int64_t e = w.bits == 4 ? (j < 32 ? 2 * j : 2 * (j - 32) + 1) : j;
        q[c * 64 + j] = natural[size_t(c * 64 + e)];
      }
      const int64_t b0 = chunk_first_block(c, w.block);
      for (int l = 0; l < 16; ++l) {
        const int64_t b = b0 + lane_block(l, w.bits, w.block);
        const size_t o = size_t((r * qa.chunks + c) * 16 + l);
        qa.lane_scale[o] = b < w.blocks ? scale[size_t(b)] : 0.0f;
        int sum = 0;
        for (int j = 0; j < 4; ++j) sum += q[c * 64 + 4 * l + j];
        qa.lane_sum[o] = float(sum);
      }
    }
  }
  return qa;
}

template <int MR>
WNN_AVX512 void int8_rows(const Int8Activations& qa, int64_t r0, const BlockQuantizedMatrix& w,
                          int64_t n, const float* bias, float* y) {
  const uint8_t* row = w.data + n * w.row_bytes();
  const int64_t row_bytes = w.row_bytes(), width = qa.chunks * 64;
  const int64_t chunk_bytes = w.bits == 4 ? 32 : 64;
  alignas(64) int32_t index[16];
  for (int l = 0; l < 16; ++l) index[l] = lane_block(l, w.bits, w.block);
  const __m512i lanes = _mm512_load_si512(index);
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const __m512 default_zero = _mm512_set1_ps(float(w.default_zero));
  const float* scales = w.scales + n * w.blocks;
  const uint8_t* zeros = w.zero_points ? w.zero_points + n * w.blocks : nullptr;
  __m512 acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_setzero_ps();
  for (int64_t c = 0; c < qa.chunks; ++c) {
    const int64_t left = row_bytes - c * chunk_bytes;
    __m512i wv;
    if (w.bits == 4) {
      const __mmask32 mask = left >= 32 ? ~__mmask32(0) : __mmask32((uint64_t(1) << left) - 1);
      const __m256i packed = _mm256_maskz_loadu_epi8(mask, row + c * 32);
      wv = _mm512_inserti64x4(_mm512_castsi256_si512(packed), _mm256_srli_epi16(packed, 4), 1);
      wv = _mm512_and_si512(wv, nibble);
    } else {
      const __mmask64 mask = left >= 64 ? ~__mmask64(0) : (__mmask64(1) << left) - 1;
      wv = _mm512_maskz_loadu_epi8(mask, row + c * 64);
    }
    const int64_t b0 = chunk_first_block(c, w.block);
    const __mmask16 bmask = __mmask16((1u << chunk_block_count(c, w)) - 1);
    const __m512 s = _mm512_permutexvar_ps(lanes, _mm512_maskz_loadu_ps(bmask, scales + b0));
    __m512 z = default_zero;
    if (zeros) {
      const __m128i zb = _mm_maskz_loadu_epi8(bmask, zeros + b0);
      z = _mm512_permutexvar_ps(lanes, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(zb)));
    }
    for (int r = 0; r < MR; ++r) {
      const int64_t o = (r0 + r) * qa.chunks + c;
      const __m512i av = _mm512_loadu_si512(&qa.q[size_t((r0 + r) * width + c * 64)]);
      const __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), wv, av);
      // The exact block product: sum q_a * q_w - zero * sum q_a.
      const __m512 exact = _mm512_fnmadd_ps(z, _mm512_loadu_ps(&qa.lane_sum[size_t(o * 16)]),
                                            _mm512_cvtepi32_ps(dot));
      const __m512 scale = _mm512_mul_ps(s, _mm512_loadu_ps(&qa.lane_scale[size_t(o * 16)]));
      acc[r] = _mm512_fmadd_ps(exact, scale, acc[r]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    y[(r0 + r) * w.n + n] = _mm512_reduce_add_ps(acc[r]) + (bias ? bias[n] : 0.0f);
  }
}

template <typename Rows>
void over_rows(int64_t m, int64_t n_total, int threads, const Rows& rows) {
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t n = 0; n < n_total; ++n) {
    int64_t r = 0;
    for (; r + 4 <= m; r += 4) rows(std::integral_constant<int, 4>{}, r, n);
    for (; r + 2 <= m; r += 2) rows(std::integral_constant<int, 2>{}, r, n);
    if (r < m) rows(std::integral_constant<int, 1>{}, r, n);
  }
}

void avx512_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w, const float* bias,
                   float* y, ActivationArithmetic arithmetic, int threads) {
  if (arithmetic == ActivationArithmetic::kInt8PerBlock) {
    const Int8Activations qa = quantize_activations(a, m, w);
    over_rows(m, w.n, threads, [&](auto mr, int64_t r, int64_t n) {
      int8_rows<decltype(mr)::value>(qa, r, w, n, bias, y);
    });
    return;
  }
  const int64_t kp = w.padded_k();
  const std::vector<float> ap = padded_rows(a, m, w.k, kp);
  over_rows(m, w.n, threads, [&](auto mr, int64_t r, int64_t n) {
    float_rows<decltype(mr)::value>(ap.data(), kp, r, w, n, bias, y);
  });
}

}  // namespace

BlockMatmulIsa best_block_matmul_isa() {
  static const bool avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512vnni");
  return avx512 ? BlockMatmulIsa::kAvx512 : BlockMatmulIsa::kScalar;
}

std::string_view isa_name(BlockMatmulIsa isa) {
  return isa == BlockMatmulIsa::kAvx512 ? "avx512_vnni" : "scalar";
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

void block_quantized_matmul(const float* a, int64_t m, const BlockQuantizedMatrix& w,
                            const float* bias, float* y, ActivationArithmetic arithmetic,
                            int threads, BlockMatmulIsa isa) {
  // The AVX-512 float path walks blocks in steps of 16 elements.
  if (isa == BlockMatmulIsa::kAvx512 && w.block % 16 == 0) {
    avx512_matmul(a, m, w, bias, y, arithmetic, threads);
  } else {
    scalar_matmul(a, m, w, bias, y, arithmetic, threads);
  }
}

}  // namespace wnn::kernels
