// A matmul's epilogue through a transpose (epilogue.h): convnext's block ends in matmul, bias,
// a permute back to NCHW, a per-channel layer-scale mul and the residual add, which the oneDNN
// delegate runs as one matmul whose dst holds the NCHW result in NHWC bytes. The fused graph must
// compute what the reference kernels compute, keep operands that other nodes read intact, and
// decline what the post-ops cannot express.
#include <gtest/gtest.h>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::count_prefix;
using testing::expect_no_reorders_between;
using testing::expect_same_as_reference;
using testing::has_label;
using testing::kernel_labels;
using testing::seeded;
using Ints = std::vector<int64_t>;

constexpr int64_t kC = 5, kH = 7, kW = 3, kHidden = 11;  // odd, so no size is a vector multiple

// One convnext block on an NCHW [1, kC, kH, kW] value: depthwise 3x3 conv, permute to NHWC,
// layerNormalization over channels, matmul, bias, gelu, matmul, bias, permute back, layer-scale
// mul by a [kC, 1, 1] constant, residual add of the block input.
OperandId convnext_block(GraphBuilder& b, OperandId x, uint32_t seed, const std::string& name) {
  const auto dw = b.add1(OpKind::kConv2d, {x, b.constant(name + "dw", seeded({kC, 1, 3, 3}, seed))},
                         {{"padding", Ints{1, 1, 1, 1}},
                          {"groups", int64_t(kC)},
                          {"bias", b.constant(name + "dwb", seeded({kC}, seed + 1))}});
  const auto nhwc = b.add1(OpKind::kTranspose, {dw}, {{"permutation", Ints{0, 2, 3, 1}}});
  const auto ln = b.add1(OpKind::kLayerNormalization, {nhwc},
                         {{"axes", Ints{3}},
                          {"scale", b.constant(name + "lns", seeded({kC}, seed + 2))},
                          {"bias", b.constant(name + "lnb", seeded({kC}, seed + 3))}});
  const auto m1 =
      b.add1(OpKind::kMatmul, {ln, b.constant(name + "w1", seeded({kC, kHidden}, seed + 4))});
  const auto a1 = b.add1(OpKind::kAdd, {b.constant(name + "b1", seeded({kHidden}, seed + 5)), m1});
  const auto act = b.add1(OpKind::kGelu, {a1});
  const auto m2 =
      b.add1(OpKind::kMatmul, {act, b.constant(name + "w2", seeded({kHidden, kC}, seed + 6))});
  const auto a2 = b.add1(OpKind::kAdd, {b.constant(name + "b2", seeded({kC}, seed + 7)), m2});
  const auto nchw = b.add1(OpKind::kTranspose, {a2}, {{"permutation", Ints{0, 3, 1, 2}}});
  const auto scaled =
      b.add1(OpKind::kMul, {b.constant(name + "gamma", seeded({kC, 1, 1}, seed + 8)), nchw});
  return b.add1(OpKind::kAdd, {scaled, x}, {}, name + "out");
}

