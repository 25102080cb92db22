#include "wnn/kernels/kernel_threads.h"

#include <algorithm>

namespace wnn::kernels {

namespace {

// Per thread: Session::run may be called from several threads at once.
thread_local int budget = 1;

}  // namespace

int kernel_thread_budget() { return budget; }

ScopedKernelThreads::ScopedKernelThreads(int threads) : saved_(budget) {
  budget = std::max(threads, 1);
}

ScopedKernelThreads::~ScopedKernelThreads() { budget = saved_; }

}  // namespace wnn::kernels
