#include "wnn/kernels/decoder_elementwise.h"

#include <algorithm>
#include <cmath>

#include "wnn/kernels/simd_float32.h"
#include "wnn/kernels/vector_math.h"

namespace wnn::kernels {

namespace {

using simd::F32x16;
using simd::kLanes;

// out = x / rms * gamma over n columns: the graph's div, then its mul.
WNN_SIMD_CLONES void scale_row(const float* x, float rms, const float* gamma, int64_t n,
                               float* out) {
  const F32x16 r = simd::splat(rms);
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    simd::store(out + c, simd::load(x + c) / r * simd::load(gamma + c));
  }
  if (c < n) {
    simd::store_partial(out + c,
                        simd::load_partial(x + c, n - c) / r * simd::load_partial(gamma + c, n - c),
                        n - c);
  }
}

WNN_SIMD_CLONES float sum_of_squares(const float* x, int64_t n) { return simd::dot(x, x, n); }

WNN_SIMD_CLONES void add_rows(const float* a, const float* b, int64_t n, float* out) {
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) simd::store(out + c, simd::load(a + c) + simd::load(b + c));
  if (c < n) {
    simd::store_partial(out + c,
                        simd::load_partial(a + c, n - c) + simd::load_partial(b + c, n - c), n - c);
  }
}

WNN_SIMD_CLONES void gate_times_up(const float* gate, const float* sig, const float* up, int64_t n,
                                   float* out) {
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    simd::store(out + c, simd::load(gate + c) * simd::load(sig + c) * simd::load(up + c));
  }
  for (; c < n; ++c) out[c] = gate[c] * sig[c] * up[c];
}

}  // namespace

void rms_norm(const float* a, const float* residual, float* sum, const float* gamma, float epsilon,
              int64_t rows, int64_t hidden, float* y, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && rows > 1)
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = a + r * hidden;
    if (residual) {
      add_rows(x, residual + r * hidden, hidden, sum + r * hidden);
      x = sum + r * hidden;
    }
    const float mean = sum_of_squares(x, hidden) / float(hidden);
    scale_row(x, std::sqrt(mean + epsilon), gamma, hidden, y + r * hidden);
  }
}

void silu_mul(const float* gate, const float* up, int64_t n, float* y, int threads) {
  // In chunks, so the sigmoids stay in cache and y may alias either input.
  constexpr int64_t kChunk = 1024;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && chunks >= 8)
  for (int64_t i = 0; i < chunks; ++i) {
    float sig[kChunk];
    const int64_t at = i * kChunk;
    const int64_t len = std::min(kChunk, n - at);
    std::copy(gate + at, gate + at + len, sig);
    sigmoid_float32(sig, len);
    gate_times_up(gate + at, sig, up + at, len, y + at);
  }
}

}  // namespace wnn::kernels
