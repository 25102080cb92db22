// Winograd convolution on the oneDNN delegate: a region whose convs are mostly 3x3, stride 1,
// one group, with channels in whole blocks of 16 (a resnet) is planned blocked, and those
// convs run oneDNN's Winograd kernel with their whole fused chain (bias, relu, the residual
// add as the sum post-op). Its transforms round differently from a direct conv, so the values
// are checked against the reference kernels on odd spatial sizes (partial 2x2 output tiles).
#include <gtest/gtest.h>

#include <tuple>

#include <cmath>
#include <string>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/onednn/layout_plan.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::seeded;
using Ints = std::vector<int64_t>;

passes::Region whole_graph(const Graph& g) {
  passes::Region r{"onednn", {}, {}, {}};
  for (uint32_t k = 0; k < g.nodes().size(); ++k) r.nodes.push_back(k);
  return r;
}

// A resnet basic block on `channels` channels over 9x7 pixels: conv3x3 + bias + relu,
// conv3x3 + bias, the residual add of the input, relu; then a 1x1 conv (so the block's output
// is not a region output) and, when `squeeze_expand`, a fire module's 1x1 squeeze and expand
// convs around it instead of the second 3x3.
std::shared_ptr<const Graph> basic_block(int64_t channels, bool squeeze_expand = false) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x0 = b.input("x", {DataType::kFloat32, {1, channels, 9, 7}});
  const Ints pad = {1, 1, 1, 1};
  auto conv = [&](OperandId in, Shape w, uint32_t seed, bool padded) {
    const auto filter = b.constant("w" + std::to_string(seed), seeded(w, seed));
    const auto bias = b.constant("b" + std::to_string(seed), seeded({w[0]}, seed + 100));
    return padded ? b.add1(OpKind::kConv2d, {in, filter}, {{"padding", pad}, {"bias", bias}})
                  : b.add1(OpKind::kConv2d, {in, filter}, {{"bias", bias}});
  };
  // x computed in the region, so the residual's memory is the region's own.
  const auto x = b.add1(OpKind::kRelu, {conv(x0, {channels, channels, 3, 3}, 1, true)});
  const auto a = b.add1(OpKind::kRelu, {conv(x, {channels, channels, 3, 3}, 2, true)});
  const auto c = squeeze_expand
                     ? conv(conv(a, {4, channels, 1, 1}, 3, false), {channels, 4, 1, 1}, 4, false)
                     : conv(a, {channels, channels, 3, 3}, 3, true);
  const auto y = b.add1(OpKind::kRelu, {b.add1(OpKind::kAdd, {c, x})});
  b.output(b.add1(OpKind::kConv2d, {y, b.constant("w9", seeded({5, channels, 1, 1}, 9))}, {}, "y"));
  return g;
}

TEST(OnednnWinograd, PlanBlocksRegionsOfWinogradReady3x3Convs) {
  using onednn::ConvLayout;
  auto plan = [](const std::shared_ptr<const Graph>& g) {
    return onednn::plan_conv_layout(*g, whole_graph(*g), "");
  };
  // 3 of 4 convs are 3x3 on 32 channels.
  EXPECT_EQ(plan(basic_block(32)), ConvLayout::kBlocked);
  // 24 channels are not whole blocks of 16: no Winograd kernel, left to the primitive.
  EXPECT_EQ(plan(basic_block(24)), ConvLayout::kPerPrimitive);
  // 2 of 5 convs are 3x3: fewer than half.
  EXPECT_EQ(plan(basic_block(32, true)), ConvLayout::kPerPrimitive);
}

TEST(OnednnWinograd, BasicBlockRunsWinogradAndMatchesReference) {
  const auto g = basic_block(32);
  const Tensor x = seeded({1, 32, 9, 7}, 11);
  const std::vector<NamedView> in = {{"x", x.view()}};
  expect_same_as_reference(g, in);
  Session s(g, {"onednn", 1, true, false});
  s.set_profiling(true);
  s.run(in);
  int winograd = 0;
  for (const auto& row : s.profile()) {
    if (row.kernel.find("wino") != std::string::npos) {
      ++winograd;
      EXPECT_TRUE(row.label.rfind("conv2d+relu", 0) == 0 ||
                  row.label.rfind("conv2d+add+relu", 0) == 0)
          << row.label;
    }
  }
  // All three 3x3 convs, the last with its residual add and relu fused.
  EXPECT_EQ(winograd, 3);
}

