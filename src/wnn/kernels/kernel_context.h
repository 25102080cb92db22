// What the session tells a reference kernel about the node it runs, per calling thread
// (Session::run may be called from several threads at once):
// - how many OpenMP threads it may use. The reference kernels are single-threaded loops except
//   where a kernel is the fast path for a shape no delegate takes (the FFT convolution,
//   conv_fft.h); those read the count the session granted. Constant folding and import-time
//   evaluation run with the default of 1;
// - which of its inputs are graph constants, whose bytes never change while their address
//   lives, so a kernel may keep data derived from them across calls (conv_fft.cc's filter
//   spectra). Anything else may change between calls at the same address (a caller's input
//   buffer refilled in place), and nothing is said outside a session run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wnn::kernels {

// What the calling thread's reference kernels may assume about the node they run.
struct KernelContext {
  int threads = 1;               // OpenMP threads it may use
  uint64_t constant_inputs = 0;  // bit i: input i (in the node's input order; i < 64) is a constant
};

// The count granted to the calling thread: 1 unless a ScopedKernelContext says more.
int kernel_thread_budget();
// Whether input `i` of the node the calling thread runs is a graph constant: false unless a
// ScopedKernelContext says so.
bool kernel_input_is_constant(size_t i);

// Sets the calling thread's context while it lives.
class ScopedKernelContext {
 public:
  explicit ScopedKernelContext(KernelContext context);
  ~ScopedKernelContext();
  ScopedKernelContext(const ScopedKernelContext&) = delete;
  ScopedKernelContext& operator=(const ScopedKernelContext&) = delete;

 private:
  KernelContext saved_;
};

}  // namespace wnn::kernels
