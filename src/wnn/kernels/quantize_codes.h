// DynamicQuantizeLinear's codes over a contiguous float32 array, as the graph form writes them:
// y = uint8(clamp(roundEven(x / scale) + zero_point, 0, 255)), the same float32 operations in
// the same order (the quotient, rounding half to even, the add, the clamp; NaN gives 0).
// Vectorized (sixteen lanes, AVX-512/AVX2/baseline picked at load time) with the scalar loop
// as its definition: quantize_codes_test.cc checks that both give the same bytes.
#pragma once

#include <cstdint>

namespace wnn::kernels {

// The scalar definition, one element.
inline uint8_t quantize_code(float x, float scale, float zero_point) {
  float v = x / scale;
  // Half to even by adding and subtracting 2^23 with the value's sign: exact for |v| < 2^23,
  // larger magnitudes being integers already (the build does not reassociate floats).
  if (v < 0x1p23f && v > -0x1p23f) {
    const float m = v < 0 ? -0x1p23f : 0x1p23f;
    v = (v + m) - m;
  }
  v = v + zero_point;
  return v > 0 ? uint8_t(v < 255 ? v : 255.0f) : uint8_t(0);
}

// y[i] = quantize_code(x[i], scale, zero_point) for i < n.
void quantize_codes_scalar(const float* x, int64_t n, float scale, float zero_point, uint8_t* y);
void quantize_codes(const float* x, int64_t n, float scale, float zero_point, uint8_t* y);

}  // namespace wnn::kernels
