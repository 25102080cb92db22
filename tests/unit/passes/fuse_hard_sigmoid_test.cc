// The hardSigmoid pattern pass: clamp(x * a + b, 0, 1) in its written-out variants becomes one
// hardSigmoid node with alpha a and beta b, computing the same values on the reference
// kernels; look-alikes (another bound, a shared intermediate, a broadcasting constant, the
// clamp of another value) are left as they were.
#include "wnn/passes/fuse_hard_sigmoid.h"

#include <gtest/gtest.h>

#include "reference_eval.h"

namespace wnn::passes {
namespace {

using testing::count_ops;
using testing::evaluate;
using testing::filled;
using testing::max_abs_difference;
using testing::seeded;

enum class Scale { kMul, kMulFirst, kDiv, kNone };
enum class Bound { kClamp, kMaxThenMin, kMinThenMax };

struct Variant {
  Scale scale = Scale::kMul;
  Bound bound = Bound::kClamp;
  float a = 0.2f, b = 0.5f, lo = 0, hi = 1;
  bool b_first = false;    // b + x * a
  bool share_sum = false;  // x * a + b is also a graph output
  Shape b_shape = {};      // [1, 1] stays one element; [4, 1] broadcasts
};

Graph build(const Variant& v) {
  Graph g;
  GraphBuilder b(g);
  const auto in = b.input("in", {DataType::kFloat32, {3, 4}});
  const auto x = b.add1(OpKind::kNeg, {in}, {}, "x");
  OperandId t = x;
  const auto a = b.constant("a", filled({}, v.scale == Scale::kDiv ? 1 / v.a : v.a));
  if (v.scale == Scale::kMul) t = b.add1(OpKind::kMul, {x, a});
  if (v.scale == Scale::kMulFirst) t = b.add1(OpKind::kMul, {a, x});
  if (v.scale == Scale::kDiv) t = b.add1(OpKind::kDiv, {x, a});
  const auto bias = b.constant("b", filled(v.b_shape, v.b));
  const auto sum = v.b_first ? b.add1(OpKind::kAdd, {bias, t}, {}, "sum")
                             : b.add1(OpKind::kAdd, {t, bias}, {}, "sum");
  const auto lo = b.constant("lo", filled({}, v.lo)), hi = b.constant("hi", filled({}, v.hi));
  OperandId y;
  switch (v.bound) {
    case Bound::kClamp:
      y = b.add1(OpKind::kClamp, {sum}, {{"minValue", double(v.lo)}, {"maxValue", double(v.hi)}},
                 "y");
      break;
    case Bound::kMaxThenMin:
      y = b.add1(OpKind::kMin, {b.add1(OpKind::kMax, {sum, lo}), hi}, {}, "y");
      break;
    case Bound::kMinThenMax:
      y = b.add1(OpKind::kMax, {lo, b.add1(OpKind::kMin, {hi, sum})}, {}, "y");
      break;
  }
  b.output(y);
  if (v.share_sum) b.output(sum);
  return g;
}

void expect_fused(const Variant& v, double alpha) {
  const Graph original = build(v);
  const auto r = fuse_hard_sigmoid(original);
  EXPECT_EQ(r.fused, 1u);
  ASSERT_EQ(count_ops(r.graph, OpKind::kHardSigmoid), 1u);
  ASSERT_EQ(r.graph.nodes().size(), 2u);  // the neg computing x, hardSigmoid
  const Node& h = r.graph.nodes()[1];
  EXPECT_EQ(r.graph.name_of(h.inputs[0]), "x");
  EXPECT_EQ(r.graph.name_of(h.outputs[0]), "y");
  EXPECT_NEAR(h.attrs.get_float("alpha"), alpha, 1e-6 * std::abs(alpha));
  EXPECT_NEAR(h.attrs.get_float("beta"), v.b, 1e-7);
  // Inputs from -8 to 8: below, inside and above the ramp.
  const std::map<std::string, Tensor> in = {{"in", seeded({3, 4}, 9, -8, 8)}};
  EXPECT_LE(max_abs_difference(evaluate(original, in)[0], evaluate(r.graph, in)[0]), 1e-6);
}

void expect_untouched(const Variant& v) {
  testing::expect_unchanged_by(fuse_hard_sigmoid, build(v));
}

TEST(FuseHardSigmoid, WrittenOutFormsBecomeOneNode) {
  expect_fused({}, 0.2);
  expect_fused({.scale = Scale::kMulFirst, .b_first = true}, 0.2);
  expect_fused({.scale = Scale::kDiv, .a = 1.0f / 6, .b = 0.5f}, 1.0 / 6);
  expect_fused({.scale = Scale::kNone, .b = -0.25f}, 1.0);
  expect_fused({.bound = Bound::kMaxThenMin, .a = -0.3f, .b = 0.4f}, -0.3);
  expect_fused({.bound = Bound::kMinThenMax}, 0.2);
  expect_fused({.b_shape = {1, 1}}, 0.2);
}

TEST(FuseHardSigmoid, LookAlikesAreLeftAlone) {
  expect_untouched({.lo = -1});  // clamp to -1..1
  expect_untouched({.hi = 6});   // the hardSwish gate's clamp to 0..6
  expect_untouched({.bound = Bound::kMaxThenMin, .hi = 2});
  expect_untouched({.bound = Bound::kMinThenMax, .lo = 0.5f});
  expect_untouched({.share_sum = true});
  expect_untouched({.b_shape = {4}});  // one b per column
}

}  // namespace
}  // namespace wnn::passes
