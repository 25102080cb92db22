// Layout planning on the oneDNN delegate: a region with depthwise convs holds its conv
// activations blocked (nChw16c / nChw8c), and the ops between the convs (SiLU fused as swish,
// per-channel squeeze-excitation muls, residual adds, pooling) must compute what the
// reference kernels compute on awkward shapes: channels that are not whole blocks, odd
// spatial sizes, stride 2 with dilation, asymmetric padding, both WebNN layouts.
#include <gtest/gtest.h>

#include <algorithm>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/core/error.h"
#include "wnn/runtime/onednn/layout_plan.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::has_label;
using testing::kernel_labels;
using testing::seeded;

struct Layouts {
  bool nhwc;
  // A [n, c, h, w] shape in the graph's layout.
  Shape act(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w};
  }
  // An [o, i, h, w] filter in the graph's filter layout.
  Shape filter(int64_t o, int64_t i, int64_t h, int64_t w) const {
    return nhwc ? Shape{o, h, w, i} : Shape{o, i, h, w};
  }
  std::vector<std::pair<std::string, RawValue>> conv(
      std::vector<std::pair<std::string, RawValue>> extra = {}) const {
    extra.emplace_back("inputLayout", nhwc ? "nhwc" : "nchw");
    extra.emplace_back("filterLayout", nhwc ? "ohwi" : "oihw");
    return extra;
  }
};

// An efficientnet-like block on 20 input channels and 13x11 pixels:
//   expand 1x1 (20 -> 24) + clamp; depthwise 3x3, stride 2, dilation 2, padding [1, 2, 2, 1],
//   then SiLU; squeeze-excitation (average pool, 1x1 24 -> 5 + relu, 1x1 5 -> 24, sigmoid,
//   per-channel mul); project 1x1 (24 -> 20); depthwise 3x3 (padding 1) + 1x1 with a residual
//   add of the projection.
std::shared_ptr<const Graph> separable_block(const Layouts& l) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, l.act(1, 20, 13, 11)});
  auto conv = [&](OperandId in, Shape w, uint32_t seed,
                  std::vector<std::pair<std::string, RawValue>> extra = {}) {
    return b.add1(OpKind::kConv2d, {in, b.constant("w" + std::to_string(seed), seeded(w, seed))},
                  l.conv(std::move(extra)));
  };
  const auto e = b.add1(OpKind::kClamp, {conv(x, l.filter(24, 20, 1, 1), 1)},
                        {{"minValue", 0.0}, {"maxValue", 0.5}});
  // (13 + 3 - 5) / 2 + 1 = 6 rows, (11 + 3 - 5) / 2 + 1 = 5 columns.
  const auto d = conv(e, l.filter(24, 1, 3, 3), 2,
                      {{"groups", int64_t(24)},
                       {"strides", std::vector<int64_t>{2, 2}},
                       {"dilations", std::vector<int64_t>{2, 2}},
                       {"padding", std::vector<int64_t>{1, 2, 2, 1}}});
  const auto silu = b.add1(OpKind::kMul, {d, b.add1(OpKind::kSigmoid, {d})});
  const auto pooled = b.add1(
      OpKind::kAveragePool2d, {silu},
      {{"windowDimensions", std::vector<int64_t>{6, 5}}, {"layout", l.nhwc ? "nhwc" : "nchw"}});
  const auto squeezed = b.add1(OpKind::kRelu, {conv(pooled, l.filter(5, 24, 1, 1), 3)});
  const auto scale = b.add1(OpKind::kSigmoid, {conv(squeezed, l.filter(24, 5, 1, 1), 4)});
  const auto excited = b.add1(OpKind::kMul, {silu, scale});
  const auto p = conv(excited, l.filter(20, 24, 1, 1), 5);
  const auto d2 = conv(p, l.filter(20, 1, 3, 3), 6,
                       {{"groups", int64_t(20)}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}});
  const auto r = b.add1(OpKind::kAdd, {conv(d2, l.filter(20, 20, 1, 1), 7), p});
  b.output(b.add1(OpKind::kRelu, {r}, {}, "y"));
  return g;
}

passes::Region whole_graph(const Graph& g) {
  passes::Region r{"onednn", {}, {}, {}};
  for (uint32_t k = 0; k < g.nodes().size(); ++k) r.nodes.push_back(k);
  return r;
}

