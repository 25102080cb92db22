// Concat inside a oneDNN region runs in the layout its inputs are held in (the convs' NHWC or
// blocked activations), so a squeezenet fire module needs no reorders around its concat. The
// result must still equal the reference kernels' in both graph layouts.
#include <gtest/gtest.h>

#include <algorithm>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::kernel_labels;
using testing::seeded;

// squeeze 1x1 conv + relu, then a 1x1 (5 channels) and a 3x3 (7 channels, padded) expand conv,
// concatenated on channels and read by another conv; the concat is also a graph output.
// Channel counts are odd so no blocked layout divides them.
std::shared_ptr<const Graph> fire_module(bool nhwc) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto shape = [&](int64_t o, int64_t i, int64_t k) {
    return nhwc ? Shape{o, k, k, i} : Shape{o, i, k, k};
  };
  const std::vector<std::pair<std::string, RawValue>> layouts = {
      {"inputLayout", nhwc ? "nhwc" : "nchw"}, {"filterLayout", nhwc ? "ohwi" : "oihw"}};
  auto with = [&](std::vector<std::pair<std::string, RawValue>> extra) {
    extra.insert(extra.end(), layouts.begin(), layouts.end());
    return extra;
  };
  const auto x = b.input("x", {DataType::kFloat32, nhwc ? Shape{1, 9, 11, 6} : Shape{1, 6, 9, 11}});
  const auto sq =
      b.add1(OpKind::kRelu,
             {b.add1(OpKind::kConv2d, {x, b.constant("ws", seeded(shape(3, 6, 1), 1))}, with({}))});
  const auto e1 =
      b.add1(OpKind::kConv2d, {sq, b.constant("w1", seeded(shape(5, 3, 1), 2))}, with({}));
  const auto e3 = b.add1(OpKind::kConv2d, {sq, b.constant("w3", seeded(shape(7, 3, 3), 3))},
                         with({{"padding", std::vector<int64_t>{1, 1, 1, 1}}}));
  const auto cat =
      b.add1(OpKind::kConcat, {std::vector<OperandId>{e1, e3}, int64_t(nhwc ? 3 : 1)}, {}, "cat");
  b.output(cat);
  b.output(
      b.add1(OpKind::kConv2d, {cat, b.constant("wn", seeded(shape(4, 12, 1), 4))}, with({}), "y"));
  return g;
}

TEST(OnednnConcatLayout, FireModuleMatchesReferenceWithoutReordersAroundConcat) {
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "nhwc" : "nchw");
    const auto g = fire_module(nhwc);
    const Tensor x = seeded(nhwc ? Shape{1, 9, 11, 6} : Shape{1, 6, 9, 11}, 5);
    const std::vector<NamedView> in = {{"x", x.view()}};
    expect_same_as_reference(g, in);
    // Kernels run in order; the region's output reorders come last, after conv 'y'. Between
    // the squeeze conv and conv 'y' nothing may convert layouts.
    const auto labels = kernel_labels(g, in);
    testing::expect_no_reorders_between(labels, "conv2d+relu 'relu'", "conv2d 'y'");
  }
}

}  // namespace
}  // namespace wnn::runtime

namespace wnn::runtime {
namespace {

// A blocked region (a depthwise conv and 1x1 convs at 32x32, then a stride-4 1x1 conv, so the
// concat is small beside the convs) whose two 32-channel conv outputs at 8x8 are
// concatenated on channels (whole blocks) and read by a 1x1 conv: one jit reorder per input
// into its window of the blocked output ("concat for concat 'cat'"), not oneDNN's parallel copy
// ("concat 'cat'"), which took 2-3x as long on mlsd-tiny-320's decoder.
TEST(OnednnConcatLayout, BlockedInputsConcatByOneReorderEach) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  auto v = b.input("x", {DataType::kFloat32, {1, 16, 32, 32}});
  v = b.add1(OpKind::kConv2d, {v, b.constant("dw", testing::seeded({16, 1, 3, 3}, 1))},
             {{"groups", int64_t(16)}, {"padding", std::vector<int64_t>{1, 1, 1, 1}}});
  for (int k = 0; k < 3; ++k) {
    v = b.add1(OpKind::kConv2d,
               {v, b.constant("w" + std::to_string(k), testing::seeded({16, 16, 1, 1}, 10 + k))});
  }
  v = b.add1(OpKind::kConv2d, {v, b.constant("w4", testing::seeded({16, 16, 1, 1}, 6))},
             {{"strides", std::vector<int64_t>{4, 4}}});
  const auto a = b.add1(OpKind::kConv2d, {v, b.constant("wa", testing::seeded({32, 16, 1, 1}, 2))});
  const auto c =
      b.add1(OpKind::kRelu,
             {b.add1(OpKind::kConv2d, {v, b.constant("wc", testing::seeded({32, 16, 1, 1}, 3))})});
  const auto cat = b.add1(OpKind::kConcat, {std::vector<OperandId>{a, c}, int64_t(1)}, {}, "cat");
  b.output(
      b.add1(OpKind::kConv2d, {cat, b.constant("wn", testing::seeded({5, 64, 1, 1}, 4))}, {}, "y"));
  const Tensor t = testing::seeded({1, 16, 32, 32}, 5);
  const std::vector<NamedView> in{{"x", t.view()}};
  testing::expect_same_as_reference(g, in);
  const auto labels = testing::kernel_labels(g, in);
  EXPECT_EQ(testing::count_prefix(labels, "concat for concat 'cat'"), 2u)
      << ::testing::PrintToString(labels);
  EXPECT_EQ(testing::count_prefix(labels, "concat 'cat'"), 0u) << ::testing::PrintToString(labels);
  EXPECT_EQ(testing::count_prefix(labels, "reorder for concat"), 0u)
      << ::testing::PrintToString(labels);
}

}  // namespace
}  // namespace wnn::runtime
