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

// Whether input `i` (in the node's input order) of the node the calling thread runs is a graph
// constant: false unless a ScopedConstantInputs says so.
bool kernel_input_is_constant(size_t i);

// Marks inputs as constants (bit i for input i; inputs past 63 are never marked) for the
// reference kernels run on this thread while it lives.
class ScopedConstantInputs {
 public:
  explicit ScopedConstantInputs(uint64_t mask);
  ~ScopedConstantInputs();
  ScopedConstantInputs(const ScopedConstantInputs&) = delete;
  ScopedConstantInputs& operator=(const ScopedConstantInputs&) = delete;

 private:
  uint64_t saved_;
};

}  // namespace wnn::kernels
