// The pthreadpool handle XNNPACK's runtimes are created with. The pthreadpool API is wnn's own
// (openmp_pthreadpool.h): a pool is only a thread count, and every parallel loop XNNPACK hands
// it runs on the calling thread's OpenMP team, the same workers oneDNN and the reference kernels
// use, so the process has one set of workers and none of them spins while another pool works
// (issue 9: one pool per process).
#pragma once

#include <memory>

struct pthreadpool;

namespace wnn::runtime::xnnpack {

// The shared handle for `threads` workers, created on first use and destroyed with its last
// holder, so every XNNPACK region of every session with one thread count holds the same one;
// null for one thread (XNNPACK then runs on the calling thread). Runs from several application
// threads at once stay correct: each opens its own OpenMP team (openmp_pthreadpool.cc says why
// no mutex is needed). When libXNNPACK.so.0 was loaded and bound before wnn's definitions
// existed (the Python module imported after torch), the pool is libpthreadpool's own instead.
std::shared_ptr<pthreadpool> shared_pool(int threads);

}  // namespace wnn::runtime::xnnpack
