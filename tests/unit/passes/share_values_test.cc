// passes/share_values: a computation repeated from the same operands (equal small constants
// count as the same operand) is computed once and the graph computes what it did; look-alikes
// (other options, other constant values or dtypes, other inputs, a graph output) are kept.
#include "wnn/passes/share_values.h"

#include <gtest/gtest.h>

#include <limits>

#include "reference_eval.h"
#include "wnn/passes/canonicalize.h"

namespace wnn::passes {
namespace {

using testing::count_ops;
using testing::evaluate;
using testing::expect_unchanged_by;
using testing::max_abs_difference;
using testing::seeded;

OperandId constant(GraphBuilder& b, std::vector<float> values, Shape shape,
                   DataType dtype = DataType::kFloat32) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) store_double(t.mutable_view(), int64_t(i), values[i]);
  return b.constant(b.unique_name("k"), t);
}

// Two "layers" reading x, each computing leakyRelu(x * k + 1) with its own copy of k, and
// what varies between them for the look-alikes.
struct Layers {
  std::vector<float> second_k = {0.5f, -1.25f, 0.0f};
  DataType second_dtype = DataType::kFloat32;
  double second_alpha = 0.125;
  bool second_reads_y = false;
  bool output_second_product = false;
};

Graph layers_graph(const Layers& v) {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {5, 3}});
  const auto y = b.input("y", {DataType::kFloat32, {5, 3}});
  auto layer = [&](OperandId in, const std::vector<float>& k, DataType dtype, double alpha,
                   bool output_product) {
    OperandId kk = constant(b, k, {3}, dtype);
    if (dtype != DataType::kFloat32) kk = b.add1(OpKind::kCast, {kk, DataType::kFloat32});
    const auto product = b.add1(OpKind::kMul, {in, kk});
    if (output_product) b.output(product);
    const auto plus = b.add1(OpKind::kAdd, {product, constant(b, {1.0f}, {})});
    return b.add1(OpKind::kLeakyRelu, {plus}, {{"alpha", alpha}});
  };
  const auto first = layer(x, {0.5f, -1.25f, 0.0f}, DataType::kFloat32, 0.125, false);
  const auto second = layer(v.second_reads_y ? y : x, v.second_k, v.second_dtype, v.second_alpha,
                            v.output_second_product);
  b.output(b.add1(OpKind::kConcat, {RawValue(std::vector<OperandId>{first, second}), int64_t(0)},
                  {}, "out"));
  return g;
}

std::map<std::string, Tensor> inputs() {
  return {{"x", seeded({5, 3}, 1)}, {"y", seeded({5, 3}, 2)}};
}

TEST(ShareValues, ARepeatedLayerIsComputedOnce) {
  const Graph g = layers_graph({});
  const auto r = share_common_values(g);
  EXPECT_EQ(r.fused, 3u);  // the second mul, add and leakyRelu
  EXPECT_EQ(count_ops(r.graph, OpKind::kMul), 1u);
  EXPECT_EQ(count_ops(r.graph, OpKind::kLeakyRelu), 1u);
  // One copy of each equal constant is left.
  EXPECT_EQ(r.graph.constants().size(), 2u);
  EXPECT_EQ(max_abs_difference(evaluate(r.graph, inputs())[0], evaluate(g, inputs())[0]), 0.0);
}

TEST(ShareValues, CanonicalizeRunsIt) {
  const auto c = canonicalize(layers_graph({}));
  EXPECT_EQ(count_ops(c.graph, OpKind::kMul), 1u);
  size_t shared = 0;
  for (const PatternCount& p : c.counts) shared += p.pattern == "sharedValues" ? p.replaced : 0;
  EXPECT_EQ(shared, 3u);
}

TEST(ShareValues, LookAlikesStay) {
  Layers other_values;
  other_values.second_k = {0.5f, -1.25f, 1e-30f};
  Layers other_dtype;
  other_dtype.second_dtype = DataType::kFloat16;
  Layers other_option;
  other_option.second_alpha = 0.25;
  Layers other_input;
  other_input.second_reads_y = true;
  for (const Layers& v : {other_values, other_dtype, other_option}) {
    const Graph g = layers_graph(v);
    const auto r = share_common_values(g);
    // What reads the differing constant or option stays twice (the mul and add before a
    // differing option are still shared).
    EXPECT_EQ(max_abs_difference(evaluate(r.graph, inputs())[0], evaluate(g, inputs())[0]), 0.0);
    EXPECT_EQ(count_ops(r.graph, OpKind::kLeakyRelu), 2u);
  }
  EXPECT_EQ(count_ops(share_common_values(layers_graph(other_values)).graph, OpKind::kMul), 2u);
  EXPECT_EQ(count_ops(share_common_values(layers_graph(other_dtype)).graph, OpKind::kMul), 2u);
  EXPECT_EQ(count_ops(share_common_values(layers_graph(other_option)).graph, OpKind::kMul), 1u);
  expect_unchanged_by(share_common_values, layers_graph(other_input));
}

TEST(ShareValues, AGraphOutputKeepsItsNode) {
  Layers v;
  v.output_second_product = true;
  const Graph g = layers_graph(v);
  const auto r = share_common_values(g);
  EXPECT_EQ(count_ops(r.graph, OpKind::kMul), 2u);  // the second mul is an output
  EXPECT_EQ(r.graph.outputs().size(), 2u);
  EXPECT_EQ(r.graph.name_of(r.graph.outputs()[1]), "out");
  const auto got = evaluate(r.graph, inputs()), want = evaluate(g, inputs());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(max_abs_difference(got[i], want[i]), 0.0);
}

TEST(ShareValues, FloatOptionsCompareByTheirBits) {
  // NaN is the same option as NaN; -0 is not the same as 0 (leakyRelu's slope sign shows).
  auto graph = [](double first, double second) {
    Graph g;
    GraphBuilder b(g);
    const auto x = b.input("x", {DataType::kFloat32, {4}});
    const auto a = b.add1(OpKind::kLeakyRelu, {x}, {{"alpha", first}});
    const auto c = b.add1(OpKind::kLeakyRelu, {x}, {{"alpha", second}});
    b.output(b.add1(OpKind::kAdd, {a, c}, {}, "out"));
    return g;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(share_common_values(graph(nan, nan)).fused, 1u);
  EXPECT_EQ(share_common_values(graph(0.0, 0.0)).fused, 1u);
  EXPECT_EQ(share_common_values(graph(0.0, -0.0)).fused, 0u);
  EXPECT_EQ(share_common_values(graph(0.5, nan)).fused, 0u);
}

}  // namespace
}  // namespace wnn::passes