// `convs` 1x1 convs on 16 channels, the second grouped (4 groups) when `grouped`, then
// `transposes` round trips through NHWC (each a transpose there and back).
std::shared_ptr<const Graph> conv_stack(int convs, bool grouped, int transposes) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  auto v = b.input("x", {DataType::kFloat32, {1, 16, 5, 5}});
  for (int k = 0; k < convs; ++k) {
    const bool group = grouped && k == 1;
    v = b.add1(OpKind::kConv2d,
               {v, b.constant("w" + std::to_string(k), seeded({16, group ? 4 : 16, 1, 1}, k))},
               {{"groups", int64_t(group ? 4 : 1)}});
    // Bounded, so 16 layers of products stay comparable with a relative tolerance.
    v = b.add1(OpKind::kClamp, {v}, {{"minValue", -1.0}, {"maxValue", 1.0}});
  }
  for (int k = 0; k < transposes; ++k) {
    v = b.add1(OpKind::kTranspose, {v}, {{"permutation", std::vector<int64_t>{0, 2, 3, 1}}});
    v = b.add1(OpKind::kTranspose, {v}, {{"permutation", std::vector<int64_t>{0, 3, 1, 2}}});
  }
  b.output(v);
  return g;
}

TEST(OnednnConvLayout, PlanBlocksGroupedConvStacksWithFewRowMajorOps) {
  using onednn::ConvLayout;
  auto plan = [](const std::shared_ptr<const Graph>& g, std::string_view override_ = "") {
    return onednn::plan_conv_layout(*g, whole_graph(*g), override_);
  };
  EXPECT_EQ(plan(separable_block({false})), ConvLayout::kBlocked);
  EXPECT_EQ(plan(conv_stack(3, true, 0)), ConvLayout::kBlocked);
  // Dense convs only: left to the primitive (NHWC brgemm), unless overridden.
  EXPECT_EQ(plan(conv_stack(3, false, 0)), ConvLayout::kPerPrimitive);
  EXPECT_EQ(plan(conv_stack(3, false, 0), "blocked"), ConvLayout::kBlocked);
  EXPECT_EQ(plan(separable_block({false}), "any"), ConvLayout::kPerPrimitive);
  // At most one row-major op per 8 convs (and one in any region): 2 transposes with 3 convs
  // are too many, 2 with 16 convs are not, 4 with 16 are too many again.
  EXPECT_EQ(plan(conv_stack(3, true, 1)), ConvLayout::kPerPrimitive);
  EXPECT_EQ(plan(conv_stack(16, true, 1)), ConvLayout::kBlocked);
  EXPECT_EQ(plan(conv_stack(16, true, 2)), ConvLayout::kPerPrimitive);
  EXPECT_THROW(plan(conv_stack(3, true, 0), "nChw16c"), Error);
}

// conv_stack(convs, grouped), then a detector-like tail on a small part of its output: one
// channel sliced out ([1, 1, 5, 5], a 16th of a conv output), reshaped, transposed and
// reshaped back, `tails` times.
std::shared_ptr<const Graph> stack_with_small_tail(int convs, int tails) {
  auto g = std::make_shared<Graph>(*conv_stack(convs, true, 0));
  GraphBuilder b(*g);
  const OperandId v = g->outputs()[0];
  for (int k = 0; k < tails; ++k) {
    auto t = b.add1(OpKind::kSlice, {v, IntList{0, k, 0, 0}, IntList{1, 1, 5, 5}});
    t = b.add1(OpKind::kReshape, {t, IntList{1, 5, 5, 1}});
    t = b.add1(OpKind::kTranspose, {t}, {{"permutation", IntList{0, 3, 1, 2}}});
    b.output(b.add1(OpKind::kReshape, {t, IntList{5, 5}}, {}, "tail" + std::to_string(k)));
  }
  return g;
}

TEST(OnednnConvLayout, RowMajorOpsCountByTheirSize) {
  using onednn::ConvLayout;
  auto plan = [](const std::shared_ptr<const Graph>& g) {
    return onednn::plan_conv_layout(*g, whole_graph(*g), "");
  };
  // 8 small row-major ops (2 tails) weigh half a conv output: still blocked with 3 convs.
  EXPECT_EQ(plan(stack_with_small_tail(3, 2)), ConvLayout::kBlocked);
  // 36 (9 tails) weigh 2.25 conv outputs: 18 > 8, too many.
  EXPECT_EQ(plan(stack_with_small_tail(3, 9)), ConvLayout::kPerPrimitive);
  // The blocked stack with its tail computes what the reference kernels compute.
  const auto g = stack_with_small_tail(3, 2);
  const Tensor x = seeded({1, 16, 5, 5}, 8);
  expect_same_as_reference(g, {{"x", x.view()}});
}

