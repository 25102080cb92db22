// Linear resample2d inside a oneDNN region: a step of wnn's own over the layout the producer
// left (a blocked region's channel blocks, padded when the channels are not whole blocks;
// channels-last; row-major), giving the reference kernel's bits, so a tf2onnx or PyTorch
// decoder (conv, resize, conv) stays one region. Each case compares the resampled output bit
// for bit with the reference kernel run on the region's own pre-resample value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::kernel_labels;
using testing::seeded;
using Options = std::vector<std::pair<std::string, RawValue>>;

OperandId conv(GraphBuilder& b, OperandId x, Shape filter, uint32_t seed, Options extra = {}) {
  return b.add1(OpKind::kConv2d, {x, b.constant("w" + std::to_string(seed), seeded(filter, seed))},
                std::move(extra));
}

struct Decoder {
  std::shared_ptr<const Graph> graph;
  uint32_t resample = 0;  // the resample2d node's index
  Options options;        // its options
};

// x -> [producer] -> "t" -> resample2d(options) -> "r" -> 1x1 conv + relu -> "y"; t, r and y
// are outputs. `producer` builds what feeds the resample from x.
template <class Producer>
Decoder decoder(Shape x_shape, Producer producer, Options resample, int64_t channels) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, std::move(x_shape)});
  const auto t = producer(b, x);
  const uint32_t at = uint32_t(g->nodes().size());
  const auto r = b.add1(OpKind::kResample2d, {t}, resample, "r");
  const auto y = b.add1(OpKind::kRelu, {conv(b, r, {5, channels, 1, 1}, 9)}, {}, "y");
  b.output(t);
  b.output(r);
  b.output(y);
  return {g, at, std::move(resample)};
}

// The decoder on oneDNN (1 and 2 threads): one region, no layout conversion for the resample,
// and its output equal bit for bit to the reference kernel's resampling of the region's "t".
void expect_resampled_in_region(const Decoder& d, const Shape& x_shape, uint32_t seed) {
  const Tensor x = seeded(x_shape, seed);
  const std::vector<NamedView> in{{"x", x.view()}};
  // Kernels run in order: no layout conversion for the resample before it (after it, "r" is
  // written out row-major as a region output).
  const auto labels = kernel_labels(d.graph, in);
  const auto step = std::find(labels.begin(), labels.end(), "resample2d 'r'");
  ASSERT_NE(step, labels.end()) << ::testing::PrintToString(labels);
  EXPECT_EQ(std::find(labels.begin(), step, "reorder for resample2d 'r'"), step)
      << ::testing::PrintToString(labels);
  for (int threads : {1, 2}) {
    const Session s(d.graph, {"onednn", threads, true, false});
    const auto& part = s.execution_plan().partition;
    ASSERT_GE(part.region_of[d.resample], 0) << part.ref_reason[d.resample];
    EXPECT_EQ(part.regions.size(), 1u);
    const auto got = s.run(in);
    ASSERT_EQ(got.size(), 3u);
    // The reference kernel on the same input: a graph of the resample2d alone.
    auto alone = std::make_shared<Graph>();
    GraphBuilder b(*alone);
    const auto t = b.input("t", {DataType::kFloat32, got[0].tensor.shape});
    b.output(b.add1(OpKind::kResample2d, {t}, d.options, "r"));
    const auto want =
        Session(alone, {"ref", 1}).run(std::vector<NamedView>{{"t", got[0].tensor.view()}});
    ASSERT_EQ(want[0].tensor.shape, got[1].tensor.shape);
    const float* a = got[1].tensor.view().as<float>();
    const float* r = want[0].tensor.view().as<float>();
    for (int64_t i = 0; i < got[1].tensor.size(); ++i) {
      ASSERT_EQ(std::memcmp(&a[i], &r[i], sizeof(float)), 0)
          << "threads " << threads << " at " << i << ": " << a[i] << " vs " << r[i];
    }
  }
}

Options linear(Options extra) {
  extra.emplace_back("mode", "linear");
  return extra;
}

TEST(OnednnResample, LinearAfterBlockedDepthwiseConvOnPaddedChannelBlocks) {
  // 20 channels (a padded 16-lane block), 9x7 pixels; scales 2 and 1.5 (7 * 1.5 = 10.5: the
  // scale, not the size ratio, places the samples).
  const Shape xs{1, 3, 9, 7};
  const auto d = decoder(
      xs,
      [](GraphBuilder& b, OperandId x) {
        const auto c = conv(b, x, {20, 3, 3, 3}, 1, {{"padding", IntList{1, 1, 1, 1}}});
        return conv(b, c, {20, 1, 3, 3}, 2,
                    {{"groups", int64_t(20)}, {"padding", IntList{1, 1, 1, 1}}});
      },
      linear({{"scales", FloatList{2.0, 1.5}}}), 20);
  expect_resampled_in_region(d, xs, 3);
}

TEST(OnednnResample, LinearByOutputSizesAfterADenseConv) {
  // A dense conv alone (the region keeps each primitive's layout, channels-last on AVX-512),
  // 32 channels: whole vectors, downsampled to 4x3 by sizes.
  const Shape xs{1, 5, 8, 6};
  const auto d = decoder(
      xs,
      [](GraphBuilder& b, OperandId x) {
        return conv(b, x, {32, 5, 1, 1}, 4);
      },
      linear({{"sizes", IntList{4, 3}}}), 32);
  expect_resampled_in_region(d, xs, 5);
}

TEST(OnednnResample, LinearOfARowMajorValueOnOneAxis) {
  // A region input resampled as it is, row-major NCHW: a unit scale on the height and 3 on
  // the width.
  const Shape xs{2, 3, 5, 4};
  const auto d = decoder(
      xs, [](GraphBuilder& b, OperandId x) { return b.add1(OpKind::kNeg, {x}); },
      linear({{"scales", FloatList{1.0, 3.0}}}), 3);
  expect_resampled_in_region(d, xs, 6);
}

TEST(OnednnResample, LinearOnNhwcAndReversedAxes) {
  // WebNN NHWC (axes [1, 2]: 17 channels contiguous, a vector and a tail) and axes [2, 1]
  // (height and width swapped in the scales).
  for (const IntList& axes : {IntList{1, 2}, IntList{2, 1}}) {
    const Shape xs{1, 6, 5, 17};
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, xs});
    const auto t = b.add1(OpKind::kNeg, {x}, {}, "t");
    const uint32_t at = uint32_t(g->nodes().size());
    const Options options = linear({{"scales", FloatList{2.0, 0.5}}, {"axes", axes}});
    const auto r = b.add1(OpKind::kResample2d, {t}, options, "r");
    const auto y = b.add1(OpKind::kSigmoid, {r}, {}, "y");
    b.output(t);
    b.output(r);
    b.output(y);
    expect_resampled_in_region({g, at, options}, xs, 7);
  }
}

}  // namespace
}  // namespace wnn::runtime
