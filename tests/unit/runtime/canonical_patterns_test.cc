// Written-out normalizations and softmax on the oneDNN delegate: the session's canonical graph
// (passes/canonicalize) runs each as one kernel, with gamma and beta of another shape than the
// node's scale re-made as constants, and computes what the reference kernels compute on the
// written-out graph (the ref backend does not canonicalize).
#include <gtest/gtest.h>

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

// (x - mean) / sqrt(var + eps) * gamma + beta over `axes`, as PyTorch exports it before opset 17.
OperandId written_out_norm(GraphBuilder& b, OperandId x, const Ints& axes, OperandId gamma,
                           OperandId beta, float eps, const std::string& name) {
  auto scalar = [&](float v) {
    Tensor t = Tensor::zeros(DataType::kFloat32, {});
    *t.mutable_view().as<float>() = v;
    return b.constant(b.unique_name("k"), t);
  };
  const auto mean = b.add1(OpKind::kReduceMean, {x}, {{"axes", axes}, {"keepDimensions", true}});
  const auto d = b.add1(OpKind::kSub, {x, mean});
  const auto var = b.add1(OpKind::kReduceMean, {b.add1(OpKind::kPow, {d, scalar(2)})},
                          {{"axes", axes}, {"keepDimensions", true}});
  const auto s = b.add1(OpKind::kSqrt, {b.add1(OpKind::kAdd, {var, scalar(eps)})});
  const auto n = b.add1(OpKind::kDiv, {d, s});
  return b.add1(OpKind::kAdd, {b.add1(OpKind::kMul, {n, gamma}), beta}, {}, name);
}

TEST(CanonicalPatterns, WrittenOutLayerNormRunsAsOneOnednnKernel) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto in = b.input("x", {DataType::kFloat32, {2, 5, 12}});
  const auto x = b.add1(OpKind::kMatmul, {in, b.constant("w", seeded({12, 12}, 1))});
  // beta as [1, 1, 12]: it becomes the node's [12] bias through a new constant.
  b.output(written_out_norm(b, x, {2}, b.constant("gamma", seeded({12}, 2)),
                            b.constant("beta", seeded({1, 1, 12}, 3)), 1e-3f, "ln"));
  const Tensor xv = seeded({2, 5, 12}, 4);
  const std::vector<NamedView> feed = {{"x", xv.view()}};
  expect_same_as_reference(g, feed);
  const auto labels = kernel_labels(g, feed);
  EXPECT_TRUE(has_label(labels, "layerNormalization 'ln'")) << ::testing::PrintToString(labels);
  EXPECT_FALSE(has_label(labels, "pow")) << ::testing::PrintToString(labels);
}

TEST(CanonicalPatterns, WrittenOutInstanceNormRunsOnOnednn) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto in = b.input("x", {DataType::kFloat32, {2, 3, 5, 7}});
  const auto x = b.add1(OpKind::kTanh, {in});
  b.output(written_out_norm(b, x, {2, 3}, b.constant("gamma", seeded({3, 1, 1}, 5)),
                            b.constant("beta", seeded({3, 1, 1}, 6)), 1e-5f, "in_norm"));
  const Tensor xv = seeded({2, 3, 5, 7}, 7);
  const std::vector<NamedView> feed = {{"x", xv.view()}};
  expect_same_as_reference(g, feed);
  const auto labels = kernel_labels(g, feed);
  EXPECT_TRUE(has_label(labels, "instanceNormalization")) << ::testing::PrintToString(labels);
  EXPECT_FALSE(has_label(labels, "reduceMean")) << ::testing::PrintToString(labels);
}

TEST(CanonicalPatterns, WrittenOutSoftmaxRunsAsOneOnednnKernel) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {3, 4, 9}});
  const Ints last = {2};
  const auto m = b.add1(OpKind::kReduceMax, {x}, {{"axes", last}, {"keepDimensions", true}});
  const auto e = b.add1(OpKind::kExp, {b.add1(OpKind::kSub, {x, m})});
  const auto s = b.add1(OpKind::kReduceSum, {e}, {{"axes", last}, {"keepDimensions", true}});
  b.output(b.add1(OpKind::kDiv, {e, s}, {}, "p"));
  const Tensor xv = seeded({3, 4, 9}, 8);
  const std::vector<NamedView> feed = {{"x", xv.view()}};
  expect_same_as_reference(g, feed);
  const auto labels = kernel_labels(g, feed);
  EXPECT_TRUE(has_label(labels, "softmax 'p'")) << ::testing::PrintToString(labels);
  EXPECT_EQ(labels.size(), 1u) << ::testing::PrintToString(labels);
}

}  // namespace
}  // namespace wnn::runtime