// Two blocks: the second block's residual is the first one's fused (NHWC-held) result, which
// also feeds a relu output, so the fused add must leave it intact. The sigmoid after the second
// block joins its chain as one more post-op.
TEST(OnednnTransposedEpilogue, ConvnextBlocksFuseScaleAndResidualWithoutReorders) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, kC, kH, kW}});
  const auto y1 = convnext_block(b, x, 10, "b1");
  const auto y2 = convnext_block(b, y1, 30, "b2");
  b.output(b.add1(OpKind::kRelu, {y1}, {}, "r1"));
  b.output(b.add1(OpKind::kSigmoid, {y2}, {}, "y"));
  const Tensor xv = seeded({1, kC, kH, kW}, 50);
  const std::vector<NamedView> in = {{"x", xv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_EQ(count_prefix(labels, "matmul+add+transpose+mul+add"), 2u)
      << ::testing::PrintToString(labels);
  EXPECT_FALSE(has_label(labels, "mul ")) << ::testing::PrintToString(labels);
  // The first block reads the region input as given; from its fused result on, the second
  // block's dwconv, layer norm and residual read the NHWC bytes directly.
  expect_no_reorders_between(labels, "matmul+add+transpose+mul+add 'b1out'",
                             "matmul+add+transpose+mul+add+sigmoid 'y'");
}

// 2-D: [M, K] x [K, N], transposed to [N, M], scaled per row of the transposed value (a [N, 1]
// operand, a column of the matmul), minus a residual that a later node reads again. No batch
// collapse here: the post-op operands are read through the inverse permutation alone.
TEST(OnednnTransposedEpilogue, TwoDimensionalTransposeScaleSubMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto a = b.input("a", {DataType::kFloat32, {9, 6}});
  const auto r = b.input("r", {DataType::kFloat32, {5, 9}});
  const auto m = b.add1(OpKind::kMatmul, {a, b.constant("w", seeded({6, 5}, 60))});
  const auto t = b.add1(OpKind::kTranspose, {m}, {{"permutation", Ints{1, 0}}});
  const auto s = b.add1(OpKind::kMul, {t, b.constant("s", seeded({5, 1}, 61))});
  const auto d = b.add1(OpKind::kSub, {s, r}, {}, "d");  // non-commutative, value first
  b.output(b.add1(OpKind::kTanh, {d}, {}, "y"));
  b.output(b.add1(OpKind::kAdd, {r, r}, {}, "r2"));  // r read again after the fused sub
  const Tensor av = seeded({9, 6}, 62), rv = seeded({5, 9}, 63);
  const std::vector<NamedView> in = {{"a", av.view()}, {"r", rv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_TRUE(has_label(labels, "matmul+transpose+mul+sub+tanh 'y'"))
      << ::testing::PrintToString(labels);
}

// The residual is a window into a wider input (a slice with an offset): oneDNN's matmul ignores
// a desc's offset0, so the window is copied into the dst's layout first, never read from the
// buffer's start.
TEST(OnednnTransposedEpilogue, OffsetResidualWindowMatchesReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, kH, kW, kC}});
  const auto wide = b.input("wide", {DataType::kFloat32, {1, kC + 2, kH, kW}});
  const auto window = b.add1(OpKind::kSlice, {wide, Ints{0, 2, 0, 0}, Ints{1, kC, kH, kW}});
  const auto m = b.add1(OpKind::kMatmul, {x, b.constant("w", seeded({kC, kC}, 70))});
  const auto t = b.add1(OpKind::kTranspose, {m}, {{"permutation", Ints{0, 3, 1, 2}}});
  b.output(b.add1(OpKind::kAdd, {window, t}, {}, "y"));
  const Tensor xv = seeded({1, kH, kW, kC}, 71), wv = seeded({1, kC + 2, kH, kW}, 72);
  expect_same_as_reference(g, {{"x", xv.view()}, {"wide", wv.view()}});
}

// Declined: a full-size constant operand read through the transpose does not collapse into the
// GEMM's rows (the matmul runs unfused and the mul on its own), and a transposed
// value that is also a region output ends the chain before the transpose.
TEST(OnednnTransposedEpilogue, DeclinedLinksRunSeparatelyAndMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, kH, kW, kC}});
  const auto m = b.add1(OpKind::kMatmul, {x, b.constant("w", seeded({kC, kC}, 80))});
  const auto t = b.add1(OpKind::kTranspose, {m}, {{"permutation", Ints{0, 3, 1, 2}}});
  b.output(b.add1(OpKind::kMul, {t, b.constant("full", seeded({1, kC, kH, kW}, 81))}, {}, "y"));
  const auto m2 = b.add1(OpKind::kMatmul, {x, b.constant("w2", seeded({kC, kC}, 82))}, {}, "m2");
  const auto t2 = b.add1(OpKind::kTranspose, {m2}, {{"permutation", Ints{0, 3, 1, 2}}}, "t2");
  b.output(t2);
  b.output(b.add1(OpKind::kAdd, {t2, b.constant("c", seeded({kC, 1, 1}, 83))}, {}, "z"));
  const Tensor xv = seeded({1, kH, kW, kC}, 84);
  const std::vector<NamedView> in = {{"x", xv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_FALSE(has_label(labels, "matmul+transpose+mul")) << ::testing::PrintToString(labels);
  // Nor the transpose alone: its strided result would cost the mul a copy.
  EXPECT_FALSE(has_label(labels, "matmul+transpose ")) << ::testing::PrintToString(labels);
  EXPECT_TRUE(has_label(labels, "mul 'y'")) << ::testing::PrintToString(labels);
  EXPECT_TRUE(has_label(labels, "matmul 'm2'")) << ::testing::PrintToString(labels);
}

}  // namespace
}  // namespace wnn::runtime
