// The process's pthreadpool for XNNPACK: every XNNPACK region of every session with the same
// thread count runs on one pool, so a graph split into several XNNPACK regions never brings up
// pools of its own that would spin against each other (issue 9: one pool per process).
#pragma once

#include <memory>

struct pthreadpool;

namespace wnn::runtime::xnnpack {

// The shared pool for `threads` workers, created on first use and destroyed with its last
// holder; null for one thread (XNNPACK then runs on the calling thread). pthreadpool serialises
// parallel calls on one pool, so regions run from several threads at once stay correct.
std::shared_ptr<pthreadpool> shared_pool(int threads);

}  // namespace wnn::runtime::xnnpack
