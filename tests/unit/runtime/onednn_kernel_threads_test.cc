// Small oneDNN kernels run on the calling thread alone (handing them to the OpenMP workers costs
// more than they take); large ones on every thread. Both kinds in one region must agree with
// the reference kernels.
#include "wnn/runtime/onednn/kernel_threads.h"

#include <gtest/gtest.h>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/profile.h"
#include "wnn/runtime/thread_waiting.h"

namespace wnn::runtime {
namespace {

using onednn::estimated_us;
using onednn::kernel_threads;
using onednn::kMinParallelUs;
using testing::expect_same_as_reference;
using testing::seeded;
using Ints = std::vector<int64_t>;

TEST(OnednnKernelThreads, EstimateAddsArithmeticAndMemoryTime) {
  // 60 GFLOP/s and 10 GB/s on one thread: 6 MFLOP is 100 us, 1 MB is 100 us.
  EXPECT_DOUBLE_EQ(estimated_us(6e6, 0), 100.0);
  EXPECT_DOUBLE_EQ(estimated_us(0, 1e6), 100.0);
  EXPECT_DOUBLE_EQ(estimated_us(3e6, 5e5), 100.0);
  EXPECT_DOUBLE_EQ(estimated_us(0, 0), 0.0);
}

TEST(OnednnKernelThreads, ThresholdFollowsHowTheWorkersWait) {
  if (std::getenv("WNN_ONEDNN_PARALLEL_MIN_US") != nullptr) GTEST_SKIP() << "threshold overridden";
  const bool spin =
      openmp_workers_spin(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"));
  EXPECT_EQ(onednn::min_parallel_us(), spin ? onednn::kMinParallelUsSpinning : kMinParallelUs);
  EXPECT_LT(onednn::kMinParallelUsSpinning, kMinParallelUs);
}

TEST(OnednnKernelThreads, OnlyKernelsAboveTheThresholdUseEveryThread) {
  const double threshold = onednn::min_parallel_us();
  EXPECT_EQ(kernel_threads(0, 2), threshold > 0 ? 1 : 2);
  EXPECT_EQ(kernel_threads(threshold - 1, 4), threshold > 0 ? 1 : 4);
  EXPECT_EQ(kernel_threads(threshold, 4), 4);
  EXPECT_EQ(kernel_threads(1e6, 2), 2);
  EXPECT_EQ(kernel_threads(1e6, 1), 1);
  EXPECT_EQ(kernel_threads(0, 1), 1);
}

// A small 1x1 conv (single-threaded), a 3x3 conv of 2*32*32*9*30*30 = 16.6 MFLOP (about 280
// us estimated: every thread), then a small relu and reshape: the team size changes between
// kernels of one run.
TEST(OnednnKernelThreads, SmallAndLargeKernelsInOneRegionMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, Shape{1, 3, 30, 30}});
  const auto narrow = b.add1(OpKind::kConv2d, {x, b.constant("w0", seeded({32, 3, 1, 1}, 1))});
  const auto wide = b.add1(OpKind::kConv2d, {narrow, b.constant("w1", seeded({32, 32, 3, 3}, 2))},
                           {{"padding", Ints{1, 1, 1, 1}}}, "wide");
  EXPECT_GT(estimated_us(node_flops(*g, g->nodes()[1]), 0), kMinParallelUs);
  const auto small = b.add1(OpKind::kConv2d, {wide, b.constant("w2", seeded({5, 32, 1, 1}, 3))});
  b.output(b.add1(OpKind::kReshape, {b.add1(OpKind::kTanh, {small}), Ints{5, 900}}, {}, "y"));
  const Tensor xv = seeded({1, 3, 30, 30}, 4);
  expect_same_as_reference(g, {{"x", xv.view()}});
}

}  // namespace
}  // namespace wnn::runtime
