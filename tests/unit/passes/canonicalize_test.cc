// The canonicalization step: every pattern pass runs, each count names its pattern, a second
// run finds nothing (the fixpoint), and the canonical graph computes the written-out one's
// values on the reference kernels.
#include "wnn/passes/canonicalize.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reference_eval.h"

namespace wnn::passes {
namespace {

using testing::count_ops;
using testing::evaluate;
using testing::filled;
using testing::max_abs_difference;
using testing::seeded;
using Ints = std::vector<int64_t>;

// x -> layer norm (written out) -> gelu (written out) -> hardSwish (written out) -> softmax
// (written out) -> y, plus a second written-out gelu on the way to another output.
Graph transformer_like() {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {3, 8}});
  auto k = [&](float v) { return b.constant(b.unique_name("k"), filled({}, v)); };
  const Ints last = {1};
  const auto mean = b.add1(OpKind::kReduceMean, {x}, {{"axes", last}, {"keepDimensions", true}});
  const auto d = b.add1(OpKind::kSub, {x, mean});
  const auto var = b.add1(OpKind::kReduceMean, {b.add1(OpKind::kPow, {d, k(2)})},
                          {{"axes", last}, {"keepDimensions", true}});
  const auto n =
      b.add1(OpKind::kDiv, {d, b.add1(OpKind::kSqrt, {b.add1(OpKind::kAdd, {var, k(1e-5f)})})});
  const auto ln = b.add1(OpKind::kAdd,
                         {b.add1(OpKind::kMul, {n, b.constant("gamma", seeded({8}, 1))}),
                          b.constant("beta", seeded({8}, 2))},
                         {}, "ln");
  auto gelu = [&](OperandId v, const std::string& name) {
    const auto erf = b.add1(OpKind::kErf, {b.add1(OpKind::kDiv, {v, k(std::sqrt(2.0f))})});
    return b.add1(OpKind::kMul,
                  {b.add1(OpKind::kMul, {v, b.add1(OpKind::kAdd, {erf, k(1)})}), k(0.5f)}, {},
                  name);
  };
  const auto g1 = gelu(ln, "g1");
  const auto clamp = b.add1(OpKind::kClamp, {b.add1(OpKind::kAdd, {g1, k(3)})},
                            {{"minValue", 0.0}, {"maxValue", 6.0}});
  const auto hs = b.add1(OpKind::kDiv, {b.add1(OpKind::kMul, {g1, clamp}), k(6)}, {}, "hs");
  const auto m = b.add1(OpKind::kReduceMax, {hs}, {{"axes", last}, {"keepDimensions", true}});
  const auto e = b.add1(OpKind::kExp, {b.add1(OpKind::kSub, {hs, m})});
  b.output(b.add1(OpKind::kDiv,
                  {e, b.add1(OpKind::kReduceSum, {e}, {{"axes", last}, {"keepDimensions", true}})},
                  {}, "y"));
  b.output(gelu(b.add1(OpKind::kNeg, {x}), "z"));
  return g;
}

size_t count_of(const Canonical& c, std::string_view pattern) {
  for (const PatternCount& p : c.counts) {
    if (p.pattern == pattern) return p.replaced;
  }
  ADD_FAILURE() << "no pattern " << pattern;
  return 0;
}

TEST(Canonicalize, EveryPatternIsReplacedAndCounted) {
  const Graph original = transformer_like();
  const Canonical c = canonicalize(original);
  EXPECT_EQ(count_of(c, "gelu"), 2u);
  EXPECT_EQ(count_of(c, "hardSwish"), 1u);
  EXPECT_EQ(count_of(c, "softmax"), 1u);
  EXPECT_EQ(count_of(c, "normalization"), 1u);
  EXPECT_EQ(c.replaced(), 5u);
  // What is left: layerNormalization, gelu, hardSwish, softmax; neg, gelu.
  ASSERT_EQ(c.graph.nodes().size(), 6u);
  EXPECT_EQ(count_ops(c.graph, OpKind::kLayerNormalization), 1u);
  EXPECT_EQ(count_ops(c.graph, OpKind::kGelu), 2u);
  EXPECT_EQ(count_ops(c.graph, OpKind::kHardSwish), 1u);
  EXPECT_EQ(count_ops(c.graph, OpKind::kSoftmax), 1u);
  const std::map<std::string, Tensor> in = {{"x", seeded({3, 8}, 3, -3, 3)}};
  const auto want = evaluate(original, in), got = evaluate(c.graph, in);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_LE(max_abs_difference(want[0], got[0]), 1e-6);  // softmax values, below 1
  EXPECT_LE(max_abs_difference(want[1], got[1]), 1e-5);  // gelu of values up to 3
}

// x * clamp(x / 6 + 0.5, 0, 1): fuse_hard_sigmoid makes the gate one node, and only then does
// fuse_hard_swish see x * hardSigmoid(x, 1/6, 0.5): one pass feeds the next.
TEST(Canonicalize, WrittenOutHardSigmoidGateBecomesHardSwish) {
  Graph g;
  GraphBuilder b(g);
  const auto in = b.input("in", {DataType::kFloat32, {2, 9}});
  const auto x = b.add1(OpKind::kTanh, {in}, {}, "x");
  const auto gate =
      b.add1(OpKind::kClamp,
             {b.add1(OpKind::kAdd, {b.add1(OpKind::kDiv, {x, b.constant("six", filled({}, 6))}),
                                    b.constant("half", filled({}, 0.5f))})},
             {{"minValue", 0.0}, {"maxValue", 1.0}});
  b.output(b.add1(OpKind::kMul, {x, gate}, {}, "y"));
  const Canonical c = canonicalize(g);
  EXPECT_EQ(count_of(c, "hardSigmoid"), 1u);
  EXPECT_EQ(count_of(c, "hardSwish"), 1u);
  ASSERT_EQ(c.graph.nodes().size(), 2u);
  EXPECT_EQ(c.graph.nodes()[1].op(), OpKind::kHardSwish);
  const std::map<std::string, Tensor> in_values = {{"in", seeded({2, 9}, 4, -4, 4)}};
  EXPECT_LE(max_abs_difference(evaluate(g, in_values)[0], evaluate(c.graph, in_values)[0]), 1e-6);
}

TEST(Canonicalize, GraphWithoutPatternsIsUnchanged) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 5}});
  const auto e = b.add1(OpKind::kExp, {x}, {}, "e");
  // exp(x) * sigmoid(x): close to SiLU and softmax in its ops, neither.
  b.output(b.add1(OpKind::kMul, {e, b.add1(OpKind::kSigmoid, {x})}, {}, "silu_like"));
  const Canonical c = canonicalize(g);
  EXPECT_EQ(c.replaced(), 0u);
  ASSERT_EQ(c.counts.size(), 12u);
  ASSERT_EQ(c.graph.nodes().size(), g.nodes().size());
}

}  // namespace
}  // namespace wnn::passes
