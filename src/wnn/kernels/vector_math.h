// exp, sigmoid, tanh and relu over contiguous float32 arrays, in place, vectorized (sixteen
// lanes per step, AVX-512/AVX2/baseline picked at load time). For kernels that apply an
// activation to whole gate blocks (recurrent_float32.cc) instead of calling std::exp per element.
//
// Accuracy, against the correctly rounded result (vector_math_test.cc sweeps it): exp within
// 2 ulp, sigmoid within 4 ulp, tanh within 2 ulp (tanh relative to its value also near 0), over
// all finite inputs, subnormal results included (counted in units of 2^-149). NaN stays NaN; exp(-inf)
// = 0, exp(inf) = inf, sigmoid(-inf) = 0, sigmoid(inf) = 1, tanh(+-inf) = +-1, tanh(-0) = -0.
#pragma once

#include <cstdint>

namespace wnn::kernels {

void exp_float32(float* values, int64_t n);
void sigmoid_float32(float* values, int64_t n);
void tanh_float32(float* values, int64_t n);
void relu_float32(float* values, int64_t n);

}  // namespace wnn::kernels
