// Cancelling inverse transpose pairs around elementwise chains (tf2onnx's NHWC wrappers): the
// rewritten graph has no transposes and computes exactly the original's values (the same ops
// on the same elements), with constants of every rank permuted; look-alikes (perms that are not
// inverse, a transposed value read elsewhere or a graph output, a computed broadcast operand, a
// constant wider than the value, an axis-dependent op in between) are left alone.
#include <gtest/gtest.h>

#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/passes/cancel_transposes.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;
using Ints = std::vector<int64_t>;

Tensor scalar(float v) {
  Tensor t = Tensor::zeros(DataType::kFloat32, {});
  t.mutable_view().as<float>()[0] = v;
  return t;
}

OperandId transpose(GraphBuilder& b, OperandId x, const Ints& perm, std::string name = {}) {
  return b.add1(OpKind::kTranspose, {x}, {{"permutation", perm}}, std::move(name));
}

size_t count(const Graph& g, OpKind op) {
  size_t n = 0;
  for (const Node& node : g.nodes()) n += node.op() == op;
  return n;
}

// The outputs of `g` on the reference kernels for seeded inputs.
std::vector<std::vector<float>> outputs(const Graph& g) {
  std::vector<Tensor> tensors;
  std::vector<NamedView> views;
  for (const InputInfo& in : g.inputs()) {
    tensors.push_back(seeded(g.desc(in.id).shape, 21 + uint32_t(tensors.size())));
  }
  for (size_t i = 0; i < tensors.size(); ++i)
    views.push_back({g.name_of(g.inputs()[i].id), tensors[i].view()});
  std::vector<std::vector<float>> out;
  for (const auto& t : Session(std::make_shared<const Graph>(g), {"ref", 1}).run(views)) {
    const float* p = t.tensor.view().as<float>();
    out.emplace_back(p, p + t.tensor.size());
  }
  return out;
}

void expect_cancelled(const Graph& g, size_t pairs) {
  const auto r = passes::cancel_transposes(g);
  EXPECT_EQ(r.fused, pairs);
  EXPECT_EQ(count(r.graph, OpKind::kTranspose), count(g, OpKind::kTranspose) - 2 * pairs);
  EXPECT_EQ(r.graph.outputs().size(), g.outputs().size());
  for (size_t o = 0; o < g.outputs().size(); ++o) {
    EXPECT_EQ(r.graph.name_of(r.graph.outputs()[o]), g.name_of(g.outputs()[o]));
    EXPECT_EQ(r.graph.desc(r.graph.outputs()[o]).shape, g.desc(g.outputs()[o]).shape);
  }
  EXPECT_EQ(outputs(r.graph), outputs(g));  // exactly: the same ops on the same elements
}

void expect_untouched(const Graph& g) {
  const auto r = passes::cancel_transposes(g);
  EXPECT_EQ(r.fused, 0u);
  ASSERT_EQ(r.graph.nodes().size(), g.nodes().size());
  for (size_t n = 0; n < g.nodes().size(); ++n)
    EXPECT_EQ(r.graph.nodes()[n].op(), g.nodes()[n].op()) << n;
}

// x [1, 5, 6, 3] (NHWC) -> NCHW -> + per-channel bias -> clamp -> * a [6] row (broadcast from
// the right) -> 0.25 - . (constant first) -> back to NHWC -> relu -> "y".
Graph nhwc_wrapper() {
  Graph g;
  GraphBuilder b(g);
  const auto x = b.input("x", {DataType::kFloat32, {1, 5, 6, 3}});
  const auto t = transpose(b, x, {0, 3, 1, 2});
  const auto a = b.add1(OpKind::kAdd, {t, b.constant("bias", seeded({1, 3, 1, 1}, 1))});
  const auto c = b.add1(OpKind::kClamp, {a}, {{"minValue", -0.5}, {"maxValue", 0.75}});
  const auto m = b.add1(OpKind::kMul, {c, b.constant("row", seeded({6}, 2))});
  const auto s = b.add1(OpKind::kSub, {b.constant("quarter", scalar(0.25f)), m});
  b.output(b.add1(OpKind::kRelu, {transpose(b, s, {0, 2, 3, 1})}, {}, "y"));
  return g;
}

