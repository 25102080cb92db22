// Compile-time fusion on the oneDNN delegate (bias, activation and residual adds as post-ops
// of conv2d, gemm and matmul) and the gelu pattern pass: the fused graph must compute what the
// reference kernels compute on the unfused one, and the profile must show the fusion happened.
#include <gtest/gtest.h>

#include <cmath>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/passes/fuse_gelu.h"
#include "wnn/passes/fuse_hard_swish.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::expect_same_as_reference;
using testing::has_label;
using testing::kernel_labels;
using testing::seeded;
using testing::values;

// A residual block in both layouts: conv -> per-channel add -> clamp, a second conv whose
// result is added to the block input (residual), then relu.
std::shared_ptr<const Graph> residual_block(bool nhwc) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const std::vector<int64_t> shape =
      nhwc ? std::vector<int64_t>{1, 7, 5, 6} : std::vector<int64_t>{1, 6, 7, 5};
  const auto x = b.input("x", {DataType::kFloat32, shape});
  const std::string layout = nhwc ? "nhwc" : "nchw";
  const std::string filter_layout = nhwc ? "ohwi" : "oihw";
  const auto w1 = b.constant("w1", seeded(nhwc ? Shape{6, 3, 3, 6} : Shape{6, 6, 3, 3}, 1));
  const auto c1 = b.add1(OpKind::kConv2d, {x, w1},
                         {{"padding", std::vector<int64_t>{1, 1, 1, 1}},
                          {"inputLayout", layout},
                          {"filterLayout", filter_layout}});
  const auto bias = b.constant("bias", seeded(nhwc ? Shape{1, 1, 1, 6} : Shape{1, 6, 1, 1}, 2));
  const auto a1 = b.add1(OpKind::kAdd, {c1, bias});
  const auto r1 = b.add1(OpKind::kClamp, {a1}, {{"minValue", -0.5}, {"maxValue", 0.75}});
  const auto w2 = b.constant("w2", seeded(nhwc ? Shape{6, 1, 1, 6} : Shape{6, 6, 1, 1}, 3));
  const auto c2 =
      b.add1(OpKind::kConv2d, {r1, w2}, {{"inputLayout", layout}, {"filterLayout", filter_layout}});
  const auto sum = b.add1(OpKind::kAdd, {x, c2});  // residual as the first operand
  b.output(b.add1(OpKind::kRelu, {sum}, {}, "y"));
  return g;
}

TEST(OnednnFusion, ConvBiasClampResidualReluMatchReference) {
  for (bool nhwc : {false, true}) {
    SCOPED_TRACE(nhwc ? "nhwc" : "nchw");
    const auto g = residual_block(nhwc);
    const Tensor x = seeded(nhwc ? Shape{1, 7, 5, 6} : Shape{1, 6, 7, 5}, 4);
    const std::vector<NamedView> in = {{"x", x.view()}};
    expect_same_as_reference(g, in);
    const auto labels = kernel_labels(g, in);
    EXPECT_TRUE(has_label(labels, "conv2d+add+clamp ")) << ::testing::PrintToString(labels);
    EXPECT_TRUE(has_label(labels, "conv2d+add+relu 'y'")) << ::testing::PrintToString(labels);
  }
}

// A value read by two nodes must not be fused away: the conv's output also feeds the output.
TEST(OnednnFusion, ValueWithAnotherReaderStaysUnfused) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 3, 4, 4}});
  const auto c = b.add1(OpKind::kConv2d, {x, b.constant("w", seeded({3, 3, 1, 1}, 5))}, {}, "c");
  b.output(b.add1(OpKind::kSigmoid, {c}, {}, "s"));
  b.output(c);
  const Tensor xv = seeded({1, 3, 4, 4}, 6);
  const std::vector<NamedView> in = {{"x", xv.view()}};
  expect_same_as_reference(g, in);
  EXPECT_FALSE(has_label(kernel_labels(g, in), "conv2d+"));
}

