// A squeeze-and-excitation scale, mul(x, s) with s a computed [1, C, 1, 1] vector, read only by
// a 1x1 conv, is folded into the conv's filter on every run (runtime/onednn/channel_scale.h):
// no mul kernel runs over x. Where the fold does not pay (a filter as large as the activation)
// or is not valid (the scaled value is read elsewhere), the mul runs. Either way the values
// must be what the reference kernels compute.
#include <gtest/gtest.h>

#include <string>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::has_label;
using testing::kernel_labels;
using testing::seeded;
using Ints = std::vector<int64_t>;

enum class Case { kFolded, kScaleFirst, kNhwc, kScaledAlsoOutput, kWideFilter, kResidualBetween };

constexpr int64_t kChannels = 12;

// x = relu(conv3x3(a)) and s = sigmoid(v) are computed in the region; y = mul(x, s) feeds
// z = conv1x1(y) + bias, then relu.
std::shared_ptr<Graph> se_tail(Case c) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const bool nhwc = c == Case::kNhwc;
  const Ints act = nhwc ? Ints{1, 9, 7, 5} : Ints{1, 5, 9, 7};
  const Ints vec = nhwc ? Ints{1, 1, 1, kChannels} : Ints{1, kChannels, 1, 1};
  const std::string in_layout = nhwc ? "nhwc" : "nchw", filter_layout = nhwc ? "ohwi" : "oihw";
  using Named = std::vector<std::pair<std::string, RawValue>>;
  auto conv_attrs = [&](Named more) {
    more.emplace_back("inputLayout", in_layout);
    more.emplace_back("filterLayout", filter_layout);
    return more;
  };
  const auto a = b.input("a", {DataType::kFloat32, act});
  const auto v = b.input("v", {DataType::kFloat32, vec});
  const Ints w0 = nhwc ? Ints{kChannels, 3, 3, 5} : Ints{kChannels, 5, 3, 3};
  const auto x =
      b.add1(OpKind::kRelu, {b.add1(OpKind::kConv2d, {a, b.constant("w0", seeded(w0, 1))},
                                    conv_attrs({{"padding", Ints{1, 1, 1, 1}}}))});
  const auto s = b.add1(OpKind::kSigmoid, {v});
  const auto y = c == Case::kScaleFirst ? b.add1(OpKind::kMul, {s, x}, {}, "y")
                                        : b.add1(OpKind::kMul, {x, s}, {}, "y");
  if (c == Case::kResidualBetween) {
    // A conv with x as its fused residual, defined after the mul and before the 1x1 conv: it
    // must not write over x, which the folded conv still reads.
    const auto p = b.add1(OpKind::kConv2d, {a, b.constant("w2", seeded(w0, 4))},
                          conv_attrs({{"padding", Ints{1, 1, 1, 1}}}));
    b.output(
        b.add1(OpKind::kConv2d,
               {b.add1(OpKind::kAdd, {p, x}), b.constant("w3", seeded({3, kChannels, 1, 1}, 5))},
               {}, "p"));
  }
  const int64_t out_channels = c == Case::kWideFilter ? 40 : 5;
  const Ints w1 = nhwc ? Ints{out_channels, 1, 1, kChannels} : Ints{out_channels, kChannels, 1, 1};
  const auto z = b.add1(OpKind::kConv2d, {y, b.constant("w1", seeded(w1, 2))},
                        conv_attrs({{"bias", b.constant("b1", seeded({out_channels}, 3))}}));
  b.output(b.add1(OpKind::kRelu, {z}, {}, "z"));
  if (c == Case::kScaledAlsoOutput) b.output(y);
  return g;
}

std::vector<NamedView> inputs(const std::vector<Tensor>& keep) {
  return {{"a", keep[0].view()}, {"v", keep[1].view()}};
}

bool folded(const std::vector<std::string>& labels) {
  const bool scale_step = has_label(labels, "filter scale");
  const bool mul_step = has_label(labels, "mul");
  EXPECT_NE(scale_step, mul_step) << ::testing::PrintToString(labels);
  return scale_step;
}

TEST(OnednnChannelScale, ScaleBeforeOneByOneConvIsFoldedIntoTheFilter) {
  for (Case c : {Case::kFolded, Case::kScaleFirst, Case::kNhwc, Case::kResidualBetween}) {
    SCOPED_TRACE(int(c));
    const bool nhwc = c == Case::kNhwc;
    const std::vector<Tensor> keep = {
        seeded(nhwc ? Shape{1, 9, 7, 5} : Shape{1, 5, 9, 7}, 7),
        seeded(nhwc ? Shape{1, 1, 1, kChannels} : Shape{1, kChannels, 1, 1}, 8)};
    const auto g = se_tail(c);
    expect_same_as_reference(g, inputs(keep));
    const auto labels = kernel_labels(g, inputs(keep));
    EXPECT_TRUE(folded(labels));
    EXPECT_TRUE(has_label(labels, "conv2d+mul+relu 'z'")) << ::testing::PrintToString(labels);
  }
}

TEST(OnednnChannelScale, ScaleStaysAMulWhereFoldingIsInvalidOrCostsMore) {
  for (Case c : {Case::kScaledAlsoOutput, Case::kWideFilter}) {
    SCOPED_TRACE(int(c));
    const std::vector<Tensor> keep = {seeded({1, 5, 9, 7}, 9), seeded({1, kChannels, 1, 1}, 10)};
    const auto g = se_tail(c);
    expect_same_as_reference(g, inputs(keep));
    EXPECT_FALSE(folded(kernel_labels(g, inputs(keep))));
  }
}

}  // namespace
}  // namespace wnn::runtime
