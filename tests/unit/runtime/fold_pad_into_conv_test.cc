// Folding a zero pad into the conv after it (tf2onnx's ZeroPadding2D): in both layouts, for a
// dense and a depthwise conv with padding of its own, the pad disappears into the conv's
// padding and the values stay; a pad read elsewhere stays for that reader; look-alikes (a
// nonzero value, edge and reflection modes, channel or batch padding, a transposed conv) stay.
#include <gtest/gtest.h>

#include <cmath>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/passes/fold_pad_into_conv.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;
using testing::values;
using Ints = std::vector<int64_t>;

struct Case {
  bool nhwc = false;
  int64_t groups = 1;
  double value = 0;
  std::string mode = "constant";
  Ints begin = {0, 0, 1, 0}, end = {0, 0, 2, 3};  // in NCHW order; permuted for NHWC
  bool pad_is_output = false;
  bool transposed = false;
};

Ints in_layout(const Ints& nchw, bool nhwc) {
  return nhwc ? Ints{nchw[0], nchw[2], nchw[3], nchw[1]} : nchw;
}

// x [1, 3, 9, 8] -> neg -> pad -> conv (stride 2, padding [1, 0, 0, 1]) -> "y".
std::shared_ptr<const Graph> padded_conv(const Case& c) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, in_layout({1, 3, 9, 8}, c.nhwc)});
  const auto n = b.add1(OpKind::kNeg, {x}, {}, "negated");
  const auto p = b.add1(OpKind::kPad, {n, in_layout(c.begin, c.nhwc), in_layout(c.end, c.nhwc)},
                        {{"mode", c.mode}, {"value", c.value}}, "padded");
  const int64_t channels = 3 + c.begin[1] + c.end[1];  // after the pad
  const int64_t out = c.groups == 1 ? 4 : 3, in_per_group = channels / c.groups;
  const Shape filter =
      c.transposed ? (c.nhwc ? Shape{channels, 3, 3, 4} : Shape{channels, 4, 3, 3})
                   : (c.nhwc ? Shape{out, 3, 3, in_per_group} : Shape{out, in_per_group, 3, 3});
  const auto w = b.constant("w", seeded(filter, 5));
  const std::string layout = c.nhwc ? "nhwc" : "nchw";
  const std::string filter_layout =
      c.transposed ? (c.nhwc ? "ohwi" : "iohw") : (c.nhwc ? "ohwi" : "oihw");
  b.output(b.add1(c.transposed ? OpKind::kConvTranspose2d : OpKind::kConv2d, {p, w},
                  {{"strides", Ints{2, 2}},
                   {"padding", Ints{1, 0, 0, 1}},
                   {"groups", c.groups},
                   {"inputLayout", layout},
                   {"filterLayout", filter_layout},
                   {"bias", b.constant("bias", seeded({out}, 6))}},
                  "y"));
  if (c.pad_is_output) b.output(p);
  return g;
}

size_t count(const Graph& g, OpKind op) {
  size_t n = 0;
  for (const Node& node : g.nodes()) n += node.op() == op;
  return n;
}

std::vector<NamedTensor> run_ref(const Graph& g, const Tensor& x) {
  return Session(std::make_shared<const Graph>(g), {"ref", 1})
      .run(std::vector<NamedView>{{"x", x.view()}});
}

void expect_same_values(const Graph& a, const Graph& b, bool nhwc) {
  const Tensor x = seeded(in_layout({1, 3, 9, 8}, nhwc), 8);
  const auto got = run_ref(a, x), want = run_ref(b, x);
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    const auto u = values(got[o]), v = values(want[o]);
    ASSERT_EQ(u.size(), v.size());
    for (size_t i = 0; i < u.size(); ++i) ASSERT_NEAR(u[i], v[i], 1e-5) << o << " at " << i;
  }
}

TEST(FoldPadIntoConv, ZeroPadBecomesConvPadding) {
  for (bool nhwc : {false, true}) {
    for (int64_t groups : {int64_t(1), int64_t(3)}) {
      SCOPED_TRACE(::testing::Message() << (nhwc ? "nhwc" : "nchw") << ", groups " << groups);
      const auto g = padded_conv({.nhwc = nhwc, .groups = groups});
      const auto r = passes::fold_pads_into_convs(*g);
      EXPECT_EQ(r.fused, 1u);
      EXPECT_EQ(count(r.graph, OpKind::kPad), 0u);
      for (const Node& n : r.graph.nodes()) {
        if (n.op() == OpKind::kConv2d) EXPECT_EQ(n.attrs.get_ints("padding"), (Ints{2, 2, 0, 4}));
      }
      expect_same_values(r.graph, *g, nhwc);
      // And through a session on the delegates.
      const Tensor x = seeded(in_layout({1, 3, 9, 8}, nhwc), 9);
      testing::expect_same_as_reference(g, {{"x", x.view()}});
    }
  }
}

TEST(FoldPadIntoConv, PadReadElsewhereStaysForThatReader) {
  const auto g = padded_conv({.pad_is_output = true});
  const auto r = passes::fold_pads_into_convs(*g);
  EXPECT_EQ(r.fused, 1u);
  EXPECT_EQ(count(r.graph, OpKind::kPad), 1u);
  for (const Node& n : r.graph.nodes()) {
    if (n.op() == OpKind::kConv2d) EXPECT_EQ(r.graph.name_of(n.inputs[0]), "negated");
  }
  expect_same_values(r.graph, *g, false);
}

TEST(FoldPadIntoConv, LookAlikesAreLeftAlone) {
  for (const Case& c : {Case{.value = 1}, Case{.nhwc = true, .value = -0.5}, Case{.mode = "edge"},
                        Case{.mode = "reflection"}, Case{.begin = {0, 1, 1, 0}},
                        Case{.nhwc = true, .end = {0, 2, 2, 3}}, Case{.end = {1, 0, 2, 3}},
                        Case{.transposed = true}}) {
    const auto g = padded_conv(c);
    const auto r = passes::fold_pads_into_convs(*g);
    EXPECT_EQ(r.fused, 0u);
    EXPECT_EQ(count(r.graph, OpKind::kPad), 1u);
  }
}

}  // namespace
}  // namespace wnn::runtime
