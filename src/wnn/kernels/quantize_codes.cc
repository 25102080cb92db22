#include "wnn/kernels/quantize_codes.h"

#include <cstring>

#include "wnn/kernels/simd_float32.h"

namespace wnn::kernels {

using simd::F32x16;
using simd::I32x16;
using simd::kLanes;

namespace {

typedef uint8_t U8x16 __attribute__((vector_size(16)));

// One comparison per select: GCC 12 compiles a select on two comparisons joined (`&&` or `&`)
// lane by lane in scalar code, 10x slower. |v| < 2^23 is one integer comparison of the bits
// without the sign (NaN's are larger: it stays NaN, and gives 0).
WNN_SIMD_INLINE U8x16 codes_of(F32x16 x, F32x16 scale, F32x16 zero_point) {
  F32x16 v = x / scale;
  const F32x16 big = simd::splat(0x1p23f), zero = simd::splat(0.0f), top = simd::splat(255.0f);
  const F32x16 m = v < zero ? -big : big;
  const F32x16 rounded = (v + m) - m;
  const I32x16 magnitude = simd::as_int(v) & 0x7fffffff;
  v = magnitude < simd::as_int(big) ? rounded : v;
  v = v + zero_point;
  const F32x16 clamped = v > zero ? (v < top ? v : top) : zero;
  return __builtin_convertvector(__builtin_convertvector(clamped, I32x16), U8x16);
}

}  // namespace

void quantize_codes_scalar(const float* x, int64_t n, float scale, float zero_point, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = quantize_code(x[i], scale, zero_point);
}

WNN_SIMD_CLONES void quantize_codes(const float* x, int64_t n, float scale, float zero_point,
                                    uint8_t* y) {
  const F32x16 s = simd::splat(scale), z = simd::splat(zero_point);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const U8x16 c = codes_of(simd::load(x + i), s, z);
    std::memcpy(y + i, &c, sizeof c);
  }
  if (i < n) {
    const U8x16 c = codes_of(simd::load_partial(x + i, n - i), s, z);
    std::memcpy(y + i, &c, size_t(n - i));
  }
}

}  // namespace wnn::kernels
