// Sixteen-lane float32 vectors (GCC vector extensions) for the hand-vectorized float32 kernels
// (vector_math.cc, recurrent_float32.cc). The code is written once over F32x16; functions
// marked WNN_SIMD_CLONES are compiled for AVX-512, AVX2 and baseline x86-64 and picked at load
// time, and everything they call is WNN_SIMD_INLINE so it is compiled for the same target.
#pragma once

#include <cstdint>
#include <cstring>

namespace wnn::kernels::simd {

// GCC warns that passing F32x16 by value differs between targets; every function taking one is
// WNN_SIMD_INLINE into a caller of a single target, so no call ever crosses that boundary.
#pragma GCC diagnostic ignored "-Wpsabi"

// fp-contract=fast: the project builds in ISO mode (no contraction), and the polynomials and dot
// products here want fused multiply-adds where the target has them. Clang (only the sanitizer
// and fuzzing builds use it) rejects 64-byte vectors crossing calls in an AVX2 clone, so there
// the code is compiled once for the baseline target: correct, not fast.
#if defined(__clang__)
#define WNN_SIMD_CLONES
#else
#define WNN_SIMD_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3", "fp-contract=fast")))
#endif
#define WNN_SIMD_INLINE __attribute__((always_inline)) inline

constexpr int kLanes = 16;
typedef float F32x16 __attribute__((vector_size(64)));
typedef int32_t I32x16 __attribute__((vector_size(64)));
// Unaligned element access: the same vector with 4-byte alignment, for loads and stores.
typedef float F32x16Unaligned __attribute__((vector_size(64), aligned(4)));

WNN_SIMD_INLINE F32x16 load(const float* p) { return *reinterpret_cast<const F32x16Unaligned*>(p); }
WNN_SIMD_INLINE void store(float* p, F32x16 v) { *reinterpret_cast<F32x16Unaligned*>(p) = v; }
// Every lane v, as one broadcast: `F32x16{} + v` costs a scalar add first (0 + v is not v
// for v = -0), once per splat in the inner loops.
WNN_SIMD_INLINE F32x16 splat(float v) {
  const F32x16 first = {v};
  return __builtin_shufflevector(first, first, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

// The first n < kLanes elements, the other lanes zero (a loop tail).
WNN_SIMD_INLINE F32x16 load_partial(const float* p, int64_t n) {
  float lanes[kLanes] = {};
  std::memcpy(lanes, p, size_t(n) * sizeof(float));
  return load(lanes);
}
WNN_SIMD_INLINE void store_partial(float* p, F32x16 v, int64_t n) {
  float lanes[kLanes];
  store(lanes, v);
  std::memcpy(p, lanes, size_t(n) * sizeof(float));
}

// a . b over n elements, sixteen lanes at a time, then a tree of halves (four dependent adds
// instead of sixteen).
WNN_SIMD_INLINE float dot(const float* a, const float* b, int64_t n) {
  F32x16 acc{};
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) acc += load(a + c) * load(b + c);
  if (c < n) acc += load_partial(a + c, n - c) * load_partial(b + c, n - c);
  typedef float F32x8 __attribute__((vector_size(32)));
  typedef float F32x4 __attribute__((vector_size(16)));
  const F32x8 h8 = __builtin_shufflevector(acc, acc, 0, 1, 2, 3, 4, 5, 6, 7) +
                   __builtin_shufflevector(acc, acc, 8, 9, 10, 11, 12, 13, 14, 15);
  const F32x4 h4 =
      __builtin_shufflevector(h8, h8, 0, 1, 2, 3) + __builtin_shufflevector(h8, h8, 4, 5, 6, 7);
  return (h4[0] + h4[2]) + (h4[1] + h4[3]);
}

WNN_SIMD_INLINE I32x16 as_int(F32x16 v) {
  I32x16 r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}
WNN_SIMD_INLINE F32x16 as_float(I32x16 v) {
  F32x16 r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

WNN_SIMD_INLINE F32x16 abs(F32x16 v) { return as_float(as_int(v) & 0x7fffffff); }

// Lane-wise min/max that keep a NaN in x (a comparison with NaN is false).
WNN_SIMD_INLINE F32x16 clamp_keeping_nan(F32x16 x, float lo, float hi) {
  x = x < lo ? splat(lo) : x;
  return x > hi ? splat(hi) : x;
}

}  // namespace wnn::kernels::simd
