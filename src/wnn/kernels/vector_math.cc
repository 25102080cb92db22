// exp is simd::exp16 (simd_exp.h). tanh: near zero 1 - 2 / (e^2x + 1)
// cancels, so |x| < 0.625 uses an odd polynomial x + x^3 p(x^2) (p fitted to tanh(x)/x - 1 by
// least squares at Chebyshev nodes, max error about 1 ulp), larger |x| the exp form, where the
// subtraction loses less than a bit.
#include "wnn/kernels/vector_math.h"

#include "wnn/kernels/simd_exp.h"
#include "wnn/kernels/simd_float32.h"

namespace wnn::kernels {

namespace {

using simd::exp16;
using simd::F32x16;
using simd::I32x16;
using simd::splat;

// With e = exp(-|x|), which cannot overflow: 1 / (1 + e) for x >= 0 and e / (1 + e) below, so
// sigmoid keeps its subnormal tail near x = -100 instead of dividing by an infinite exp(-x).
WNN_SIMD_INLINE F32x16 sigmoid16(F32x16 x) {
  const F32x16 e = exp16(-simd::abs(x));
  const F32x16 s = 1.0f / (1.0f + e);
  return x >= 0.0f ? s : e * s;
}

WNN_SIMD_INLINE F32x16 tanh16(F32x16 x) {
  // Computed on |x|, the sign put back last, so tanh(-0) = -0.
  const I32x16 sign = simd::as_int(x) & int32_t(0x80000000u);
  const F32x16 a = simd::abs(x);
  const F32x16 u = a * a;
  F32x16 p = splat(-0.006104837171733379f);
  p = p * u + 0.02100355364382267f;
  p = p * u - 0.05385247617959976f;
  p = p * u + 0.13332782685756683f;
  p = p * u - 0.333333283662796f;
  const F32x16 small = a + a * (u * p);
  const F32x16 large = 1.0f - 2.0f / (exp16(a + a) + 1.0f);
  return simd::as_float(simd::as_int(a < 0.625f ? small : large) | sign);
}

WNN_SIMD_INLINE F32x16 relu16(F32x16 x) { return x > 0.0f ? x : splat(0.0f); }

enum class Function { kExp, kSigmoid, kTanh, kRelu };

template <Function kFunction>
WNN_SIMD_INLINE F32x16 apply16(F32x16 x) {
  if constexpr (kFunction == Function::kExp) return exp16(x);
  if constexpr (kFunction == Function::kSigmoid) return sigmoid16(x);
  if constexpr (kFunction == Function::kTanh) return tanh16(x);
  if constexpr (kFunction == Function::kRelu) return relu16(x);
}

// Applies the function to values[0, n) in place: four vectors at a time (the polynomials are
// chains of dependent multiply-adds: four independent ones keep the units busy), whole vectors,
// then the tail through a zero-padded one.
template <Function kFunction>
WNN_SIMD_INLINE void map_in_place(float* values, int64_t n) {
  int64_t i = 0;
  for (; i + 4 * simd::kLanes <= n; i += 4 * simd::kLanes) {
    F32x16 v[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) v[j] = apply16<kFunction>(simd::load(values + i + 16 * j));
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) simd::store(values + i + 16 * j, v[j]);
  }
  for (; i + simd::kLanes <= n; i += simd::kLanes) {
    simd::store(values + i, apply16<kFunction>(simd::load(values + i)));
  }
  if (i < n) {
    simd::store_partial(values + i, apply16<kFunction>(simd::load_partial(values + i, n - i)),
                        n - i);
  }
}

}  // namespace

WNN_SIMD_CLONES void exp_float32(float* values, int64_t n) {
  map_in_place<Function::kExp>(values, n);
}
WNN_SIMD_CLONES void sigmoid_float32(float* values, int64_t n) {
  map_in_place<Function::kSigmoid>(values, n);
}
WNN_SIMD_CLONES void tanh_float32(float* values, int64_t n) {
  map_in_place<Function::kTanh>(values, n);
}
WNN_SIMD_CLONES void relu_float32(float* values, int64_t n) {
  map_in_place<Function::kRelu>(values, n);
}

}  // namespace wnn::kernels
