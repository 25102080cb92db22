#include "wnn/kernels/kernel_context.h"

#include <algorithm>

namespace wnn::kernels {

namespace {

// Per thread: Session::run may be called from several threads at once.
thread_local int budget = 1;
thread_local uint64_t constant_inputs = 0;

}  // namespace

int kernel_thread_budget() { return budget; }

ScopedKernelThreads::ScopedKernelThreads(int threads) : saved_(budget) {
  budget = std::max(threads, 1);
}

ScopedKernelThreads::~ScopedKernelThreads() { budget = saved_; }

bool kernel_input_is_constant(size_t i) { return i < 64 && (constant_inputs >> i & 1) != 0; }

ScopedConstantInputs::ScopedConstantInputs(uint64_t mask) : saved_(constant_inputs) {
  constant_inputs = mask;
}

ScopedConstantInputs::~ScopedConstantInputs() { constant_inputs = saved_; }

}  // namespace wnn::kernels