// A blocked region (a depthwise conv first) with a dilated 3x3 "same" conv + bias + relu on
// `channels`: dilation `d`, padding d, over h x w pixels; then a 1x1 conv.
std::shared_ptr<const Graph> dilated(int64_t channels, int64_t d, int64_t h, int64_t w,
                                     int64_t padding) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, channels, h, w}});
  const auto dw = b.add1(OpKind::kConv2d, {x, b.constant("dw", seeded({channels, 1, 3, 3}, 1))},
                         {{"groups", channels}, {"padding", Ints{1, 1, 1, 1}}});
  const auto c = b.add1(OpKind::kConv2d, {dw, b.constant("w", seeded({32, channels, 3, 3}, 2))},
                        {{"dilations", Ints{d, d}},
                         {"padding", Ints{padding, padding, padding, padding}},
                         {"bias", b.constant("b", seeded({32}, 3))}});
  const auto r = b.add1(OpKind::kRelu, {c});
  b.output(b.add1(OpKind::kConv2d, {r, b.constant("w2", seeded({5, 32, 1, 1}, 4))}, {}, "y"));
  return g;
}

// The kernel names of the dilated conv's steps (a space-to-batch copy, the conv, the copy back).
std::vector<std::string> dilated_steps(const std::shared_ptr<const Graph>& g, const Tensor& x) {
  Session s(g, {"onednn", 1, true, false});
  s.set_profiling(true);
  s.run(std::vector<NamedView>{{"x", x.view()}});
  std::vector<std::string> steps;
  for (const auto& row : s.profile()) {
    if (row.label.find("conv2d_1") != std::string::npos || row.label.rfind("conv2d+relu", 0) == 0) {
      steps.push_back(row.label.substr(0, row.label.find(' ')) + " " + row.kernel);
    }
  }
  return steps;
}

TEST(OnednnWinograd, DilatedSameConvRunsAsSubsampledImagesOnWinograd) {
  // Dilation 2 on 8x6 pixels and 3 on 9x6, 16 and 32 channels.
  for (const auto& [channels, d, h, w] :
       {std::tuple{int64_t(16), int64_t(2), int64_t(8), int64_t(6)},
        std::tuple{int64_t(32), int64_t(3), int64_t(9), int64_t(6)}}) {
    const auto g = dilated(channels, d, h, w, d);
    const Tensor x = seeded({1, channels, h, w}, 12);
    expect_same_as_reference(g, {{"x", x.view()}});
    const auto steps = dilated_steps(g, x);
    ASSERT_EQ(steps.size(), 3u) << ::testing::PrintToString(steps);
    EXPECT_EQ(steps[0].rfind("space-to-batch ", 0), 0u) << steps[0];
    EXPECT_EQ(steps[1].rfind("conv2d+relu ", 0), 0u) << steps[1];
    EXPECT_NE(steps[1].find("wino"), std::string::npos) << steps[1];
    EXPECT_EQ(steps[2].rfind("batch-to-space ", 0), 0u) << steps[2];
  }
}

TEST(OnednnWinograd, DilatedConvsThatAreNotSubsampledImagesStayDirect) {
  // 9 rows are no multiple of dilation 2; padding 1 is not the dilation.
  for (const auto& [g, h] : {std::pair{dilated(16, 2, 9, 6, 2), int64_t(9)},
                             std::pair{dilated(16, 2, 8, 6, 1), int64_t(8)}}) {
    for (const Node& n : g->nodes()) {
      if (n.op() == OpKind::kConv2d && n.attrs.get_ints("dilations")[0] == 2) {
        EXPECT_FALSE(onednn::space_to_batch_candidate(*g, n));
      }
    }
    const Tensor x = seeded({1, 16, h, 6}, 13);
    expect_same_as_reference(g, {{"x", x.view()}});
  }
}

// A quantized model's integer product carried in float32 (a cast uint8 input minus its zero
// point, a filter of integers) is exact on the direct conv and would be rounded by Winograd's
// transforms: it is no candidate, while the same conv over a fractional operand is.
TEST(OnednnWinograd, IntegerValuedConvsAreNotCandidates) {
  auto conv_of = [](bool integer_input, bool integer_filter) {
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    OperandId x = b.input("x", {DataType::kFloat32, {1, 32, 9, 7}});
    if (integer_input) {
      const auto q = b.input("q", {DataType::kUint8, {1, 32, 9, 7}});
      const auto zero = b.constant("zero", Tensor::zeros(DataType::kUint8, {}));
      x = b.add1(OpKind::kSub, {b.add1(OpKind::kCast, {q, DataType::kFloat32}),
                                b.add1(OpKind::kCast, {zero, DataType::kFloat32})});
    }
    Tensor w = seeded({32, 32, 3, 3}, 5);
    if (integer_filter) {
      float* v = w.mutable_view().as<float>();
      for (int64_t i = 0; i < w.size(); ++i) v[i] = std::round(v[i] * 100.0f);
    }
    b.output(
        b.add1(OpKind::kConv2d, {x, b.constant("w", w)}, {{"padding", Ints{1, 1, 1, 1}}}, "y"));
    for (const Node& n : g->nodes()) {
      if (n.op() == OpKind::kConv2d) return onednn::winograd_candidate(*g, n);
    }
    return false;
  };
  EXPECT_FALSE(conv_of(true, true));
  EXPECT_TRUE(conv_of(false, true));
  EXPECT_TRUE(conv_of(true, false));
}

}  // namespace
}  // namespace wnn::runtime
