// exp over sixteen float32 lanes, for the kernels that apply it inside their own loops
// (vector_math.cc's exp_float32 over arrays, the attention kernel's softmax): x = n ln2 + r with
// |r| <= ln2 / 2 (Cody-Waite: ln2 split in a high part with few bits, so n * high is exact),
// e^r by its degree-7 Taylor polynomial (truncation below 0.1 ulp on that range), and 2^n
// applied as two power-of-two factors so results down to the subnormals and up to the overflow
// come out right without special cases.
#pragma once

#include "wnn/kernels/simd_float32.h"

namespace wnn::kernels::simd {

WNN_SIMD_INLINE F32x16 exp16(F32x16 x) {
  // Below -104 the result rounds to 0, above 89 to inf; the clamp keeps n in [-150, 129].
  const F32x16 xc = simd::clamp_keeping_nan(x, -104.0f, 89.0f);
  const F32x16 xn = xc == xc ? xc : splat(0.0f);  // NaN lanes: any n, r stays NaN
  // Round to nearest by adding and removing 1.5 * 2^23 (exact for |v| < 2^22).
  const float kRound = 12582912.0f;
  const F32x16 n = (xn * 1.44269504088896341f + kRound) - kRound;
  const F32x16 r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  F32x16 p = splat(1.0f / 5040);
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const I32x16 ni = __builtin_convertvector(n, I32x16);
  const I32x16 half = ni >> 1;
  const F32x16 scale_a = simd::as_float((half + 127) << 23);
  const F32x16 scale_b = simd::as_float((ni - half + 127) << 23);
  return p * scale_a * scale_b;
}

}  // namespace wnn::kernels::simd
