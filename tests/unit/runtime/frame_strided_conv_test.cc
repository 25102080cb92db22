// The strided long-filter conv pass (an STFT as Conv1d): the rewritten graph computes what the
// conv computes, for each way the signal meets the frames (a tail sliced off, zero padding past
// the end, a filter shorter than the stride, the mel front end's exact fit), convs reading
// reshapes of one signal share their frames, a session runs matmuls (on either delegate) and no
// conv, and look-alikes (stride 1, a short filter, two channels, padding, dilation, a computed
// filter, NHWC) stay.
#include <gtest/gtest.h>

#include <cmath>

#include "onednn_compare.h"
#include "seeded_tensor.h"
#include "wnn/core/builder.h"
#include "wnn/passes/frame_strided_conv.h"
#include "wnn/runtime/session.h"

namespace wnn::runtime {
namespace {

using testing::seeded;
using testing::values;
using Ints = std::vector<int64_t>;

struct Geometry {
  int64_t batch = 2, length = 1000, taps = 53, stride = 16;
  Ints padding = {0, 0, 0, 0}, dilations = {1, 1};
  int64_t channels = 1;
  bool filter_computed = false;  // the filter is neg(constant), not folded here
  bool nhwc = false;
};

// x [N, L] -> reshape [N, C, 1, L] per conv (as the ONNX import lifts each Conv1d) -> two convs
// (the second with a bias and other output channels) -> outputs "re" and "im".
std::shared_ptr<const Graph> stft(const Geometry& s) {
  auto g = std::make_shared<Graph>();
  GraphBuilder b(*g);
  const auto x = b.input("x", {DataType::kFloat32, {s.batch, s.channels * s.length}});
  auto conv = [&](int64_t out, uint32_t seed, bool bias, const std::string& name) {
    const Ints shape =
        s.nhwc ? Ints{s.batch, 1, s.length, s.channels} : Ints{s.batch, s.channels, 1, s.length};
    const auto lifted = b.add1(OpKind::kReshape, {x, shape});
    OperandId w = b.constant(name + "_w", seeded(s.nhwc ? Shape{out, 1, s.taps, s.channels}
                                                        : Shape{out, s.channels, 1, s.taps},
                                                 seed));
    if (s.filter_computed) w = b.add1(OpKind::kNeg, {w});
    std::vector<std::pair<std::string, RawValue>> named = {
        {"strides", Ints{1, s.stride}},
        {"padding", s.padding},
        {"dilations", s.dilations},
        {"inputLayout", s.nhwc ? "nhwc" : "nchw"},
        {"filterLayout", s.nhwc ? "ohwi" : "oihw"}};
    if (bias) named.push_back({"bias", b.constant(name + "_b", seeded({out}, seed + 1))});
    b.output(b.add1(OpKind::kConv2d, {lifted, w}, named, name));
  };
  conv(7, 1, false, "re");
  conv(5, 3, true, "im");
  return g;
}

size_t count(const Graph& g, OpKind op) {
  size_t n = 0;
  for (const Node& node : g.nodes()) n += node.op() == op;
  return n;
}

std::vector<NamedTensor> run_ref(const std::shared_ptr<const Graph>& g, const Tensor& x) {
  return Session(g, {"ref", 1}).run(std::vector<NamedView>{{"x", x.view()}});
}

void expect_close(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) {
    EXPECT_EQ(got[o].name, want[o].name);
    EXPECT_EQ(got[o].tensor.shape, want[o].tensor.shape);
    const auto a = values(got[o]), r = values(want[o]);
    ASSERT_EQ(a.size(), r.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(a[i], r[i], 1e-4 + 1e-4 * std::abs(r[i])) << got[o].name << " at " << i;
    }
  }
}

TEST(FrameStridedConv, RewrittenGraphComputesTheConvs) {
  // (taps, stride, length): a tail sliced off, zero padding past the end, a filter shorter than
  // the stride, and oww-melspectrogram's 512 taps at stride 160 over 16000 samples (exact fit).
  for (const auto& [taps, stride, length] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {48, 16, 1000}, {53, 16, 1000}, {40, 64, 1000}, {512, 160, 16000}}) {
    SCOPED_TRACE(::testing::Message() << taps << " taps, stride " << stride << ", " << length);
    const auto g = stft({.length = length, .taps = taps, .stride = stride});
    auto r = passes::frame_strided_convs(*g);
    EXPECT_EQ(r.fused, 2u);
    EXPECT_EQ(count(r.graph, OpKind::kConv2d), 0u);
    EXPECT_EQ(count(r.graph, OpKind::kMatmul), 2u);
    // One set of frames for both convs: at most one concat (none when one slice is the frame).
    EXPECT_EQ(count(r.graph, OpKind::kConcat), taps > stride ? 1u : 0u);
    const Tensor x = seeded({2, length}, 7);
    expect_close(run_ref(std::make_shared<const Graph>(std::move(r.graph)), x), run_ref(g, x));
  }
}

// Through a session: the plan runs matmuls, no conv, and matches the reference kernels.
TEST(FrameStridedConv, SessionRunsMatmulsAndMatchesReference) {
  const auto g = stft({.length = 1000, .taps = 53, .stride = 16});
  const Tensor x = seeded({2, 1000}, 9);
  const Session s(g, {"auto", 2, true, false});
  EXPECT_EQ(count(*s.execution_plan().graph, OpKind::kConv2d), 0u);
  EXPECT_EQ(count(*s.execution_plan().graph, OpKind::kMatmul), 2u);
  expect_close(s.run(std::vector<NamedView>{{"x", x.view()}}), run_ref(g, x));
  testing::expect_same_as_reference(g, {{"x", x.view()}});
  // Both delegates take the matmuls (XNNPACK's only 2-D), none is left to the reference kernels.
  for (const char* backend : {"onednn", "xnnpack"}) {
    const Session d(g, {backend, 1, true, false});
    const auto& plan = d.execution_plan();
    for (size_t n = 0; n < plan.graph->nodes().size(); ++n) {
      if (plan.graph->nodes()[n].op() == OpKind::kMatmul)
        EXPECT_GE(plan.partition.region_of[n], 0)
            << backend << ": " << plan.partition.ref_reason[n];
    }
    expect_close(d.run(std::vector<NamedView>{{"x", x.view()}}), run_ref(g, x));
  }
}

TEST(FrameStridedConv, LookAlikesAreLeftAlone) {
  for (const Geometry& s : {Geometry{.stride = 1}, Geometry{.taps = 31}, Geometry{.channels = 2},
                            Geometry{.padding = {0, 0, 3, 3}}, Geometry{.dilations = {1, 2}},
                            Geometry{.filter_computed = true}, Geometry{.nhwc = true}}) {
    const auto g = stft(s);
    const auto r = passes::frame_strided_convs(*g);
    EXPECT_EQ(r.fused, 0u);
    ASSERT_EQ(r.graph.nodes().size(), g->nodes().size());
    for (size_t n = 0; n < g->nodes().size(); ++n)
      EXPECT_EQ(r.graph.nodes()[n].op(), g->nodes()[n].op()) << n;
  }
}

}  // namespace
}  // namespace wnn::runtime
