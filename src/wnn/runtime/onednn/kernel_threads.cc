#include "wnn/runtime/onednn/kernel_threads.h"

#include <cstdlib>
#include <string>

#include "wnn/core/error.h"
#include "wnn/runtime/thread_waiting.h"

namespace wnn::runtime::onednn {

namespace {

// Single-thread rates measured on shufflenet_v2_x0_5's kernels (wnn bench --profile
// --threads 1): its 1x1 and 3x3 convs run at 57-100 GFLOP/s, reorders and concats of
// 50-200 KB move about 10 GB/s including their fixed cost.
constexpr double kFlopsPerUs = 60e3;
constexpr double kBytesPerUs = 10e3;

}  // namespace

double min_parallel_us() {
  static const double value = [] {
    const char* env = std::getenv("WNN_ONEDNN_PARALLEL_MIN_US");
    if (env == nullptr || *env == '\0') {
      return openmp_workers_spin(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"))
                 ? kMinParallelUsSpinning
                 : kMinParallelUs;
    }
    size_t used = 0;
    double v = -1;
    try {
      v = std::stod(env, &used);
    } catch (const std::exception&) {
    }
    check(used == std::string(env).size() && v >= 0,
          "WNN_ONEDNN_PARALLEL_MIN_US='{}': expected a number of microseconds >= 0", env);
    return v;
  }();
  return value;
}

double estimated_us(double flops, double bytes) {
  return flops / kFlopsPerUs + bytes / kBytesPerUs;
}

double node_bytes(const Graph& graph, const Node& node) {
  double bytes = 0;
  for (const auto& ids : {node.inputs, node.outputs}) {
    for (OperandId id : ids) bytes += double(graph.desc(id).byte_size());
  }
  return bytes;
}

int kernel_threads(double us, int threads) {
  return threads > 1 && us < min_parallel_us() ? 1 : threads;
}

}  // namespace wnn::runtime::onednn
