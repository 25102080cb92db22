// Views of values held in a conv's strided layout (NHWC): a shufflenet unit's channel shuffle
// (reshape, transpose, reshape) and split (two slices) read the conv's output through its own
// strides, copy once where the shuffled channel order is not expressible as strides, and a
// conv reading a slice gets it copied straight into its layout. Results must equal the
// reference kernels', also where views are region outputs or windows of region inputs.
#include <gtest/gtest.h>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::count_prefix;
using testing::expect_same_as_reference;
using testing::kernel_labels;
using testing::seeded;
using Ints = std::vector<int64_t>;

// conv+relu (10 channels), channel shuffle in 2 groups (reshape, transpose, reshape), split in
// halves of 5; the second half goes through a padded 3x3 conv, the halves are concatenated.
// With `outputs`, the shuffled 5-D tensor and the first half are graph outputs too.
std::shared_ptr<const Graph> shuffle_unit(bool outputs) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, Shape{1, 6, 5, 7}});
  const auto y = b.add1(OpKind::kRelu,
                        {b.add1(OpKind::kConv2d, {x, b.constant("w0", seeded({10, 6, 1, 1}, 1))})});
  const auto groups = b.add1(OpKind::kReshape, {y, Ints{1, 2, 5, 5, 7}}, {}, "groups");
  const auto shuffled =
      b.add1(OpKind::kTranspose, {groups}, {{"permutation", Ints{0, 2, 1, 3, 4}}}, "shuffled");
  const auto flat = b.add1(OpKind::kReshape, {shuffled, Ints{1, 10, 5, 7}}, {}, "flat");
  const auto left = b.add1(OpKind::kSlice, {flat, Ints{0, 0, 0, 0}, Ints{1, 5, 5, 7}}, {}, "left");
  const auto right =
      b.add1(OpKind::kSlice, {flat, Ints{0, 5, 0, 0}, Ints{1, 5, 5, 7}}, {}, "right");
  const auto conv = b.add1(OpKind::kConv2d, {right, b.constant("w1", seeded({5, 5, 3, 3}, 2))},
                           {{"padding", Ints{1, 1, 1, 1}}}, "conv");
  b.output(b.add1(OpKind::kConcat, {std::vector<OperandId>{left, conv}, int64_t(1)}, {}, "cat"));
  if (outputs) {
    b.output(shuffled);
    b.output(left);
  }
  return g;
}

TEST(OnednnHeldViews, ShuffleUnitCopiesOnceForTheShuffleAndOnceIntoTheConv) {
  const Tensor x = seeded({1, 6, 5, 7}, 3);
  const std::vector<NamedView> in = {{"x", x.view()}};
  const auto g = shuffle_unit(false);
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  const auto all = ::testing::PrintToString(labels);
  // The grouped reshape and the transpose read the conv's layout as strides: no kernel.
  EXPECT_EQ(count_prefix(labels, "reorder for reshape 'groups'"), 0u) << all;
  EXPECT_EQ(count_prefix(labels, "reorder for transpose"), 0u) << all;
  // The shuffled channel order is not a stride pattern of 10 channels: one copy.
  EXPECT_EQ(count_prefix(labels, "reorder for reshape 'flat'"), 1u) << all;
  // The conv's half is copied straight into the conv's layout, the other half is a window.
  EXPECT_EQ(count_prefix(labels, "reorder for conv2d 'conv'"), 1u) << all;
  EXPECT_EQ(count_prefix(labels, "reorder for slice"), 0u) << all;
  // Besides these two, only the region input into the first conv's layout.
  EXPECT_EQ(count_prefix(labels, "reorder") - count_prefix(labels, "reorder for conv2d 'conv2d'"),
            2u)
      << all;
}

TEST(OnednnHeldViews, ShuffleUnitWithViewsAsOutputsMatchesReference) {
  const Tensor x = seeded({1, 6, 5, 7}, 4);
  expect_same_as_reference(shuffle_unit(true), {{"x", x.view()}});
}

// Views of a conv's NHWC output that are not copies of the shuffle kind: a same-order reshape
// read by a conv (no copy at all when addressed as the conv wants), a slice of the spatial axes
// and a transpose that are region outputs, and a gather of one channel.
TEST(OnednnHeldViews, WindowsOfAConvOutputMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, Shape{1, 3, 6, 5}});
  const auto y = b.add1(OpKind::kConv2d, {x, b.constant("w0", seeded({8, 3, 1, 1}, 5))});
  const auto same = b.add1(OpKind::kIdentity, {y}, {}, "same");
  b.output(b.add1(OpKind::kConv2d, {same, b.constant("w1", seeded({4, 8, 3, 3}, 6))}, {}, "c1"));
  b.output(b.add1(OpKind::kSlice, {y, Ints{0, 1, 2, 1}, Ints{1, 6, 3, 4}}, {}, "window"));
  b.output(b.add1(OpKind::kTranspose, {y}, {{"permutation", Ints{0, 2, 3, 1}}}, "nhwc"));
  Tensor idx = Tensor::zeros(DataType::kInt64, {});
  *idx.mutable_view().as<int64_t>() = -3;
  b.output(b.add1(OpKind::kGather, {y, b.constant("i", idx)}, {{"axis", int64_t(1)}}, "ch"));
  const Tensor xv = seeded({1, 3, 6, 5}, 7);
  expect_same_as_reference(g, {{"x", xv.view()}});
}

}  // namespace
}  // namespace wnn::runtime