// A grouped conv stack (4 input channels per group: not whole blocks) planned blocked, with a
// transpose round trip out of the blocked layout at its end.
TEST(OnednnConvLayout, BlockedGroupedStackWithTransposesMatchesReference) {
  const auto g = conv_stack(16, true, 1);
  ASSERT_EQ(onednn::plan_conv_layout(*g, whole_graph(*g), ""), onednn::ConvLayout::kBlocked);
  const Tensor x = seeded({1, 16, 5, 5}, 7);
  expect_same_as_reference(g, {{"x", x.view()}});
}

TEST(OnednnConvLayout, BlockedSeparableBlockMatchesReference) {
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "nhwc" : "nchw");
    const Layouts l{nhwc};
    const auto g = separable_block(l);
    const Tensor x = seeded(l.act(1, 20, 13, 11), 9);
    const std::vector<NamedView> in = {{"x", x.view()}};
    expect_same_as_reference(g, in);
    const auto labels = kernel_labels(g, in);
    // SiLU runs inside the depthwise conv, the residual add and relu inside the last conv.
    EXPECT_TRUE(has_label(labels, "conv2d+sigmoid+mul ")) << ::testing::PrintToString(labels);
    EXPECT_TRUE(has_label(labels, "conv2d+add+relu 'y'")) << ::testing::PrintToString(labels);
    EXPECT_FALSE(has_label(labels, "sigmoid ")) << ::testing::PrintToString(labels);
  }
}

// Blocks of whole channels (32 = 2 x 16 = 4 x 8) stay blocked from the first conv to the last:
// no layout conversion between them (a residual add would copy its operand into the conv's
// destination, also labelled a reorder; the bias here runs as a binary post-op).
TEST(OnednnConvLayout, WholeBlockChannelsNeedNoReordersBetweenConvs) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 32, 9, 7}});
  const auto c1 =
      b.add1(OpKind::kConv2d, {x, b.constant("w1", seeded({32, 32, 1, 1}, 1))}, {}, "first");
  const auto dw = b.add1(OpKind::kConv2d, {c1, b.constant("w2", seeded({32, 1, 3, 3}, 2))},
                         {{"groups", int64_t(32)}, {"padding", std::vector<int64_t>{0, 2, 2, 0}}});
  const auto bias = b.constant("bias", seeded({1, 32, 1, 1}, 5));
  const auto act = b.add1(OpKind::kHardSwish, {b.add1(OpKind::kAdd, {dw, bias})});
  b.output(b.add1(OpKind::kConv2d, {act, b.constant("w3", seeded({16, 32, 1, 1}, 3))}, {}, "y"));
  const Tensor xv = seeded({1, 32, 9, 7}, 4);
  const std::vector<NamedView> in = {{"x", xv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  testing::expect_no_reorders_between(labels, "conv2d 'first'", "conv2d 'y'");
}

// In a blocked region a residual add runs as a binary post-op reading its operand in place;
// here the residual is the region's row-major input (24 channels: one and a half blocks) and
// a padded, blocked conv output, in both layouts.
TEST(OnednnConvLayout, BlockedResidualAddsMatchReference) {
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "nhwc" : "nchw");
    const Layouts l{nhwc};
    auto g = std::make_shared<Graph>();
    GraphBuilder b(*g);
    const auto x = b.input("x", {DataType::kFloat32, l.act(1, 24, 7, 9)});
    const auto dw =
        b.add1(OpKind::kConv2d, {x, b.constant("w1", seeded(l.filter(24, 1, 3, 3), 1))},
               l.conv({{"groups", int64_t(24)}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}}));
    const auto r1 = b.add1(OpKind::kAdd, {x, dw}, {}, "r1");
    const auto pw = b.add1(OpKind::kConv2d,
                           {r1, b.constant("w2", seeded(l.filter(24, 24, 1, 1), 2))}, l.conv());
    b.output(b.add1(OpKind::kAdd, {pw, r1}, {}, "y"));
    const Tensor xv = seeded(l.act(1, 24, 7, 9), 3);
    const std::vector<NamedView> in = {{"x", xv.view()}};
    expect_same_as_reference(g, in);
    const auto labels = kernel_labels(g, in);
    EXPECT_TRUE(has_label(labels, "conv2d+add 'r1'")) << ::testing::PrintToString(labels);
    EXPECT_TRUE(has_label(labels, "conv2d+add 'y'")) << ::testing::PrintToString(labels);
  }
}

}  // namespace
}  // namespace wnn::runtime
