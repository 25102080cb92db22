// How many threads one oneDNN kernel runs on. The OpenMP workers sleep between kernels
// (OMP_WAIT_POLICY=PASSIVE, docs/benchmarks.md), and on an otherwise idle machine waking them
// costs about 100-165 us per kernel, more than most kernels of a small convnet take on one
// thread. A kernel whose estimated single-thread time is below that runs on the calling thread
// alone, so it never wakes a worker.
#pragma once

#include "wnn/core/graph.h"

namespace wnn::runtime::onednn {

// Estimated single-thread microseconds of a kernel doing `flops` arithmetic over `bytes` of
// operands.
double estimated_us(double flops, double bytes);

// Bytes a node reads and writes (its operands, constants included).
double node_bytes(const Graph& graph, const Node& node);

// `threads` if a kernel estimated at `us` single-thread microseconds is worth waking the
// workers for, else 1. The threshold defaults to kMinParallelUs; the environment variable
// WNN_ONEDNN_PARALLEL_MIN_US overrides it (0: every kernel on all threads, as before), for
// measuring on a given machine.
int kernel_threads(double us, int threads);

inline constexpr double kMinParallelUs = 200;

}  // namespace wnn::runtime::onednn
