// How many threads one oneDNN kernel runs on. Handing a kernel to the OpenMP workers costs
// about a microsecond while they spin between kernels, and 100-165 us once they sleep
// (runtime/thread_waiting.h). A kernel whose estimated single-thread time is below what the
// hand-off is worth runs on the calling thread alone.
#pragma once

#include "wnn/core/graph.h"

namespace wnn::runtime::onednn {

// Estimated single-thread microseconds of a kernel doing `flops` arithmetic over `bytes` of
// operands.
double estimated_us(double flops, double bytes);

// Bytes a node reads and writes (its operands, constants included).
double node_bytes(const Graph& graph, const Node& node);

// `threads` if a kernel estimated at `us` single-thread microseconds is worth handing to the
// workers, else 1. The threshold defaults to kMinParallelUsSpinning when the workers spin
// between kernels and kMinParallelUs when they sleep; the environment variable
// WNN_ONEDNN_PARALLEL_MIN_US overrides it (0: every kernel on all threads, as before), for
// measuring on a given machine.
int kernel_threads(double us, int threads);

// The threshold kernel_threads() applies, read once per process.
double min_parallel_us();

inline constexpr double kMinParallelUs = 200;
inline constexpr double kMinParallelUsSpinning = 20;

}  // namespace wnn::runtime::onednn
