// wnn's own implementation of the pthreadpool C API (<pthreadpool.h>) on the OpenMP team, so
// XNNPACK's parallel loops run on the same workers as oneDNN and the reference kernels (issue 9:
// one pool per process). The functions themselves are the extern "C" pthreadpool_* symbols
// defined in openmp_pthreadpool.cc: the executable's definitions come first in symbol lookup,
// so libXNNPACK.so.0's imports bind to them although it still NEEDs libpthreadpool.so.0.
#pragma once

#include <cstdint>

namespace wnn::runtime::xnnpack {

// How many pthreadpool_parallelize_* calls (and legacy pthreadpool_compute_* calls) reached
// wnn's implementation in this process: the proof that XNNPACK's calls are interposed.
uint64_t openmp_pthreadpool_calls();

}  // namespace wnn::runtime::xnnpack
