// The softplus and l2 pattern passes: log(1 + exp(x)) becomes softplus, reduceSum(x * x) and
// reduceSum(pow(x, 2)) become reduceSumSquare, and sqrt(reduceSumSquare(x)) becomes reduceL2,
// computing what the written-out graph computes on the reference kernels; look-alikes (other
// constants, a shared intermediate, a broadcast) are left as they were.
#include <gtest/gtest.h>

#include "reference_eval.h"
#include "wnn/passes/canonicalize.h"
#include "wnn/passes/fuse_l2.h"
#include "wnn/passes/fuse_softplus.h"

namespace wnn::passes {
namespace {

using testing::count_ops;
using testing::evaluate;
using testing::expect_unchanged_by;
using testing::max_abs_difference;
using testing::seeded;
using Ints = std::vector<int64_t>;

OperandId scalar(GraphBuilder& b, float v, Shape shape = {}) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  *t.mutable_view().as<float>() = v;
  return b.constant(b.unique_name("k"), t);
}

struct SoftplusVariant {
  Shape x = {3, 7};
  float one = 1;
  bool one_first = false;
  Shape one_shape = {};
  bool share_exp = false;
};

Graph softplus_graph(const SoftplusVariant& v) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, v.x});
  const auto e = b.add1(OpKind::kExp, {x}, {}, "e");
  const auto k = scalar(b, v.one, v.one_shape);
  const auto s = b.add1(OpKind::kAdd, {v.one_first ? k : e, v.one_first ? e : k});
  b.output(b.add1(OpKind::kLog, {s}, {}, "y"));
  if (v.share_exp) b.output(e);
  return g;
}

TEST(FuseSoftplus, BothOperandOrdersBecomeOneSoftplus) {
  for (bool one_first : {false, true}) {
    SoftplusVariant v;
    v.one_first = one_first;
    v.one_shape = one_first ? Shape{1, 1} : Shape{};
    const Graph g = softplus_graph(v);
    const auto r = fuse_softplus(g);
    EXPECT_EQ(r.fused, 1u);
    ASSERT_EQ(r.graph.nodes().size(), 1u);
    EXPECT_EQ(r.graph.nodes()[0].op(), OpKind::kSoftplus);
    EXPECT_EQ(r.graph.name_of(r.graph.nodes()[0].outputs[0]), "y");
    // Values in [-20, 20): the written-out form is exact enough there.
    const std::map<std::string, Tensor> in = {{"x", seeded(v.x, 3, -20, 20)}};
    EXPECT_LT(max_abs_difference(evaluate(r.graph, in)[0], evaluate(g, in)[0]), 2e-6 * 20);
  }
}

TEST(FuseSoftplus, LookAlikesStay) {
  SoftplusVariant other_constant;
  other_constant.one = 2;
  expect_unchanged_by(fuse_softplus, softplus_graph(other_constant));
  SoftplusVariant shared;
  shared.share_exp = true;
  expect_unchanged_by(fuse_softplus, softplus_graph(shared));
  SoftplusVariant broadcast;  // the "1" widens x
  broadcast.one_shape = {2, 1, 1};
  expect_unchanged_by(fuse_softplus, softplus_graph(broadcast));
}

struct L2Variant {
  Shape x = {2, 5, 6};
  Ints axes = {2};
  bool keep = true;
  bool use_pow = false;
  float exponent = 2;
  bool eps = false;           // sqrt(sum + eps): the sqrt stays
  bool share_sum = false;     // the sum is also an output
  bool square_other = false;  // x * w, not a square
};

Graph l2_graph(const L2Variant& v) {
  Graph g;
  GraphBuilder b(g);
  const auto in = b.input("in", {DataType::kFloat32, v.x});
  const auto x = b.add1(OpKind::kTanh, {in});
  const auto w = b.add1(OpKind::kSigmoid, {in});
  const auto sq = v.use_pow ? b.add1(OpKind::kPow, {x, scalar(b, v.exponent)})
                            : b.add1(OpKind::kMul, {x, v.square_other ? w : x});
  auto s = b.add1(OpKind::kReduceSum, {sq}, {{"axes", v.axes}, {"keepDimensions", v.keep}}, "s");
  if (v.share_sum) b.output(s);
  if (v.eps) s = b.add1(OpKind::kAdd, {s, scalar(b, 1e-6f)});
  const auto n = b.add1(OpKind::kSqrt, {s});
  b.output(v.keep ? b.add1(OpKind::kDiv, {x, n}, {}, "y") : n);
  return g;
}

void expect_same_values(const Graph& a, const Graph& b, const Shape& x) {
  const std::map<std::string, Tensor> in = {{"in", seeded(x, 5)}};
  const auto ra = evaluate(a, in), rb = evaluate(b, in);
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t i = 0; i < ra.size(); ++i) EXPECT_LT(max_abs_difference(ra[i], rb[i]), 1e-5);
}

TEST(FuseL2, WrittenOutL2NormalizeBecomesReduceL2ThenDiv) {
  for (bool use_pow : {false, true}) {
    for (const Ints& axes : {Ints{2}, Ints{1, 2}}) {
      L2Variant v;
      v.use_pow = use_pow;
      v.axes = axes;
      const Graph g = l2_graph(v);
      const Canonical c = canonicalize(g);
      EXPECT_EQ(count_ops(c.graph, OpKind::kReduceL2), 1u);
      EXPECT_EQ(count_ops(c.graph, OpKind::kSqrt), 0u);
      EXPECT_EQ(count_ops(c.graph, OpKind::kReduceSum), 0u);
      EXPECT_EQ(count_ops(c.graph, OpKind::kDiv), 1u);
      for (const Node& n : c.graph.nodes()) {
        if (n.op() == OpKind::kReduceL2) EXPECT_EQ(reduced_axes(c.graph, n), axes);
      }
      expect_same_values(g, c.graph, v.x);
    }
  }
}

TEST(FuseL2, EpsBeforeTheSqrtKeepsItOverReduceSumSquare) {
  L2Variant v;
  v.eps = true;
  v.keep = false;  // the norm itself is the output, dims dropped
  const Graph g = l2_graph(v);
  const auto r = fuse_sum_square(g);
  EXPECT_EQ(r.fused, 1u);
  EXPECT_EQ(count_ops(r.graph, OpKind::kReduceSumSquare), 1u);
  EXPECT_EQ(count_ops(r.graph, OpKind::kMul), 0u);
  expect_unchanged_by(fuse_l2_norm, r.graph);  // the add sits between
  expect_same_values(g, r.graph, v.x);
}

TEST(FuseL2, LookAlikesStay) {
  L2Variant cube;
  cube.use_pow = true;
  cube.exponent = 3;
  expect_unchanged_by(fuse_sum_square, l2_graph(cube));
  L2Variant other;
  other.square_other = true;
  expect_unchanged_by(fuse_sum_square, l2_graph(other));
  L2Variant shared;
  shared.share_sum = true;
  const auto r = fuse_sum_square(l2_graph(shared));
  EXPECT_EQ(r.fused, 1u);                      // the sum of squares is still one reduceSumSquare...
  expect_unchanged_by(fuse_l2_norm, r.graph);  // ...but read twice, so no reduceL2
}

}  // namespace
}  // namespace wnn::passes
