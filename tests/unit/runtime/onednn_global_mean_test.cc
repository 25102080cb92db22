// reduceMean over axes [2, 3] of a rank-4 tensor runs as a whole-window average pooling in the
// layout a conv left its input in, with and without the kept unit dims, and equals the
// reference kernels' mean.
#include <gtest/gtest.h>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::kernel_labels;
using testing::seeded;
using Ints = std::vector<int64_t>;

// conv (19 channels, so no blocked layout divides them; 32 channels, which blocks evenly) then
// the spatial mean, as a graph output and read by a gemm. With `depthwise`, a depthwise conv
// follows the first, so the region is planned blocked (layout_plan.h) and the mean reads
// nChw16c (or nChw8c) directly.
std::shared_ptr<const Graph> conv_then_mean(int64_t channels, bool keep, Ints axes,
                                            bool depthwise) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, Shape{1, 5, 6, 9}});
  auto y = b.add1(OpKind::kConv2d, {x, b.constant("w", seeded({channels, 5, 3, 3}, 1))});
  if (depthwise) {
    y = b.add1(OpKind::kConv2d, {y, b.constant("dw", seeded({channels, 1, 3, 3}, 5))},
               {{"groups", channels}, {"padding", Ints{1, 1, 1, 1}}});
  }
  const auto mean =
      b.add1(OpKind::kReduceMean, {y}, {{"axes", axes}, {"keepDimensions", keep}}, "mean");
  b.output(mean);
  const auto flat = keep ? b.add1(OpKind::kReshape, {mean, Ints{1, channels}}) : mean;
  b.output(b.add1(OpKind::kGemm, {flat, b.constant("fc", seeded({channels, 3}, 2))}, {}, "logits"));
  return g;
}

TEST(OnednnGlobalMean, SpatialMeanAfterConvMatchesReference) {
  const Tensor x = seeded({1, 5, 6, 9}, 3);
  const std::vector<NamedView> in = {{"x", x.view()}};
  for (bool depthwise : {false, true}) {
    for (int64_t channels : {19, 32}) {
      for (bool keep : {true, false}) {
        for (const Ints& axes : {Ints{2, 3}, Ints{3, 2}}) {
          SCOPED_TRACE(::testing::Message()
                       << channels << " channels, keep " << keep << ", depthwise " << depthwise);
          const auto g = conv_then_mean(channels, keep, axes, depthwise);
          expect_same_as_reference(g, in);
          // The mean reads the conv's layout directly: no reorder between them.
          const auto labels = kernel_labels(g, in);
          testing::expect_no_reorders_between(
              labels, depthwise ? "conv2d 'conv2d_1'" : "conv2d 'conv2d'", "reduceMean 'mean'");
          // NHWC's [1, C, 1, 1] is row-major already: not even the region output is copied. A
          // blocked region's pooling writes nChw16c (oneDNN has only a reference kernel from
          // blocked to row-major), copied out once per reader: C floats.
          if (!depthwise) {
            for (const auto& label : labels) {
              EXPECT_NE(label, "reorder for reduceMean 'mean'") << ::testing::PrintToString(labels);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace wnn::runtime
