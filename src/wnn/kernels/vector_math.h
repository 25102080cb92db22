// exp, sigmoid, tanh and relu over contiguous float32 arrays, in place, vectorized (sixteen
// lanes per step, AVX-512/AVX2/baseline picked at load time). For kernels that apply an
// activation to whole gate blocks (recurrent_float32.cc) instead of calling std::exp per element.
//
// Accuracy, against the correctly rounded result: exp within 2 ulp, sigmoid within 4 ulp, tanh
// within 2 ulp (relative to its value also near 0), subnormal results included (counted in units
// of 2^-149); vector_math_test.cc checks it on 13 million inputs across every exponent (on the
// AVX-512 clone here; the AVX2 and baseline code, without FMA, met the same bounds built alone).
// NaN stays NaN; exp(-inf) = 0, exp(inf) = inf, sigmoid(-inf) = 0, sigmoid(inf) = 1,
// tanh(+-inf) = +-1, tanh(-0) = -0.
#pragma once

#include <cstdint>

namespace wnn::kernels {

void exp_float32(float* values, int64_t n);
void sigmoid_float32(float* values, int64_t n);
void tanh_float32(float* values, int64_t n);
void relu_float32(float* values, int64_t n);

}  // namespace wnn::kernels
