// Real-to-complex FFTs through FFTW (single precision) for the reference kernels: buffers with
// the alignment FFTW's plans assume, and one r2c/c2r plan pair per length, made once. Internal to
// the kernels module (only it sees fftw3.h's include path).
#pragma once

#include <fftw3.h>

#include <cstdint>
#include <memory>

namespace wnn::kernels {

// The first n' >= n of the form 2^a 3^b 5^c, which FFTW transforms fastest.
int64_t next_fast_fft_size(int64_t n);

// Executing a plan on other arrays than it was made with needs the alignment fftwf_malloc gives.
struct FftwFree {
  void operator()(void* p) const { fftwf_free(p); }
};
using RealBuffer = std::unique_ptr<float, FftwFree>;
using ComplexBuffer = std::unique_ptr<fftwf_complex, FftwFree>;
RealBuffer real_buffer(int64_t n);
ComplexBuffer complex_buffer(int64_t n);

// Out-of-place transforms of `length` reals to length / 2 + 1 bins and back (unnormalised).
struct RealFftPlans {
  fftwf_plan forward, inverse;
};

// The plans of `length`, made with FFTW_ESTIMATE on first use under a mutex (planning is not
// thread-safe; executing with fftwf_execute_dft_r2c/c2r is). They live for the process.
const RealFftPlans& real_fft_plans(int64_t length);

}  // namespace wnn::kernels