TEST(CancelTransposes, NhwcWrapperAroundElementwiseChainCancels) {
  expect_cancelled(nhwc_wrapper(), 1);
}

TEST(CancelTransposes, SessionPlanHasNoTransposes) {
  const auto g = std::make_shared<const Graph>(nhwc_wrapper());
  const Session s(g, {"auto", 1, true, false});
  EXPECT_EQ(count(*s.execution_plan().graph, OpKind::kTranspose), 0u);
}

// A rank-3 permutation and its inverse around a full-rank constant of odd sizes (its data moves),
// and a direct pair with nothing between (an identity keeps the graph output's name), also with
// WebNN's default (reversing) permutation.
TEST(CancelTransposes, PermutedConstantsAndDirectPairs) {
  {
    Graph g;
    GraphBuilder b(g);
    const auto x = b.input("x", {DataType::kFloat32, {2, 3, 5}});
    const auto t = transpose(b, x, {2, 0, 1});  // [5, 2, 3]
    const auto d = b.add1(OpKind::kDiv, {t, b.constant("k", seeded({5, 2, 3}, 3))});
    const auto p = b.add1(OpKind::kMax, {b.constant("floor", seeded({2, 1}, 4)), d});
    b.output(transpose(b, p, {1, 2, 0}, "y"));
    expect_cancelled(g, 1);
  }
  for (const Ints& perm : {Ints{0, 2, 3, 1}, Ints{}}) {
    Graph g;
    GraphBuilder b(g);
    const auto x = b.input("x", {DataType::kFloat32, {1, 2, 3, 4}});
    const Ints inverse = perm.empty() ? Ints{} : Ints{0, 3, 1, 2};
    const auto t = perm.empty() ? b.add1(OpKind::kTranspose, {x}) : transpose(b, x, perm);
    b.output(inverse.empty() ? b.add1(OpKind::kTranspose, {t}, {}, "y")
                             : transpose(b, t, inverse, "y"));
    expect_cancelled(g, 1);
  }
}

TEST(CancelTransposes, LookAlikesAreLeftAlone) {
  auto chain = [](const Ints& second, int variant) {
    Graph g;
    GraphBuilder b(g);
    const auto x = b.input("x", {DataType::kFloat32, {1, 4, 4, 3}});
    const auto t = transpose(b, x, {0, 3, 1, 2});  // [1, 3, 4, 4]
    OperandId v = b.add1(OpKind::kRelu, {t}, {}, "inner");
    if (variant == 1) b.output(b.add1(OpKind::kSigmoid, {t}, {}, "also_reads_t"));
    if (variant == 2) b.output(v);
    if (variant == 3) {
      const auto s = b.input("s", {DataType::kFloat32, {3, 1, 1}});
      v = b.add1(OpKind::kMul, {v, s});
    }
    if (variant == 4) v = b.add1(OpKind::kAdd, {v, b.constant("wide", seeded({2, 3, 4, 4}, 5))});
    if (variant == 5) v = b.add1(OpKind::kSoftmax, {v, int64_t(1)});
    b.output(transpose(b, v, second, "y"));
    return g;
  };
  expect_untouched(chain({0, 3, 1, 2}, 0));  // the same perm twice: not inverse
  expect_untouched(chain({0, 2, 1, 3}, 0));
  for (int variant = 1; variant <= 5; ++variant) {
    SCOPED_TRACE(variant);
    expect_untouched(chain({0, 2, 3, 1}, variant));
  }
  expect_cancelled(chain({0, 2, 3, 1}, 0), 1);  // the base case does cancel
}

}  // namespace
}  // namespace wnn::runtime
