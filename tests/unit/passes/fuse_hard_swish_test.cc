// The hardSwish pattern pass: each exporter's written-out form becomes one hardSwish node of
// the right operand, and look-alike graphs (other constants, a broadcasting operand, a shared
// intermediate, the gate applied to another value) are left exactly as they were.
#include "wnn/passes/fuse_hard_swish.h"

#include <gtest/gtest.h>

#include <functional>

#include "wnn/core/builder.h"

namespace wnn::passes {
namespace {

using Ints = std::vector<int64_t>;

// Knobs a look-alike turns away from hardSwish's values.
struct Variant {
  float add = 3, clamp_min = 0, clamp_max = 6, divisor = 6;
  Ints divisor_shape = {};           // the divisor's shape: [] or a per-channel [C,1,1]
  bool multiply_by_inverse = false;  // * (1/6) instead of / 6
  bool constant_first = false;       // 3 + x and (1/6) * y
  bool share_clamp = false;          // the clamp's value is also a graph output
  bool gate_other_value = false;     // y * clamp(x + 3, 0, 6) / 6 with y != x
  bool divide_gate = false;          // x * (clamp(x + 3, 0, 6) / 6)
};

Tensor filled(Ints shape, float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.size(); ++i) t.mutable_view().as<float>()[i] = v;
  return t;
}

// x (an input, [1, 3, 4, 5]) -> relu -> the pattern -> output "hs".
Graph clip_form(const Variant& v) {
  Graph g;
  GraphBuilder b(g);
  const auto in = b.input("in", {DataType::kFloat32, {1, 3, 4, 5}});
  const auto x = b.add1(OpKind::kRelu, {in}, {}, "x");
  const auto other = b.add1(OpKind::kSigmoid, {in}, {}, "other");
  const auto three = b.constant("three", filled({}, v.add));
  const auto a =
      v.constant_first ? b.add1(OpKind::kAdd, {three, x}) : b.add1(OpKind::kAdd, {x, three});
  const auto c =
      b.add1(OpKind::kClamp, {a},
             {{"minValue", double(v.clamp_min)}, {"maxValue", double(v.clamp_max)}}, "clamped");
  auto scale = [&](OperandId value, const std::string& name) {
    if (v.multiply_by_inverse) {
      const auto k = b.constant("sixth", filled(v.divisor_shape, 1 / v.divisor));
      return v.constant_first ? b.add1(OpKind::kMul, {k, value}, {}, name)
                              : b.add1(OpKind::kMul, {value, k}, {}, name);
    }
    return b.add1(OpKind::kDiv, {value, b.constant("six", filled(v.divisor_shape, v.divisor))}, {},
                  name);
  };
  const OperandId gated = v.gate_other_value ? other : x;
  if (v.divide_gate) {
    b.output(b.add1(OpKind::kMul, {gated, scale(c, "gate")}, {}, "hs"));
  } else {
    b.output(scale(b.add1(OpKind::kMul, {gated, c}, {}, "product"), "hs"));
  }
  if (v.share_clamp) b.output(c);
  return g;
}

size_t count(const Graph& g, OpKind op) {
  size_t n = 0;
  for (const Node& node : g.nodes()) n += node.op() == op;
  return n;
}

void expect_fused(const Graph& original, const std::string& result_name) {
  const auto r = fuse_hard_swish(original);
  EXPECT_EQ(r.fused, 1u);
  ASSERT_EQ(count(r.graph, OpKind::kHardSwish), 1u);
  for (OpKind gone :
       {OpKind::kAdd, OpKind::kClamp, OpKind::kDiv, OpKind::kMul, OpKind::kHardSigmoid})
    EXPECT_EQ(count(r.graph, gone), 0u) << op_name(gone);
  for (const Node& n : r.graph.nodes()) {
    if (n.op() != OpKind::kHardSwish) continue;
    EXPECT_EQ(r.graph.name_of(n.inputs[0]), "x");  // of x, not of the other value
    EXPECT_EQ(r.graph.name_of(n.outputs[0]), result_name);
  }
}

void expect_untouched(const Graph& original) {
  const auto r = fuse_hard_swish(original);
  EXPECT_EQ(r.fused, 0u);
  ASSERT_EQ(r.graph.nodes().size(), original.nodes().size());
  for (size_t n = 0; n < original.nodes().size(); ++n)
    EXPECT_EQ(r.graph.nodes()[n].op(), original.nodes()[n].op()) << n;
}

TEST(FuseHardSwish, ClipFormsOfEveryExporterBecomeOneNode) {
  expect_fused(clip_form({}), "hs");
  for (const Variant& v :
       {Variant{.multiply_by_inverse = true}, Variant{.constant_first = true},
        Variant{.multiply_by_inverse = true, .constant_first = true}, Variant{.divide_gate = true},
        Variant{.multiply_by_inverse = true, .divide_gate = true}, Variant{.divisor_shape = {1}},
        Variant{.divisor_shape = {1, 1, 1, 1}}}) {
    expect_fused(clip_form(v), "hs");
  }
}

TEST(FuseHardSwish, LookAlikesAreLeftAlone) {
  for (const Variant& v :
       {Variant{.add = 2}, Variant{.add = -3}, Variant{.clamp_min = -1}, Variant{.clamp_max = 5},
        Variant{.divisor = 5}, Variant{.divisor_shape = {3, 1, 1}},  // per channel
        Variant{.divisor_shape = {3, 1, 1}, .multiply_by_inverse = true, .divide_gate = true},
        Variant{.share_clamp = true}, Variant{.gate_other_value = true},
        Variant{.gate_other_value = true, .divide_gate = true}}) {
    expect_untouched(clip_form(v));
  }
}

// x * hardSigmoid(x) with PyTorch's alpha 1/6 and beta 0.5, in both operand orders; another
// alpha (ONNX's default 0.2, as mobilenet_v3's squeeze-excite gates use) is left alone.
TEST(FuseHardSwish, HardSigmoidFormBecomesOneNodeOnlyWithItsConstants) {
  auto build = [](double alpha, double beta, bool gate_first, bool gate_other) {
    Graph g;
    GraphBuilder b(g);
    const auto in = b.input("in", {DataType::kFloat32, {2, 7}});
    const auto x = b.add1(OpKind::kTanh, {in}, {}, "x");
    const auto y = b.add1(OpKind::kNeg, {in}, {}, "y");
    const auto h = b.add1(OpKind::kHardSigmoid, {x}, {{"alpha", alpha}, {"beta", beta}});
    const OperandId gated = gate_other ? y : x;
    b.output(gate_first ? b.add1(OpKind::kMul, {h, gated}, {}, "hs")
                        : b.add1(OpKind::kMul, {gated, h}, {}, "hs"));
    return g;
  };
  expect_fused(build(1.0 / 6, 0.5, false, false), "hs");
  expect_fused(build(1.0 / 6, 0.5, true, false), "hs");
  expect_untouched(build(0.2, 0.5, false, false));
  expect_untouched(build(1.0 / 6, 0.4, false, false));
  expect_untouched(build(1.0 / 6, 0.5, false, true));
}

// A broadcasting x: the pattern computed on [2, 1] values and a [2, 3] divisor would change
// the result's shape, so it stays.
TEST(FuseHardSwish, BroadcastingPatternIsLeftAlone) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {2, 1}});
  const auto a = b.add1(OpKind::kAdd, {x, b.constant("three", filled({}, 3))});
  const auto c = b.add1(OpKind::kClamp, {a}, {{"minValue", 0.0}, {"maxValue", 6.0}});
  const auto m = b.add1(OpKind::kMul, {x, c});
  b.output(b.add1(OpKind::kDiv, {m, b.constant("six", filled({2, 3}, 6))}, {}, "hs"));
  expect_untouched(g);
}

}  // namespace
}  // namespace wnn::passes
