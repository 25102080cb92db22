#include "wnn/kernels/kernel_context.h"

#include <algorithm>

namespace wnn::kernels {

namespace {

// Per thread: Session::run may be called from several threads at once.
thread_local KernelContext current;

}  // namespace

int kernel_thread_budget() { return current.threads; }

bool kernel_input_is_constant(size_t i) {
  return i < 64 && (current.constant_inputs >> i & 1) != 0;
}

ScopedKernelContext::ScopedKernelContext(KernelContext context) : saved_(current) {
  context.threads = std::max(context.threads, 1);
  current = context;
}

ScopedKernelContext::~ScopedKernelContext() { current = saved_; }

}  // namespace wnn::kernels
