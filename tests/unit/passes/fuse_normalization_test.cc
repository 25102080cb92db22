// The normalization pattern pass: layer and instance normalization written out with
// reductions (PyTorch's export of nn.LayerNorm before opset 17, and its variants) become one
// node that computes the same values on the reference kernels; look-alikes (another axis, an
// exponent other than 2, a shared intermediate, eps outside the sqrt) are left as they were.
#include "wnn/passes/fuse_normalization.h"

#include <gtest/gtest.h>

#include "reference_eval.h"

namespace wnn::passes {
namespace {

using testing::count_ops;
using testing::evaluate;
using testing::filled;
using testing::max_abs_difference;
using testing::seeded;
using Ints = std::vector<int64_t>;

// Knobs of the written-out form; the defaults are PyTorch's opset 13 export of nn.LayerNorm.
struct Variant {
  Shape x = {2, 5, 7};
  Ints mean_axes = {2}, var_axes = {2};
  bool square_by_mul = false;  // d * d instead of pow(d, 2)
  float exponent = 2;
  float eps = 1e-5f;
  bool eps_first = false;       // eps + var
  bool reciprocal = false;      // d * reciprocal(sqrt(...)) instead of d / sqrt(...)
  bool eps_after_sqrt = false;  // sqrt(var) + eps: not a normalization's eps
  bool mean_minus_x = false;    // mean - x
  bool gamma_first = false;     // gamma * n, beta + y
  std::optional<Shape> gamma = Shape{7}, beta = Shape{7};
  bool gamma_is_input = false;  // gamma a graph input, not a constant
  bool share_d = false;         // d is also a graph output
  bool share_var = false;       // var is also a graph output
  bool keep_mean = true;
};

Graph build(const Variant& v) {
  Graph g;
  GraphBuilder b(g);
  const auto in = b.input("in", {DataType::kFloat32, v.x});
  const auto x = b.add1(OpKind::kTanh, {in}, {}, "x");
  auto reduce = [&](OperandId t, const Ints& axes, bool keep) {
    return b.add1(OpKind::kReduceMean, {t}, {{"axes", axes}, {"keepDimensions", keep}});
  };
  const auto mean = reduce(x, v.mean_axes, v.keep_mean);
  const auto d = v.mean_minus_x ? b.add1(OpKind::kSub, {mean, x}, {}, "d")
                                : b.add1(OpKind::kSub, {x, mean}, {}, "d");
  const auto sq = v.square_by_mul
                      ? b.add1(OpKind::kMul, {d, d})
                      : b.add1(OpKind::kPow, {d, b.constant("two", filled({}, v.exponent))});
  const auto var = reduce(sq, v.var_axes, true);
  const auto eps = b.constant("eps", filled({}, v.eps));
  OperandId s;
  if (v.eps_after_sqrt) {
    s = b.add1(OpKind::kAdd, {b.add1(OpKind::kSqrt, {var}), eps});
  } else {
    const auto ve =
        v.eps_first ? b.add1(OpKind::kAdd, {eps, var}) : b.add1(OpKind::kAdd, {var, eps});
    s = b.add1(OpKind::kSqrt, {ve});
  }
  OperandId y = v.reciprocal ? b.add1(OpKind::kMul, {d, b.add1(OpKind::kReciprocal, {s})}, {}, "n")
                             : b.add1(OpKind::kDiv, {d, s}, {}, "n");
  if (v.gamma) {
    const auto gamma = v.gamma_is_input ? b.input("gamma", {DataType::kFloat32, *v.gamma})
                                        : b.constant("gamma", seeded(*v.gamma, 11, 0.5f, 2));
    y = v.gamma_first ? b.add1(OpKind::kMul, {gamma, y}, {}, "scaled")
                      : b.add1(OpKind::kMul, {y, gamma}, {}, "scaled");
  }
  if (v.beta) {
    const auto beta = b.constant("beta", seeded(*v.beta, 12));
    y = v.gamma_first ? b.add1(OpKind::kAdd, {beta, y}, {}, "y")
                      : b.add1(OpKind::kAdd, {y, beta}, {}, "y");
  }
  b.output(y);
  if (v.share_d) b.output(d);
  if (v.share_var) b.output(var);
  return g;
}

std::map<std::string, Tensor> inputs_for(const Variant& v) {
  std::map<std::string, Tensor> in = {{"in", seeded(v.x, 7, -3, 2)}};
  if (v.gamma_is_input) in.emplace("gamma", seeded(*v.gamma, 13, -1.5f, 1.5f));
  return in;
}

// The pass replaced one pattern by `op` named `result` (leaving `kept` nodes besides x's tanh),
// and the rewritten graph computes the written-out graph's values within `tolerance` (they
// are at most about 8 in magnitude).
void expect_fused(const Variant& v, OpKind op, size_t kept = 1, const std::string& result = "y",
                  double tolerance = 1e-5) {
  const Graph original = build(v);
  const auto r = fuse_normalization(original);
  EXPECT_EQ(r.fused, 1u);
  ASSERT_EQ(count_ops(r.graph, op), 1u);
  EXPECT_EQ(r.graph.nodes().size(), 1 + kept);  // the tanh feeding x, plus `kept`
  for (OpKind gone : {OpKind::kReduceMean, OpKind::kSub, OpKind::kPow, OpKind::kSqrt, OpKind::kDiv,
                      OpKind::kReciprocal})
    EXPECT_EQ(count_ops(r.graph, gone), 0u) << op_name(gone);
  // The node keeps the name of the pattern's last value.
  for (const Node& n : r.graph.nodes()) {
    if (n.op() == op) {
      EXPECT_EQ(r.graph.name_of(n.outputs[0]), result);
    }
  }
  const auto in = inputs_for(v);
  const auto want = evaluate(original, in), got = evaluate(r.graph, in);
  ASSERT_EQ(want.size(), got.size());
  EXPECT_LE(max_abs_difference(want[0], got[0]), tolerance);
}

void expect_untouched(const Variant& v) {
  testing::expect_unchanged_by(fuse_normalization, build(v));
}

TEST(FuseNormalization, PyTorchLayerNormBecomesOneNode) {
  expect_fused({}, OpKind::kLayerNormalization);
  // A large eps carries through: ignoring it would move every value by far more than 1e-5.
  expect_fused({.eps = 0.25f}, OpKind::kLayerNormalization);
}

TEST(FuseNormalization, EveryWrittenOutVariantBecomesOneNode) {
  for (const Variant& v :
       {Variant{.square_by_mul = true}, Variant{.eps_first = true}, Variant{.reciprocal = true},
        Variant{.gamma_first = true}, Variant{.gamma = Shape{1, 1, 7}, .beta = Shape{1, 7}},
        Variant{.square_by_mul = true, .eps = 1e-6f, .reciprocal = true, .gamma_first = true},
        // Two trailing axes, listed in either order.
        Variant{.mean_axes = {1, 2}, .var_axes = {2, 1}, .gamma = Shape{5, 7}, .beta = Shape{5, 7}},
        Variant{.x = {3, 1, 9}, .gamma = Shape{9}, .beta = Shape{9}}}) {
    SCOPED_TRACE(::testing::PrintToString(v.gamma.value_or(Shape{})));
    expect_fused(v, OpKind::kLayerNormalization);
  }
}

// A gamma that is no constant becomes the scale directly, or through a reshape.
TEST(FuseNormalization, NonConstantGammaIsTheScale) {
  expect_fused({.gamma_is_input = true}, OpKind::kLayerNormalization);
  expect_fused({.gamma = Shape{1, 7}, .gamma_is_input = true}, OpKind::kLayerNormalization, 2);
}

TEST(FuseNormalization, WithoutAffineTheNormalizedValueIsTheResult) {
  expect_fused({.beta = std::nullopt}, OpKind::kLayerNormalization, 1, "scaled");
  expect_fused({.gamma = std::nullopt, .beta = std::nullopt}, OpKind::kLayerNormalization, 1, "n");
}

// Reduced over H and W of NCHW with a per-channel affine: instanceNormalization; without an
// affine, the same reduction is a layerNormalization over axes 2 and 3.
TEST(FuseNormalization, SpatialReductionWithPerChannelAffineIsInstanceNormalization) {
  const Variant instance{.x = {2, 3, 4, 5},
                         .mean_axes = {2, 3},
                         .var_axes = {2, 3},
                         .eps = 1e-3f,
                         .gamma = Shape{3, 1, 1},
                         .beta = Shape{1, 3, 1, 1}};
  expect_fused(instance, OpKind::kInstanceNormalization);
  Variant plain = instance;
  plain.gamma = plain.beta = std::nullopt;
  expect_fused(plain, OpKind::kLayerNormalization, 1, "n");
}

// A gamma that broadcasts along a kept axis is no scale: the normalization still becomes one
// node, the mul and add stay.
TEST(FuseNormalization, AffineThatIsNoScaleStaysOutside) {
  expect_fused({.gamma = Shape{5, 1}}, OpKind::kLayerNormalization, 3, "n");
  expect_fused({.gamma = Shape{}}, OpKind::kLayerNormalization, 3, "n");
}

TEST(FuseNormalization, LookAlikesAreLeftAlone) {
  for (const Variant& v : {
           Variant{.var_axes = {1}},                    // variance over another axis
           Variant{.mean_axes = {1}, .var_axes = {1}},  // not the trailing axes
           Variant{.x = {2, 3, 4, 5},
           .mean_axes = {1, 3},
           .var_axes = {1, 3},
           .gamma = Shape{5},
           .beta = Shape{5}},
           Variant{.exponent = 3},           // not a square
           Variant{.eps = -1e-5f},           // a negative epsilon
           Variant{.eps_after_sqrt = true},  // sqrt(var) + eps
           Variant{.mean_minus_x = true},    // mean - x
           Variant{.share_d = true},         // d read elsewhere
           Variant{.share_var = true},       // var read elsewhere
           Variant{.x = {7, 7, 7}, .gamma = Shape{7}, .beta = Shape{7}, .keep_mean = false},
       }) {
    expect_untouched(v);
  }
}

}  // namespace
}  // namespace wnn::passes