// A squeeze-excite gate: conv -> hardSigmoid (non-default alpha and beta, so both clamps bite)
// as two post-ops of the conv, then the gate scales another tensor.
TEST(OnednnFusion, ConvHardSigmoidRunsAsOneKernel) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 5, 3, 3}});
  const auto c = b.add1(OpKind::kConv2d, {x, b.constant("w", seeded({7, 5, 3, 3}, 7))});
  const auto gate = b.add1(OpKind::kHardSigmoid, {c}, {{"alpha", 0.4}, {"beta", 0.3}}, "gate");
  b.output(b.add1(OpKind::kMul, {b.input("z", {DataType::kFloat32, {1, 7, 2, 2}}), gate}, {}, "y"));
  Tensor xv = seeded({1, 5, 3, 3}, 8);
  const Tensor zv = seeded({1, 7, 2, 2}, 9);
  float* xs = xv.mutable_view().as<float>();
  for (int i = 0; i < 45; ++i) xs[i] *= 4;  // conv outputs well past both clamps
  const std::vector<NamedView> in = {{"x", xv.view()}, {"z", zv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_TRUE(has_label(labels, "conv2d+hardSigmoid 'gate'")) << ::testing::PrintToString(labels);
  EXPECT_FALSE(has_label(labels, "hardSigmoid")) << ::testing::PrintToString(labels);
}

// matmul -> bias add -> written-out gelu -> residual add, and gemm with c -> sub of a
// broadcast constant (non-commutative, the producer's value first) -> tanh.
TEST(OnednnFusion, MatmulAndGemmEpiloguesMatchReference) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 5, 8}});
  const auto m = b.add1(OpKind::kMatmul, {x, b.constant("w", seeded({8, 8}, 7))});
  const auto biased = b.add1(OpKind::kAdd, {m, b.constant("b", seeded({8}, 8))});
  auto scalar = [&](const char* name, float v) {
    Tensor t = Tensor::zeros(DataType::kFloat32, {});
    *t.mutable_view().as<float>() = v;
    return b.constant(name, t);
  };
  const auto d = b.add1(OpKind::kDiv, {biased, scalar("sqrt2", float(std::sqrt(2.0)))});
  const auto e = b.add1(OpKind::kErf, {d});
  const auto one = b.add1(OpKind::kAdd, {e, scalar("one", 1.0f)});
  const auto xm = b.add1(OpKind::kMul, {biased, one});
  const auto gelu = b.add1(OpKind::kMul, {xm, scalar("half", 0.5f)});
  b.output(b.add1(OpKind::kAdd, {gelu, x}, {}, "y"));
  const auto a = b.input("a", {DataType::kFloat32, {3, 4}});
  const auto gm = b.add1(OpKind::kGemm, {a, b.constant("gb", seeded({4, 6}, 9))},
                         {{"c", b.constant("gc", seeded({6}, 10))}, {"alpha", 0.5}});
  const auto sub = b.add1(OpKind::kSub, {gm, b.constant("s", seeded({1, 6}, 11))});
  b.output(b.add1(OpKind::kTanh, {sub}, {}, "z"));

  const Tensor xv = seeded({2, 5, 8}, 12), av = seeded({3, 4}, 13);
  const std::vector<NamedView> in = {{"x", xv.view()}, {"a", av.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_TRUE(has_label(labels, "matmul+add+gelu+add 'y'")) << ::testing::PrintToString(labels);
  EXPECT_TRUE(has_label(labels, "gemm+sub+tanh 'z'")) << ::testing::PrintToString(labels);
}

TEST(FuseGelu, ReplacesOnlyPatternsWithPrivateIntermediates) {
  auto build = [](bool share_erf) {
    Graph g;
    GraphBuilder b(g);
    const auto x = b.input("x", {DataType::kFloat32, {2, 3}});
    auto scalar = [&](const char* name, float v) {
      Tensor t = Tensor::zeros(DataType::kFloat32, {});
      *t.mutable_view().as<float>() = v;
      return b.constant(name, t);
    };
    const auto d = b.add1(OpKind::kDiv, {x, scalar("sqrt2", float(std::sqrt(2.0)))});
    const auto e = b.add1(OpKind::kErf, {d}, {}, "e");
    const auto one = b.add1(OpKind::kAdd, {scalar("one", 1.0f), e});  // constant first
    const auto xm = b.add1(OpKind::kMul, {one, x});
    b.output(b.add1(OpKind::kMul, {scalar("half", 0.5f), xm}, {}, "y"));
    if (share_erf) b.output(e);
    return g;
  };
  const auto fused = passes::fuse_gelu(build(false));
  EXPECT_EQ(fused.fused, 1u);
  ASSERT_EQ(fused.graph.nodes().size(), 1u);
  EXPECT_EQ(fused.graph.nodes()[0].op(), OpKind::kGelu);
  EXPECT_EQ(fused.graph.name_of(fused.graph.outputs()[0]), "y");
  const auto kept = passes::fuse_gelu(build(true));
  EXPECT_EQ(kept.fused, 0u);
  EXPECT_EQ(kept.graph.nodes().size(), 5u);

  // Same values as the written-out form on the reference kernels.
  auto original = std::make_shared<const Graph>(build(false));
  auto replaced = std::make_shared<const Graph>(fused.graph);
  const Tensor xv = seeded({2, 3}, 14);
  const std::vector<NamedView> in = {{"x", xv.view()}};
  const auto a = values(Session(original, {"ref", 1}).run(in)[0]);
  const auto r = values(Session(replaced, {"ref", 1}).run(in)[0]);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], r[i], 1e-6) << i;
}

