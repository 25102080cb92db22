// The softmax pattern pass: exp(x - reduceMax(x)) / reduceSum(exp(...)) and exp(x) /
// reduceSum(exp(x)) on one kept axis become one softmax node computing the same values on
// the reference kernels; look-alikes (another axis, a reduction without its dims kept, an
// exp read elsewhere, a max over another value) are left as they were.
#include "wnn/passes/fuse_softmax.h"

#include <gtest/gtest.h>

#include "reference_eval.h"

namespace wnn::passes {
namespace {

using testing::count_ops;
using testing::evaluate;
using testing::max_abs_difference;
using testing::seeded;
using Ints = std::vector<int64_t>;

struct Variant {
  Shape x = {2, 3, 6};
  bool shift = true;  // subtract reduceMax(x) first
  Ints max_axes = {2}, sum_axes = {2};
  bool keep_sum = true;
  bool reciprocal = false;    // e * reciprocal(sum) instead of e / sum
  bool share_exp = false;     // e is also a graph output
  bool max_of_other = false;  // x - reduceMax(other)
  bool sum_over_exp = false;  // reduceSum(e) / e
};

Graph build(const Variant& v) {
  Graph g;
  GraphBuilder b(g);
  const auto in = b.input("in", {DataType::kFloat32, v.x});
  const auto x = b.add1(OpKind::kMul, {in, b.constant("k", seeded({}, 3, 2, 4))}, {}, "x");
  const auto other = b.add1(OpKind::kNeg, {in});
  OperandId t = x;
  if (v.shift) {
    const auto m = b.add1(OpKind::kReduceMax, {v.max_of_other ? other : x},
                          {{"axes", v.max_axes}, {"keepDimensions", true}});
    t = b.add1(OpKind::kSub, {x, m});
  }
  const auto e = b.add1(OpKind::kExp, {t}, {}, "e");
  const auto s =
      b.add1(OpKind::kReduceSum, {e}, {{"axes", v.sum_axes}, {"keepDimensions", v.keep_sum}});
  OperandId y;
  if (v.reciprocal) {
    y = b.add1(OpKind::kMul, {b.add1(OpKind::kReciprocal, {s}), e}, {}, "y");
  } else {
    y = v.sum_over_exp ? b.add1(OpKind::kDiv, {s, e}, {}, "y")
                       : b.add1(OpKind::kDiv, {e, s}, {}, "y");
  }
  b.output(y);
  if (v.share_exp) b.output(e);
  return g;
}

// One softmax over `axis` named y; the values equal the written-out graph's within 1e-6
// (softmax values are below 1).
void expect_fused(const Variant& v, int64_t axis) {
  const Graph original = build(v);
  const auto r = fuse_softmax(original);
  EXPECT_EQ(r.fused, 1u);
  ASSERT_EQ(count_ops(r.graph, OpKind::kSoftmax), 1u);
  EXPECT_EQ(r.graph.nodes().size(), 3u);  // x's mul, the unread neg, softmax
  for (const Node& n : r.graph.nodes()) {
    if (n.op() != OpKind::kSoftmax) continue;
    EXPECT_EQ(r.graph.name_of(n.inputs[0]), "x");
    EXPECT_EQ(r.graph.name_of(n.outputs[0]), "y");
    EXPECT_EQ(n.attrs.get_int("axis"), axis);
  }
  const std::map<std::string, Tensor> in = {{"in", seeded(v.x, 5)}};
  EXPECT_LE(max_abs_difference(evaluate(original, in)[0], evaluate(r.graph, in)[0]), 1e-6);
}

void expect_untouched(const Variant& v) { testing::expect_unchanged_by(fuse_softmax, build(v)); }

TEST(FuseSoftmax, WrittenOutSoftmaxBecomesOneNode) {
  expect_fused({}, 2);
  expect_fused({.shift = false}, 2);
  expect_fused({.reciprocal = true}, 2);
  expect_fused({.shift = false, .reciprocal = true}, 2);
  expect_fused({.max_axes = {1}, .sum_axes = {1}}, 1);
  expect_fused({.x = {4, 1, 5}, .max_axes = {0}, .sum_axes = {0}}, 0);
}

TEST(FuseSoftmax, LookAlikesAreLeftAlone) {
  expect_untouched({.sum_over_exp = true});                // sum / e
  expect_untouched({.shift = false, .sum_axes = {1, 2}});  // over two axes
  expect_untouched({.x = {6, 6}, .max_axes = {1}, .sum_axes = {1}, .keep_sum = false});
  expect_untouched({.share_exp = true});  // e read elsewhere
  expect_untouched({.shift = false, .share_exp = true});
}

// A max over another value, or over another axis than the sum, is no softmax's shift: the exp
// of the difference over the sum of the same exps is still a softmax of that difference, so
// only the exp, sum and division become one softmax, reading the sub.
TEST(FuseSoftmax, ShiftByAnotherMaxStaysOutside) {
  for (const Variant& v :
       {Variant{.max_of_other = true}, Variant{.max_axes = {1}}, Variant{.sum_axes = {1}}}) {
    const Graph original = build(v);
    const auto r = fuse_softmax(original);
    EXPECT_EQ(r.fused, 1u);
    EXPECT_EQ(count_ops(r.graph, OpKind::kSoftmax), 1u);
    EXPECT_EQ(count_ops(r.graph, OpKind::kReduceMax), 1u);
    EXPECT_EQ(count_ops(r.graph, OpKind::kSub), 1u);
    const std::map<std::string, Tensor> in = {{"in", seeded({2, 3, 6}, 5)}};
    EXPECT_LE(max_abs_difference(evaluate(original, in)[0], evaluate(r.graph, in)[0]), 1e-6);
  }
}

}  // namespace
}  // namespace wnn::passes
