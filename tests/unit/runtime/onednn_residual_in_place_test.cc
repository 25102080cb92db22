// A residual add fused into a conv as oneDNN's sum post-op accumulates into the conv's
// destination, which must hold the residual first. When nothing reads the residual after the
// conv, the conv writes over the residual's own memory (no copy); when anything still reads
// those bytes later (the residual itself, a view of it, a region output), it writes into a
// copy. Both must compute what the reference kernels compute.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::kernel_labels;
using testing::seeded;
using Ints = std::vector<int64_t>;

enum class LaterUse { kNone, kRead, kViewRead, kOutput };

// x -> conv0 -> r (computed inside the region, so its memory is the region's own), then a
// resnet block on r: conv1 + relu, conv2, + r, relu, then a 1x1 conv. `later` adds a reader
// of r after conv2.
std::shared_ptr<Graph> block(LaterUse later) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 5, 9, 7}});
  const Ints pad = {1, 1, 1, 1};
  const auto r = b.add1(OpKind::kConv2d, {x, b.constant("w0", seeded({6, 5, 3, 3}, 1))},
                        {{"padding", pad}}, "r");
  const auto a =
      b.add1(OpKind::kRelu, {b.add1(OpKind::kConv2d, {r, b.constant("w1", seeded({6, 6, 3, 3}, 2))},
                                    {{"padding", pad}})});
  const auto c = b.add1(OpKind::kConv2d, {a, b.constant("w2", seeded({6, 6, 3, 3}, 3))},
                        {{"padding", pad}, {"bias", b.constant("b2", seeded({6}, 4))}});
  // The block's output feeds another conv, as in a resnet, so it is not a region output.
  const auto sum = b.add1(OpKind::kRelu, {b.add1(OpKind::kAdd, {c, r})}, {}, "block");
  b.output(b.add1(OpKind::kConv2d, {sum, b.constant("w3", seeded({4, 6, 1, 1}, 7))}, {}, "y"));
  switch (later) {
    case LaterUse::kNone:
      break;
    case LaterUse::kRead:
      b.output(b.add1(OpKind::kSigmoid, {r}, {}, "later"));
      break;
    case LaterUse::kViewRead:
      b.output(b.add1(OpKind::kTanh, {b.add1(OpKind::kReshape, {r, Ints{6, 63}})}, {}, "later"));
      break;
    case LaterUse::kOutput:
      b.output(r);
      break;
  }
  return g;
}

// Whether the fused block conv's step is preceded by a copy (of the residual into its
// destination); asserts that the fused kernel ran.
bool residual_copied(const std::vector<std::string>& labels) {
  const auto at = std::find(labels.begin(), labels.end(), "conv2d+add+relu 'block'");
  EXPECT_NE(at, labels.end()) << ::testing::PrintToString(labels);
  return at != labels.end() && at != labels.begin() && (at - 1)->rfind("reorder", 0) == 0;
}

TEST(OnednnResidualInPlace, DeadResidualIsOverwrittenWithoutACopy) {
  const Tensor x = seeded({1, 5, 9, 7}, 5);
  const std::vector<NamedView> in = {{"x", x.view()}};
  const auto dead = block(LaterUse::kNone);
  expect_same_as_reference(dead, in);
  const auto labels = kernel_labels(dead, in);
  EXPECT_FALSE(residual_copied(labels)) << ::testing::PrintToString(labels);
}

TEST(OnednnResidualInPlace, ResidualStillReadLaterKeepsItsValue) {
  const Tensor x = seeded({1, 5, 9, 7}, 6);
  const std::vector<NamedView> in = {{"x", x.view()}};
  for (LaterUse later : {LaterUse::kRead, LaterUse::kViewRead, LaterUse::kOutput}) {
    SCOPED_TRACE(int(later));
    const auto g = block(later);
    expect_same_as_reference(g, in);
    const auto labels = kernel_labels(g, in);
    EXPECT_TRUE(residual_copied(labels)) << ::testing::PrintToString(labels);
  }
}

}  // namespace
}  // namespace wnn::runtime
