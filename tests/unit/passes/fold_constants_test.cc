// Folding parameter-only subgraphs: what folds, what must not, and that results are unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "wnn/core/builder.h"
#include "wnn/passes/fold_constants.h"

namespace wnn::passes {
namespace {

Tensor f32_tensor(Shape shape, const std::vector<float>& v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  std::memcpy(t.data.mutable_data(), v.data(), v.size() * sizeof(float));
  return t;
}

std::vector<float> floats(const Tensor& t) {
  std::vector<float> v(size_t(t.size()));
  std::memcpy(v.data(), t.data.data(), t.byte_size());
  return v;
}

const ConstantInfo* constant_named(const Graph& g, std::string_view name) {
  const auto id = g.find(name);
  return id ? g.constant_of(*id) : nullptr;
}

TEST(FoldConstants, WeightNormFilterBecomesOneConstant) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 2, 1, 5}});
  // v: [O=2, I=2, 1, 2]; g: [2, 1, 1, 1]; w = g * v / ||v|| per output channel.
  const std::vector<float> v = {3, -4, 0, 0, 1, 2, -2, 4};
  const auto vc = b.constant("v", f32_tensor({2, 2, 1, 2}, v));
  const auto gc = b.constant("g", f32_tensor({2, 1, 1, 1}, {2.0f, -0.5f}));
  const auto norm =
      b.add1(OpKind::kReduceL2, {vc},
             {{"axes", std::vector<int64_t>{1, 2, 3}}, {"keepDimensions", true}}, "norm");
  const auto w = b.add1(OpKind::kMul, {gc, b.add1(OpKind::kDiv, {vc, norm}, {}, "unit")}, {}, "w");
  b.output(b.add1(OpKind::kConv2d, {x, w}, {}, "y"));

  const FoldResult r = fold_constants(g);
  EXPECT_EQ(r.folded_nodes, 3u);
  ASSERT_EQ(r.graph.nodes().size(), 1u);
  EXPECT_EQ(r.graph.nodes()[0].op(), OpKind::kConv2d);
  // Only the folded filter remains as a constant: v and g are no longer read.
  ASSERT_EQ(r.graph.constants().size(), 1u);
  const ConstantInfo* wc = constant_named(r.graph, "w");
  ASSERT_NE(wc, nullptr);
  // ||v0|| = 5, ||v1|| = 5: w0 = 2 * v0 / 5, w1 = -0.5 * v1 / 5.
  const std::vector<float> expected = {1.2f, -1.6f, 0, 0, -0.1f, -0.2f, 0.2f, -0.4f};
  const auto got = floats({DataType::kFloat32, {2, 2, 1, 2}, wc->data});
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6) << i;
}

TEST(FoldConstants, QuantizeAndDequantizeNodesAreNeverFolded) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 2, 3, 3}});
  Tensor wq = Tensor::zeros(DataType::kInt8, {2, 2, 1, 1});
  const int8_t wv[] = {-3, 5, 7, -1};
  std::memcpy(wq.data.mutable_data(), wv, 4);
  Tensor zp = Tensor::zeros(DataType::kInt8, {2, 1, 1, 1});
  const auto wqc = b.constant("wq", wq);
  const auto sc = b.constant("ws", f32_tensor({2, 1, 1, 1}, {0.5f, 0.25f}));
  const auto zc = b.constant("wz", zp);
  const auto wdq = b.add1(OpKind::kDequantizeLinear, {wqc, sc, zc}, {}, "w");
  // A transpose of the dequantized weight is not all-constant after DQ stays, so it stays too.
  const auto wt =
      b.add1(OpKind::kTranspose, {wdq}, {{"permutation", std::vector<int64_t>{0, 1, 3, 2}}}, "wt");
  // A foldable chain beside it: neg of a constant bias.
  const auto bias =
      b.add1(OpKind::kNeg, {b.constant("b0", f32_tensor({2}, {1.5f, -2.0f}))}, {}, "b");
  b.output(b.add1(OpKind::kConv2d, {x, wt}, {{"bias", bias}}, "y"));

  auto qdq = [](const Graph& graph) {
    std::multiset<std::string> names;
    for (const Node& n : graph.nodes()) {
      if (n.op() == OpKind::kQuantizeLinear || n.op() == OpKind::kDequantizeLinear) {
        names.insert(std::string(op_name(n.op())) + ":" + graph.name_of(n.outputs[0]));
      }
    }
    return names;
  };
  const FoldResult r = fold_constants(g);
  EXPECT_EQ(qdq(r.graph), qdq(g));
  EXPECT_EQ(qdq(r.graph).size(), 1u);
  EXPECT_EQ(r.folded_nodes, 1u);  // only the neg
  EXPECT_EQ(r.graph.nodes().size(), 3u);
  ASSERT_NE(constant_named(r.graph, "b"), nullptr);
}

TEST(FoldConstants, BroadcastOfASmallConstantIsNotMaterialised) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {512, 1024}});
  const auto c = b.constant("c", f32_tensor({1, 1024}, std::vector<float>(1024, 0.5f)));
  // 2 MiB from 4 KiB: skipped. A small expand (4 KiB from 4 KiB ... x2) folds.
  const auto big = b.add1(OpKind::kExpand, {c, std::vector<int64_t>{512, 1024}}, {}, "big");
  const auto small = b.add1(OpKind::kExpand, {c, std::vector<int64_t>{2, 1024}}, {}, "small");
  b.output(b.add1(OpKind::kAdd, {x, big}, {}, "y"));
  b.output(small);
  const FoldResult r = fold_constants(g);
  EXPECT_EQ(r.folded_nodes, 1u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].find("expand 'big'"), std::string::npos) << r.skipped[0];
  EXPECT_EQ(constant_named(r.graph, "big"), nullptr);
  ASSERT_NE(constant_named(r.graph, "small"), nullptr);
  ASSERT_EQ(r.graph.nodes().size(), 2u);
  EXPECT_EQ(r.graph.nodes()[0].op(), OpKind::kExpand);
}

TEST(FoldConstants, IsDeterministicAndKeepsNamesAndOrder) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {3}});
  const auto c = b.constant("c", f32_tensor({3}, {1, -2, 3}));
  const auto t = b.add1(OpKind::kAbs, {c}, {}, "t");
  b.output(b.add1(OpKind::kSub, {x, t}, {}, "y"));
  const FoldResult r1 = fold_constants(g), r2 = fold_constants(g);
  ASSERT_EQ(r1.graph.operands().size(), r2.graph.operands().size());
  for (size_t i = 0; i < r1.graph.operands().size(); ++i) {
    EXPECT_EQ(r1.graph.operands()[i].name, r2.graph.operands()[i].name);
  }
  EXPECT_EQ(floats({DataType::kFloat32, {3}, constant_named(r1.graph, "t")->data}),
            (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(r1.graph.name_of(r1.graph.outputs()[0]), "y");
}

TEST(FoldConstants, GraphWithNothingToFoldIsCopiedUnchanged) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 2}});
  b.output(b.add1(OpKind::kRelu, {x}, {}, "y"));
  const FoldResult r = fold_constants(g);
  EXPECT_EQ(r.folded_nodes, 0u);
  EXPECT_EQ(r.graph.nodes().size(), 1u);
  EXPECT_EQ(r.graph.inputs().size(), 1u);
}

}  // namespace
}  // namespace wnn::passes
