// How many OpenMP threads a reference kernel may use. The reference kernels are single-threaded
// loops except where a kernel is the fast path for a shape no delegate takes (the FFT
// convolution, conv_fft.h); those read the count the session granted the calling thread for
// the node it runs. Constant folding and import-time evaluation run with the default of 1.
#pragma once

namespace wnn::kernels {

// The count granted to the calling thread: 1 unless a ScopedKernelThreads says more.
int kernel_thread_budget();

// Grants `threads` to the reference kernels run on this thread while it lives.
class ScopedKernelThreads {
 public:
  explicit ScopedKernelThreads(int threads);
  ~ScopedKernelThreads();
  ScopedKernelThreads(const ScopedKernelThreads&) = delete;
  ScopedKernelThreads& operator=(const ScopedKernelThreads&) = delete;

 private:
  int saved_;
};

}  // namespace wnn::kernels