// paddle2onnx's hardSwish, x * clip(x + 3, 0, 6) / 6 after a conv (ppocr): the pattern pass
// makes it one hardSwish node, which runs as a post-op of the conv; left written out, its add
// and div with rank-0 constants were four separate kernels (two of them oneDNN's reference
// implementation). The second block writes it x * (clip(x + 3, 0, 6) * (1/6)).
TEST(FuseHardSwish, WrittenOutHardSwishRunsAsAPostOpOfTheConv) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  auto scalar = [&](const char* name, float v) {
    Tensor t = Tensor::zeros(DataType::kFloat32, {});
    *t.mutable_view().as<float>() = v;
    return b.constant(name, t);
  };
  const auto x = b.input("x", {DataType::kFloat32, {1, 3, 9, 11}});
  const auto c1 = b.add1(OpKind::kConv2d, {x, b.constant("w1", seeded({8, 3, 3, 3}, 21))},
                         {{"padding", std::vector<int64_t>{1, 1, 1, 1}}});
  const auto a1 = b.add1(OpKind::kAdd, {c1, scalar("three", 3)});
  const auto k1 = b.add1(OpKind::kClamp, {a1}, {{"minValue", 0.0}, {"maxValue", 6.0}});
  const auto m1 = b.add1(OpKind::kMul, {c1, k1});
  const auto h1 = b.add1(OpKind::kDiv, {m1, scalar("six", 6)}, {}, "h1");
  const auto c2 = b.add1(OpKind::kConv2d, {h1, b.constant("w2", seeded({16, 8, 1, 1}, 22))});
  const auto a2 = b.add1(OpKind::kAdd, {scalar("three2", 3), c2});
  const auto k2 = b.add1(OpKind::kClamp, {a2}, {{"minValue", 0.0}, {"maxValue", 6.0}});
  const auto s2 = b.add1(OpKind::kMul, {k2, scalar("sixth", 1.0f / 6)});
  b.output(b.add1(OpKind::kMul, {c2, s2}, {}, "h2"));
  EXPECT_EQ(passes::fuse_hard_swish(*g).fused, 2u);
  // Inputs past +-3, so every piece of the clamp is exercised.
  Tensor xv = seeded({1, 3, 9, 11}, 23);
  for (int64_t i = 0; i < xv.size(); ++i) xv.mutable_view().as<float>()[i] *= 4;
  const std::vector<NamedView> in = {{"x", xv.view()}};
  expect_same_as_reference(g, in);
  const auto labels = kernel_labels(g, in);
  EXPECT_TRUE(has_label(labels, "conv2d+hardSwish 'h1'")) << ::testing::PrintToString(labels);
  EXPECT_TRUE(has_label(labels, "conv2d+hardSwish 'h2'")) << ::testing::PrintToString(labels);
}

}  // namespace
}  // namespace wnn::runtime
